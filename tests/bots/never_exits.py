"""Plays honestly but ignores SIGTERM, SIGINT and SIGHUP and never exits: not on ``bye``, not when stdin closes."""

import signal
import time

import _base

for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
    signal.signal(sig, signal.SIG_IGN)
_base.run(None)
while True:
    time.sleep(1)
