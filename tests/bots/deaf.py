"""Answers hello, then neither reads nor exits: it sleeps, deaf to end of input."""

import time

import _base


def hook(msg):
    if msg["type"] == "hello":
        _base.send({"type": "hello", "protocol": 1, "name": "deaf"})
        while True:
            time.sleep(1)


_base.run(hook)
