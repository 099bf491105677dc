"""Closes its stdout when asked for its first move, and keeps running."""

import os
import time

import _base


def hook(msg):
    if msg["type"] == "turn":
        os.close(1)
        time.sleep(3600)


_base.run(hook)
