"""Starts a child that sleeps for ever, then answers its first turn only after SLOW_SECONDS (default 1.5) seconds."""

import os
import time

import _base

if os.fork() == 0:
    while True:
        time.sleep(1)


def hook(msg):
    if msg["type"] == "turn" and _base.turns == 0:
        time.sleep(float(os.environ.get("SLOW_SECONDS", "1.5")))
    return None


_base.run(hook)
