"""Answers its first turn with a JSON array instead of an object."""

import _base


def hook(msg):
    if msg["type"] == "turn":
        return [{"type": "drop"}]


_base.run(hook)
