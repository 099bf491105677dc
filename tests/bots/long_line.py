"""Answers its first turn with 2 MB without a newline, then waits."""

import time

import _base


def hook(msg):
    if msg["type"] == "turn":
        _base.send_raw(b"x" * (2 * 1024 * 1024))
        time.sleep(3600)


_base.run(hook)
