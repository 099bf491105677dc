"""Forks without end when asked for its first move (every child forks too)."""

import os
import time

import _base


def hook(msg):
    if msg["type"] == "turn":
        while True:
            try:
                os.fork()
            except OSError:
                time.sleep(0.01)


_base.run(hook)
