"""Plays honestly, taking STEADY_SECONDS (default 0.2) over each turn of round 2: a game that goes on for a
while after another bot has left it."""

import os
import time

import _base


def hook(msg):
    if msg["type"] == "turn" and msg["round"] == 2:
        time.sleep(float(os.environ.get("STEADY_SECONDS", "0.2")))
    return None


_base.run(hook)
