"""Answers one message with exact bytes: ``ODD_REPLY`` (base64, the newline included) answers its hello, its first
deal or its first turn (``ODD_AT``: ``hello``, ``deal`` or ``turn``); honest otherwise. ``@CARDS@`` in the line
stands for the cards of the honest discard (a JSON list)."""

import base64
import json
import os

import _base

AT = os.environ["ODD_AT"]
LINE = base64.b64decode(os.environ["ODD_REPLY"])
sent = False


def hook(msg):
    global sent
    if msg["type"] == AT and not sent:
        sent = True
        line = LINE
        if msg["type"] == "deal":
            line = line.replace(b"@CARDS@", json.dumps(_base.honest(msg, "")["cards"]).encode())
        _base.send_raw(line)
        return _base.DONE
    return None


_base.run(hook, name="odd_reply")
