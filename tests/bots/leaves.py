"""Plays honestly in round 1; at its first turn of round 2 after the opening it drops out and exits with
status 3, while the game goes on without it."""

import sys

import _base


def hook(msg):
    if msg["type"] == "turn" and msg["round"] == 2 and msg["last"] is not None:
        _base.send({"type": "drop"})
        sys.exit(3)


_base.run(hook)
