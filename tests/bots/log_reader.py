"""Plays honestly, and at every turn looks for game logs under its own folder (the results of a contest kept
there by mistake): it writes on stderr how many log lines naming dealt hands it could read."""

import os
import sys

import _base


def hook(msg):
    if msg["type"] == "turn":
        seen = 0
        for root, _dirs, files in os.walk("."):
            for name in files:
                if name.endswith(".jsonl"):
                    try:
                        with open(os.path.join(root, name)) as f:
                            seen += sum('"deal"' in line for line in f)
                    except OSError:
                        pass
        sys.stderr.write(f"log_reader: {seen} deal lines\n")
        sys.stderr.flush()
    return None


_base.run(hook)
