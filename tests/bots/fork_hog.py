"""At its first turn starts three children that each hold 32 MiB, then allocates without end itself: every process
stays far below an address-space limit, but together they pass any memory cap (``--limit ram``)."""

import os
import time

import _base

MiB = 1024 * 1024
hoard = []


def hook(msg):
    if msg["type"] == "turn":
        for _ in range(3):
            if os.fork() == 0:
                held = bytearray(32 * MiB)  # zero-filled: every page is touched
                while held:
                    time.sleep(1)
        while True:
            hoard.append(bytearray(8 * MiB))
            time.sleep(0.01)


_base.run(hook)
