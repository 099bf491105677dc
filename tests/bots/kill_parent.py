"""Plays honestly, then sends SIGKILL and SIGSTOP to its parent process when asked for its second move (in the
sandbox its parent is the sandbox's own init, which the signals cannot touch), and answers that move honestly."""

import contextlib
import os
import signal

import _base


def hook(msg):
    if msg["type"] == "turn" and _base.turns == 1:
        for sig in (signal.SIGSTOP, signal.SIGKILL):
            with contextlib.suppress(OSError):
                os.kill(os.getppid(), sig)
    return None


_base.run(hook)
