"""Answers honestly, but first spends BURN_SECONDS (default 0.3) of CPU time on each turn: a busy loop in this
process, or in a child process it waits for (BURN_IN=child), whose CPU time counts as the bot's too."""

import os
import subprocess
import sys
import time

import _base

SECONDS = float(os.environ.get("BURN_SECONDS", "0.3"))
LOOP = "import time\nt = time.process_time()\nwhile time.process_time() - t < {s}:\n    pass\n"


def hook(msg):
    if msg["type"] == "turn":
        if os.environ.get("BURN_IN") == "child":
            subprocess.run([sys.executable, "-c", LOOP.format(s=SECONDS)], check=True)
        else:
            start = time.process_time()
            while time.process_time() - start < SECONDS:
                pass
    return None


_base.run(hook)
