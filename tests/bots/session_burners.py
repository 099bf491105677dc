"""Starves the other bots of CPU: BURNERS (default 24) children that each call setsid (a scheduler group of their
own, where the kernel groups tasks by session) and burn CPU, stopped while this bot answers (so its own replies
cost it nothing under --clock cpu) and running while the others think. Answers honestly; the burners end with it."""

import contextlib
import os
import signal
import sys

import _base

LOOP = "import os\nos.setsid()\nwhile True:\n    pass\n"
burners = []
for _ in range(int(os.environ.get("BURNERS", "24"))):
    pid = os.fork()
    if pid == 0:
        os.execv(sys.executable, [sys.executable, "-c", LOOP])
    burners.append(pid)


def pause(sig):
    for pid in burners:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)


def hook(msg):
    if msg["type"] in ("turn", "deal"):
        pause(signal.SIGSTOP)  # resumed once the reply is out (below)
    return None


def answered():
    pause(signal.SIGCONT)


original = _base.send


def send(obj):
    original(obj)
    answered()


_base.send = send
try:
    _base.run(hook)
finally:
    pause(signal.SIGKILL)
