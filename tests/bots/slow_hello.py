"""Plays honestly, but answers hello only after HELLO_SECONDS (default 1) seconds: the other seats' start-ups
are over by then."""

import os
import time

import _base


def hook(msg):
    if msg["type"] == "hello":
        time.sleep(float(os.environ.get("HELLO_SECONDS", "1")))
    return None


_base.run(hook)
