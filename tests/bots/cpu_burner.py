"""Plays honestly, then computes forever on its second move: the CPU-time limit ends it."""

import _base


def hook(msg):
    if msg["type"] == "turn" and _base.turns == 1:
        n = 0
        while True:
            n += 1


_base.run(hook)
