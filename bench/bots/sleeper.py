"""Plays honestly until the wall clock passes ``--after`` (seconds since the epoch), then turns hostile:
``--mode hog`` touches memory without end at its hello and at each turn (512 MiB at a time, every page written);
``--mode flood`` pads each reply with 60,000 bytes of random (incompressible) text in an unknown field (within the
protocol's line limit, so that only the game's output cap, ``[limits] game_output``, bounds it). A bot that passes
its gate (played before the hour) and misbehaves in ranked play. Needs ``_base.py`` (from tests/bots) beside it.
Used by bench/bench_hostile_field.py."""

import argparse
import base64
import json
import os
import time

import _base

parser = argparse.ArgumentParser()
parser.add_argument("--after", type=float, required=True)
parser.add_argument("--mode", choices=("hog", "flood"), required=True)
args, _ = parser.parse_known_args()
hoard = []


def hook(msg):
    if time.time() < args.after:
        return None
    if args.mode == "hog":
        while msg["type"] in ("hello", "turn"):
            hoard.append(b"\x01" * (512 << 20))
        return None
    if msg["type"] in ("hello", "game_start", "game_end"):
        return None
    reply = _base.honest(msg, "sleeper")
    if reply is None:
        return None
    _base.send_raw(json.dumps({**reply, "padding": base64.b64encode(os.urandom(45_000)).decode()}).encode() + b"\n")
    return _base.DONE


_base.run(hook)
