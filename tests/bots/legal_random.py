"""An honest bot that asks for the list of legal moves and plays one at random
(seeded by its game and seat), dropping out when it cannot play."""

import json
import random
import sys

rng = random.Random(0)


def reply(obj):
    print(json.dumps(obj), flush=True)


for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "hello":
        reply({"type": "hello", "protocol": 1, "name": "legal-random", "options": {"legal_moves": True}})
    elif kind == "game_start":
        rng = random.Random(f"{msg['game']}/{msg['seat']}")
    elif kind == "deal":
        cards = [c for c in msg["hand"] if c != 1]
        rng.shuffle(cards)
        reply({"type": "discard", "cards": cards[: msg["discard"]]})
    elif kind == "turn":
        plays = [m for m in msg["legal"] if m["type"] == "play"]
        reply(rng.choice(plays) if plays else {"type": "drop"})
    elif kind == "bye":
        break
