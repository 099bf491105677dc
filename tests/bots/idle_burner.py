"""Plays honestly, and from the end of its first game on burns CPU in a child while nobody asks it anything (a warm
process between its games): without a freezer it takes a core from every other bot of the machine. With
``BURN_FROM=game_start`` it burns from the start of its game, all the time (while the others think too)."""

import os

import _base

burning = []
start = os.environ.get("BURN_FROM", "game_end")


def hook(msg):
    if msg["type"] == start and not burning:
        burning.append(True)
        if os.fork() == 0:
            while True:
                pass
    return None


_base.run(hook)
