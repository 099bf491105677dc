"""Plays honestly, but every reply carries an unknown field ``padding`` (protocol v1: ignored by the referee).

The padding is PADDING_BYTES long (default 5000); with PADDED_LINE set, it is sized so that every reply line
is exactly PADDED_LINE bytes long (newline not counted).
"""

import json
import os

import _base

LINE = int(os.environ.get("PADDED_LINE", "0"))
PADDING = int(os.environ.get("PADDING_BYTES", "5000"))


def hook(msg):
    reply = _base.honest(msg, "padded")
    if reply is None:
        return None
    bare = len(json.dumps({**reply, "padding": ""}).encode())
    size = LINE - bare if LINE else PADDING
    if size < 0:
        raise SystemExit(f"PADDED_LINE={LINE} is shorter than the bare reply ({bare} bytes)")
    line = json.dumps({**reply, "padding": "x" * size}).encode()
    assert not LINE or len(line) == LINE, len(line)
    _base.send_raw(line + b"\n")
    return _base.DONE


_base.run(hook)
