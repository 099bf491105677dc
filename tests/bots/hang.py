"""Never answers its first turn (sleeps)."""

import time

import _base


def hook(msg):
    if msg["type"] == "turn":
        time.sleep(3600)


_base.run(hook)
