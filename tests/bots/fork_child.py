"""Starts a child in a new session that keeps running, then plays honestly and crashes at its second move."""

import os
import sys
import time

import _base

if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        while True:
            time.sleep(1)
    os._exit(0)


def hook(msg):
    if msg["type"] == "turn" and _base.turns == 1:
        sys.exit(1)


_base.run(hook)
