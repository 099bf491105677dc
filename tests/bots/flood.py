"""Answers its deal correctly, then floods stdout with extra reply lines without end."""

import json

import _base


def hook(msg):
    if msg["type"] == "deal":
        cards = [c for c in msg["hand"] if c != 1]
        cards = cards[len(cards) - msg["discard"] :]
        line = b'{"type":"pass"}\n'
        reply = json.dumps({"type": "discard", "cards": cards}) + "\n"
        _base.send_raw(reply.encode() + line * 1000)
        while True:
            _base.send_raw(line * 1000)


_base.run(hook)
