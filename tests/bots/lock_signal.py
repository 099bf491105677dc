"""Tries to signal another bot through locks on a file every bot can read (LOCK_FILE, default /etc/passwd).

LOCK_ROLE=hold takes a whole-file lock of each kind (flock, a POSIX record lock, an open-file-description lock)
before it says hello, and keeps them; LOCK_ROLE=probe looks for them when it is dealt (after every hello).
Each says on stderr what it got: ``hold: flock took`` or ``hold: flock refused (...)``, ``probe: flock saw a
lock``, ``probe: flock saw nothing`` or ``probe: flock refused (...)``. It drops out whenever it may (short games)."""

import fcntl
import os
import struct
import sys

from protocol.sdk import run
from referee.engine import Drop

PATH = os.environ.get("LOCK_FILE", "/etc/passwd")
ROLE = os.environ.get("LOCK_ROLE", "probe")
F_OFD_GETLK, F_OFD_SETLK = 36, 37
kept = []


def record(kind):
    """A ``struct flock`` over the whole file (l_type, l_whence, l_start, l_len, l_pid)."""
    return struct.pack("hhqqi4x", kind, os.SEEK_SET, 0, 0, 0)


def say(text):
    sys.stderr.write(f"{ROLE}: {text}\n")
    sys.stderr.flush()


def attempt(what, call):
    try:
        return call()
    except OSError as exc:
        say(f"{what} refused ({exc.strerror})")
        return None


def hold():
    fd = os.open(PATH, os.O_RDONLY)
    kept.append(fd)
    for what, call in (
        ("flock", lambda: fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB) or True),
        ("posix", lambda: fcntl.fcntl(fd, fcntl.F_SETLK, record(fcntl.F_RDLCK))),
        ("ofd", lambda: fcntl.fcntl(os.open(PATH, os.O_RDONLY), F_OFD_SETLK, record(fcntl.F_RDLCK))),
    ):
        if attempt(what, call) is not None:
            say(f"{what} took")


def probe():
    fd = os.open(PATH, os.O_RDONLY)

    def flock():
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return True
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False

    def test(command):
        return lambda: struct.unpack("hhqqi4x", fcntl.fcntl(fd, command, record(fcntl.F_WRLCK)))[0] != fcntl.F_UNLCK

    for what, call in (("flock", flock), ("posix", test(fcntl.F_GETLK)), ("ofd", test(F_OFD_GETLK))):
        seen = attempt(what, call)
        if seen is not None:
            say(f"{what} saw {'a lock' if seen else 'nothing'}")
    os.close(fd)


probed = []


def discard(hand, n, game):
    if ROLE == "probe" and not probed:
        probed.append(True)
        probe()
    pool = [c for c in hand if c != 1]
    return pool[len(pool) - n :] if n else []


def move(obs, game):
    moves = game.legal_moves(obs)
    return next((m for m in moves if isinstance(m, Drop)), moves[0])


if ROLE == "hold":
    hold()
run(move=move, discard=discard, name=f"lock-{ROLE}")
