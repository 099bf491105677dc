"""A tiny protocol-v1 bot that plays uniformly random legal moves (asks the referee for the legal list).

Environment: MISBEHAVE=crash|hang|garbage|illegal makes it fault on its N-th turn (N = MISBEHAVE_AT, default 3)
of every game, for fault-attribution tests. BOT_NAME sets the declared name.
"""

import json
import os
import random
import sys
import time

rng = random.Random(os.getpid())
mode = os.environ.get("MISBEHAVE", "")
at = int(os.environ.get("MISBEHAVE_AT", "3"))
turns = 0


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    msg = json.loads(line)
    t = msg["type"]
    if t == "hello":
        send(
            {
                "type": "hello",
                "protocol": 1,
                "name": os.environ.get("BOT_NAME", "random"),
                "options": {"legal_moves": True},
            }
        )
    elif t == "game_start":
        turns = 0
    elif t == "deal":
        hand = [c for c in msg["hand"] if c != 1]
        send({"type": "discard", "cards": rng.sample(hand, msg["discard"])})
    elif t == "turn":
        turns += 1
        if mode and turns == at:
            if mode == "crash":
                sys.exit(3)
            if mode == "hang":
                time.sleep(3600)
            if mode == "garbage":
                sys.stdout.write("this is not json\n")
                sys.stdout.flush()
                continue
            if mode == "illegal":
                send({"type": "play", "value": 99, "count": 1, "bonus": 0})
                continue
        send(rng.choice(msg["legal"]))
    elif t == "bye":
        break
