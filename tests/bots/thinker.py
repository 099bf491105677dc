"""An honest bot (stdlib only, one file) that says on stderr what it thinks about, as authors' bots do: "thinking about
turn N" before each move (N counts its turns in the game, from 1), "choosing a discard" before each discard."""

import json
import sys


def reply(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


turn = 0
for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "hello":
        reply({"type": "hello", "protocol": 1, "name": "thinker"})
    elif kind == "game_start":
        turn = 0
    elif kind == "deal":
        print("choosing a discard", file=sys.stderr, flush=True)
        cards = [c for c in msg["hand"] if c != 1]
        reply({"type": "discard", "cards": cards[len(cards) - msg["discard"] :]})
    elif kind == "turn":
        turn += 1
        print(f"thinking about turn {turn}", file=sys.stderr, flush=True)
        last = msg["last"]
        higher = [c for c in msg["hand"] if last is not None and c >= last]
        if last is None:
            reply({"type": "play", "value": 1, "count": 1, "bonus": 0})
        elif higher:
            reply({"type": "play", "value": min(higher), "count": 1, "bonus": 0})
        else:
            reply({"type": "drop"})
    elif kind == "bye":
        break
