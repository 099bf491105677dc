"""Plays honestly, then dies of a segmentation fault (SIGSEGV, as a C bot with a bad pointer) on its third move."""

import os
import signal

import _base


def hook(msg):
    if msg["type"] == "turn" and _base.turns == 2:
        os.kill(os.getpid(), signal.SIGSEGV)


_base.run(hook)
