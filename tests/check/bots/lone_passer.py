"""A stdlib-only bot that passes whenever it is the only player left in the round (hoping someone else moves).

Alone at the table nobody else ever plays again, so every pass costs a chip and changes nothing: the round runs
on to the turn limit. Otherwise it plays legally: the lowest card not below last, else it passes (else drops).
"""

import json
import sys


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def move(msg):
    hand, last, seat = msg["hand"], msg["last"], msg["seat"]
    if last is None:
        return {"type": "play", "value": 1, "count": 1, "bonus": 0}
    alone = all(p["status"] != "playing" for s, p in enumerate(msg["players"]) if s != seat)
    if alone:
        return {"type": "pass"}
    higher = [c for c in hand if c >= last]
    if higher:
        return {"type": "play", "value": min(higher), "count": 1, "bonus": 0}
    if msg["forced"]:
        return {"type": "drop"}
    return {"type": "pass"}


for line in sys.stdin:
    msg = json.loads(line)
    kind = msg.get("type")
    if kind == "hello":
        reply({"type": "hello", "protocol": 1, "name": "lone-passer"})
    elif kind == "deal":
        cards = [c for c in msg["hand"] if c != 1]
        reply({"type": "discard", "cards": cards[len(cards) - msg["discard"] :]})
    elif kind == "turn":
        reply(move(msg))
    elif kind == "bye":
        break
