"""Tries to connect to NET_PORT on 127.0.0.1 (a port the test listens on); exits 9 if it gets through."""

import os
import socket
import sys

import _base

try:
    with socket.create_connection(("127.0.0.1", int(os.environ["NET_PORT"])), timeout=2) as s:
        s.sendall(b"escaped\n")
    sys.stderr.write("network: connected\n")
    sys.exit(9)
except OSError as exc:
    sys.stderr.write(f"network: blocked ({exc})\n")

_base.run()
