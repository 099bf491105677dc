"""Answers hello without the newline that ends a line (and flushes), then waits."""

import json
import sys

for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        sys.stdout.write(json.dumps({"type": "hello", "protocol": 1, "name": "no_newline"}))
        sys.stdout.flush()
    elif msg["type"] == "bye":
        break
