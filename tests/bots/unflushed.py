"""Writes its replies with print() and never flushes: on a pipe, stdout is block-buffered, so the hello reply stays
in the bot's buffer while it waits for the next message (the commonest beginner mistake in C, Java and Perl)."""

import json
import sys

for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "hello", "protocol": 1, "name": "unflushed"}))
    elif msg["type"] == "bye":
        break
