"""An honest minimal bot (stdlib only): discards its highest cards, plays the lowest card not below last,
else drops out (so games are short)."""

import json
import sys


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "hello":
        reply({"type": "hello", "protocol": 1, "name": "honest"})
    elif kind == "deal":
        cards = [c for c in msg["hand"] if c != 1]
        reply({"type": "discard", "cards": cards[len(cards) - msg["discard"] :]})
    elif kind == "turn":
        last = msg["last"]
        if last is None:
            reply({"type": "play", "value": 1, "count": 1, "bonus": 0})
            continue
        higher = [c for c in msg["hand"] if c >= last]
        if higher:
            reply({"type": "play", "value": min(higher), "count": 1, "bonus": 0})
        else:
            reply({"type": "drop"})
    elif kind == "bye":
        break
