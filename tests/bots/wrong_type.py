"""Answers its first turn with a discard (a known reply type, but not one that answers a turn)."""

import _base


def hook(msg):
    if msg["type"] == "turn":
        return {"type": "discard", "cards": msg["hand"][:3]}


_base.run(hook)
