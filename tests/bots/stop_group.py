"""Plays honestly, then stops its whole process group (SIGSTOP) when asked for its second move."""

import os
import signal

import _base


def hook(msg):
    if msg["type"] == "turn" and _base.turns == 1:
        os.killpg(0, signal.SIGSTOP)


_base.run(hook)
