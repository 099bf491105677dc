"""Ignores SIGTERM and never answers its first turn."""

import signal
import time

import _base

signal.signal(signal.SIGTERM, signal.SIG_IGN)


def hook(msg):
    if msg["type"] == "turn":
        while True:
            time.sleep(1)


_base.run(hook)
