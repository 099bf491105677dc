"""Answers its first turn honestly, but only after SLOW_SECONDS (default 1.5) seconds."""

import os
import time

import _base


def hook(msg):
    if msg["type"] == "turn" and _base.turns == 0:
        time.sleep(float(os.environ.get("SLOW_SECONDS", "1.5")))
    return None


_base.run(hook)
