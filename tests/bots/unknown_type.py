"""Answers its first turn with a reply type that protocol v1 does not have."""

import _base


def hook(msg):
    if msg["type"] == "turn":
        return {"type": "attack", "target": 0}


_base.run(hook)
