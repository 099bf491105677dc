"""A one-file attack bot (the SDK only): when dealt, tries to read everything of the contest around it.

It looks at each path of SPY_PATHS (separated by ':'; default: the contest laid out by the tests: its sibling
bot ``victim.py``, the folder bot ``folderbot/secret.txt``, the manifest ``../bots.toml``, ``../results`` with its
database and game logs, and an earlier run's ``../old-results``). It says on stderr ``spy: read PATH`` for each
file it could read something of or folder it could list something in (the way down to its own file aside), and
``spy: blocked PATH`` otherwise; then plays, dropping out whenever it may."""

import os
import sys

from protocol.sdk import run
from referee.engine import Drop

HERE = os.path.dirname(os.path.abspath(__file__))
CONTEST = os.path.dirname(HERE)
DEFAULT = [
    os.path.join(HERE, "victim.py"),
    os.path.join(HERE, "folderbot", "secret.txt"),
    os.path.join(HERE, "folderbot"),
    os.path.join(CONTEST, "bots.toml"),
    os.path.join(CONTEST, "results", "results.sqlite"),
    os.path.join(CONTEST, "results", "games"),
    os.path.join(CONTEST, "results"),
    os.path.join(CONTEST, "old-results", "games", "g000001.jsonl"),
    os.path.join(CONTEST, "old-results"),
    CONTEST,
]
PATHS = [p for p in os.environ.get("SPY_PATHS", "").split(":") if p] or DEFAULT
looked = []


def look(path):
    try:
        if os.path.isdir(path):
            # Anything but the way down to its own file counts.
            return any(not (HERE + "/").startswith(os.path.join(path, e) + "/") for e in os.listdir(path))
        with open(path, "rb") as f:
            return bool(f.read(1))
    except OSError:
        return False


def discard(hand, n, game):
    if not looked:
        looked.append(True)
        for path in PATHS:
            sys.stderr.write(f"spy: {'read' if look(path) else 'blocked'} {path}\n")
        sys.stderr.flush()
    pool = [c for c in hand if c != 1]
    return pool[len(pool) - n :] if n else []


def move(obs, game):
    moves = game.legal_moves(obs)
    return next((m for m in moves if isinstance(m, Drop)), moves[0])


run(move=move, discard=discard, name="spy")
