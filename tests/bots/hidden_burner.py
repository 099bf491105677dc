"""Spends BURN_SECONDS (default 1.0) of CPU on each turn where a walk of /proc from its first process does not look:
HIDE=thread, in a child started from a second, live thread (a child of that thread: not among the main thread's
children); HIDE=wide, in a child started after 70 idle ones (past the 64 processes the walk follows). It waits for
the child, then answers honestly. Charged only what its first process uses, it would reply in no time."""

import os
import queue
import subprocess
import sys
import threading

import _base

SECONDS = float(os.environ.get("BURN_SECONDS", "1.0"))
HIDE = os.environ.get("HIDE", "thread")
LOOP = "import time\nt = time.process_time()\nwhile time.process_time() - t < {s}:\n    pass\n"
asked: queue.Queue = queue.Queue()
done: queue.Queue = queue.Queue()


def worker():
    while True:
        asked.get()
        subprocess.run([sys.executable, "-c", LOOP.format(s=SECONDS)], check=True)
        done.put(True)


idle = []
if HIDE == "thread":
    threading.Thread(target=worker, daemon=True).start()
else:
    idle = [subprocess.Popen(["sleep", "100000"]) for _ in range(70)]


def hook(msg):
    if msg["type"] == "turn":
        if HIDE == "thread":
            asked.put(True)
            done.get()
        else:
            subprocess.run([sys.executable, "-c", LOOP.format(s=SECONDS)], check=True)
    return None


_base.run(hook)
