"""A protocol v1 test bot: random legal moves, drawn from a generator seeded by game id and seat only.

Its games are the same whichever machine or process plays them, and however often it was restarted.
Environment: PAUSE (seconds, default 0) to wait before each reply; NO_HELLO_IF (a path) makes it exit before its
hello whenever that path exists; NOTE makes it write "NOTE <game id>" to stderr at the start of each game; STARTED
makes it write "started <pid>" to stderr when it says hello (once per process). MARKS (a folder) makes it record
each game it starts there (a file named by the game's id), while that folder exists; with HOLD_FROM=N, a game that
finds N games or more recorded there is held: the bot answers nothing more until ``bye`` (or the end of its input),
so the game stays in progress until the referee abandons it (its move time, or a stop).
"""

import json
import os
import random
import sys
import time

pause = float(os.environ.get("PAUSE", "0"))
gate = os.environ.get("NO_HELLO_IF")
note = os.environ.get("NOTE")
started = os.environ.get("STARTED")
marks = os.environ.get("MARKS")
hold_from = int(os.environ.get("HOLD_FROM", "0"))
rng = random.Random()
holding = False


def reply(message):
    if pause:
        time.sleep(pause)
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


for line in sys.stdin:
    message = json.loads(line)
    kind = message["type"]
    if holding and kind != "bye":
        continue
    if kind == "hello":
        if gate and os.path.exists(gate):
            sys.exit(2)
        if started:
            sys.stderr.write(f"started {os.getpid()}\n")
            sys.stderr.flush()
        reply({"type": "hello", "protocol": 1, "name": "steady", "options": {"legal_moves": True}})
    elif kind == "game_start":
        if note:
            sys.stderr.write(f"{note} {message['game']}\n")
            sys.stderr.flush()
        rng.seed(f"{message['game']}:{message['seat']}")
        if marks and os.path.isdir(marks):
            open(os.path.join(marks, message["game"]), "a").close()
            holding = hold_from > 0 and len(os.listdir(marks)) >= hold_from
    elif kind == "deal":
        cards = [c for c in message["hand"] if c != 1]
        reply({"type": "discard", "cards": rng.sample(cards, message["discard"])})
    elif kind == "turn":
        reply(rng.choice(message["legal"]))
    elif kind == "bye":
        break
