"""Plays honestly, and from the start of its game burns CPU in a child, all the time (while the others think too)."""

import os

import _base

burning = []


def hook(msg):
    if msg["type"] == "game_start" and not burning:
        burning.append(True)
        if os.fork() == 0:
            while True:
                pass
    return None


_base.run(hook)
