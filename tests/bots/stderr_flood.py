"""Plays honestly while a thread writes to stderr without end."""

import os
import threading


def flood():
    chunk = b"E" * 65536
    while True:
        os.write(2, chunk)


threading.Thread(target=flood, daemon=True).start()

import _base  # noqa: E402

_base.run()
