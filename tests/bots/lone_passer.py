"""A stdlib-only bot that passes whenever it is the only player left in the round (hoping someone else moves).

Alone at the table nobody else ever plays again, so every pass costs a chip and changes nothing: the round runs
on to the turn limit. Otherwise it plays legally: the lowest card not below last, else it passes (else drops).
With LONE_PASSES=n it gives up after n passes alone and drops: chips wasted, but the round ends.
"""

import json
import os
import sys

LIMIT = int(os.environ.get("LONE_PASSES", "0")) or None
alone_passes = 0


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def move(msg):
    global alone_passes
    hand, last, seat = msg["hand"], msg["last"], msg["seat"]
    if last is None:
        return {"type": "play", "value": 1, "count": 1, "bonus": 0}
    alone = all(p["status"] != "playing" for s, p in enumerate(msg["players"]) if s != seat)
    if not alone:
        alone_passes = 0
    elif LIMIT is None or alone_passes < LIMIT:
        alone_passes += 1
        return {"type": "pass"}
    else:
        return {"type": "drop"}
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
