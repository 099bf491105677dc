"""A tiny protocol v1 bot playing uniformly random legal moves (it asks the referee for the legal list).

Its choices depend only on the game id and its seat, so a game replayed after a resume is the same game.
Environment: MISBEHAVE=crash|hang|garbage|illegal makes it fault on its MISBEHAVE_AT-th turn (default 3) of
every game; MISBEHAVE=nohello exits before its hello. BOT_NAME sets the name it declares.
"""

import json
import os
import random
import sys
import time

rng = random.Random(0)
mode = os.environ.get("MISBEHAVE", "")
at = int(os.environ.get("MISBEHAVE_AT", "3"))
turns = 0


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def misbehave():
    if mode == "crash":
        sys.exit(3)
    if mode == "hang":
        time.sleep(3600)
    if mode == "garbage":
        sys.stdout.write("this is not json\n")
        sys.stdout.flush()
    if mode == "illegal":
        send({"type": "play", "value": 23, "count": 4, "bonus": 0})


for line in sys.stdin:
    msg = json.loads(line)
    t = msg["type"]
    if t == "hello":
        if mode == "nohello":
            sys.exit(2)
        name = os.environ.get("BOT_NAME", "random")
        send({"type": "hello", "protocol": 1, "name": name, "options": {"legal_moves": True}})
    elif t == "game_start":
        turns = 0
        rng.seed(f"{msg['game']}/{msg['seat']}")
    elif t == "deal":
        hand = [c for c in msg["hand"] if c != 1]
        send({"type": "discard", "cards": rng.sample(hand, msg["discard"])})
    elif t == "turn":
        turns += 1
        if mode and turns == at:
            misbehave()
            continue
        send(rng.choice(msg["legal"]))
    elif t == "bye":
        break
