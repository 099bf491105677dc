"""An honest bot (stdlib only, one file) that says on stderr what it thinks about, as authors' bots do: "thinking about
turn N" before each move (N counts its turns in the game, from 1), "choosing a discard" before each discard."""

import json
import sys

state = {"turn": 0}


def on_game_start(msg):
    state["turn"] = 0


def on_hello(msg):
    return {"type": "hello", "protocol": 1, "name": "thinker"}


def on_deal(msg):
    print("choosing a discard", file=sys.stderr, flush=True)
    keep = sorted(c for c in msg["hand"] if c != 1)
    return {"type": "discard", "cards": keep[len(keep) - msg["discard"] :]}


def on_turn(msg):
    state["turn"] += 1
    print(f"thinking about turn {state['turn']}", file=sys.stderr, flush=True)
    if msg["last"] is None:
        return {"type": "play", "value": 1, "count": 1, "bonus": 0}
    playable = sorted(c for c in msg["hand"] if c >= msg["last"])
    return {"type": "play", "value": playable[0], "count": 1, "bonus": 0} if playable else {"type": "drop"}


HANDLERS = {"hello": on_hello, "game_start": on_game_start, "deal": on_deal, "turn": on_turn}

for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "bye":
        break
    answer = HANDLERS.get(msg["type"], lambda m: None)(msg)
    if answer is not None:
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()
