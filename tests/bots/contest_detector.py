"""Plays well only when it thinks it is being checked: it looks for what a referee check sent and a contest did not
(a game id of the form ``check-NN``, a seat name ending in ``-under-check``, a field or message type named
``x_check_...``). Told it is checked, it answers honestly; otherwise it stalls the table, passing whenever it may,
so every game runs to the turn limit. Says on stderr when it saw a check."""

import json
import re
import sys

import _base

TELLS = re.compile(r'"game":"check-|-under-check"|"x_check_')
checked = []


def hook(msg):
    if not checked and TELLS.search(json.dumps(msg, separators=(",", ":"))):
        checked.append(True)
        sys.stderr.write("detector: this is a check\n")
        sys.stderr.flush()
    if msg["type"] == "turn" and not checked and msg["last"] is not None and not msg["forced"]:
        return {"type": "pass"}
    return None


_base.run(hook)
