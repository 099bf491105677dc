"""Plays honestly, then exits with status 1 when asked for its third move."""

import sys

import _base


def hook(msg):
    if msg["type"] == "turn" and _base.turns == 2:
        sys.exit(1)


_base.run(hook)
