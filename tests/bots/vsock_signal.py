"""Tries to signal another bot through a socket family that no network namespace keeps apart: vsock, whose ports
are one space for the whole machine. VSOCK_ROLE=hold binds port VSOCK_PORT (default 47123) before it says hello
and keeps it; VSOCK_ROLE=probe tries to bind the same port when it is dealt. Each says on stderr what it got:
``hold: bound`` or ``hold: refused (...)``, ``probe: port taken``, ``probe: port free`` or ``probe: refused (...)``.
It plays honestly (the test bots' loop)."""

import os
import socket
import sys

import _base

ROLE = os.environ.get("VSOCK_ROLE", "probe")
PORT = int(os.environ.get("VSOCK_PORT", "47123"))
ANY_CID = 0xFFFFFFFF
kept = []


def say(text):
    sys.stderr.write(f"{ROLE}: {text}\n")
    sys.stderr.flush()


def bind():
    """The bound socket, or None when the port is taken; raises OSError when no vsock socket can be had."""
    sock = socket.socket(40, socket.SOCK_STREAM)  # AF_VSOCK
    try:
        sock.bind((ANY_CID, PORT))
    except OSError as exc:
        sock.close()
        if exc.errno == 98:  # EADDRINUSE
            return None
        raise
    return sock


def attempt():
    try:
        return bind(), None
    except OSError as exc:
        return None, f"refused ({exc.strerror})"


probed = []


def hook(msg):
    if msg["type"] == "deal" and ROLE == "probe" and not probed:
        probed.append(True)
        sock, refused = attempt()
        say(refused or ("port free" if sock else "port taken"))
        if sock:
            sock.close()
    return None


if ROLE == "hold":
    sock, refused = attempt()
    kept.append(sock)
    say(refused or ("bound" if sock else "port taken"))
_base.run(hook, name=f"vsock-{ROLE}")
