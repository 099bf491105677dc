"""Plays honestly, and from the end of its first game on burns CPU in a child while nobody asks it anything (a warm
process between its games): without a freezer it takes a core from every other bot of the machine."""

import os

import _base

burning = []


def hook(msg):
    if msg["type"] == "game_end" and not burning:
        burning.append(True)
        if os.fork() == 0:
            while True:
                pass
    return None


_base.run(hook)
