"""Answers its first turn with a play whose value is a string ("8") instead of an integer."""

import _base


def hook(msg):
    if msg["type"] == "turn":
        return {"type": "play", "value": str(msg["hand"][0]), "count": 1, "bonus": 0}


_base.run(hook)
