"""Answers its first turn with a line that is not JSON."""

import _base


def hook(msg):
    if msg["type"] == "turn":
        _base.send_raw(b'{"type": "play", "value": 8,\n')
        return _base.DONE


_base.run(hook)
