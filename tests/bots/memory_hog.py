"""Allocates memory without end when asked for its first move."""

import _base

hoard = []


def hook(msg):
    if msg["type"] == "turn":
        while True:
            hoard.append(bytearray(64 * 1024 * 1024))


_base.run(hook)
