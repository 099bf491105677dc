"""Plays honestly, but also writes a pass after the message STRAY_AFTER (default round_end, which needs no reply;
after a deal or turn the pass is a second line after the honest reply), STRAY_DELAY seconds later (default 0): the
mistake of a bot that answers every line it reads."""

import os
import time

import _base

AFTER = os.environ.get("STRAY_AFTER", "round_end")
DELAY = float(os.environ.get("STRAY_DELAY", "0"))


def hook(msg):
    if msg["type"] == AFTER:
        reply = _base.honest(msg, "stray")
        if reply is not None:
            _base.send(reply)
        time.sleep(DELAY)
        _base.send({"type": "pass"})
        return _base.DONE
    return None


_base.run(hook)
