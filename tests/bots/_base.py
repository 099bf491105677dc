"""Shared loop of the misbehaving test bots: honest replies, unless the bot's own hook answers a message.

A hook gets each message and returns a reply object to send, ``DONE`` when it wrote (or did) something itself,
or None for the honest reply. ``turns`` counts the turns this process was asked to play.
"""

import json
import os
import sys

DONE = object()
turns = 0


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def send_raw(data):
    sys.stdout.buffer.write(data)
    sys.stdout.flush()


def honest(msg, name):
    kind = msg["type"]
    if kind == "hello":
        return {"type": "hello", "protocol": 1, "name": name}
    if kind == "deal":
        cards = [c for c in msg["hand"] if c != 1]
        return {"type": "discard", "cards": cards[len(cards) - msg["discard"] :]}
    if kind == "turn":
        last = msg["last"]
        if last is None:
            return {"type": "play", "value": 1, "count": 1, "bonus": 0}
        higher = [c for c in msg["hand"] if c >= last]
        if higher:
            return {"type": "play", "value": min(higher), "count": 1, "bonus": 0}
        return {"type": "drop"}
    return None


def run(hook=None, name=None):
    global turns
    name = name or os.path.splitext(os.path.basename(sys.argv[0]))[0]
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "bye":
            break
        reply = hook(msg) if hook is not None else None
        if msg["type"] == "turn":
            turns += 1
        if reply is DONE:
            continue
        if reply is None:
            reply = honest(msg, name)
        if reply is not None:
            send(reply)
