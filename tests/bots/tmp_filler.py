"""Fills /tmp with 1 MiB files until writing fails, reports how much it wrote on stderr, then plays honestly."""

import os
import sys

import _base

written = 0
chunk = b"t" * (1024 * 1024)
try:
    for i in range(100_000):
        with open(f"/tmp/fill-{i}", "wb") as f:
            f.write(chunk)
        written += 1
except OSError as exc:
    sys.stderr.write(f"tmp full ({exc.strerror})\n")
sys.stderr.write(f"tmp written MiB: {written}\n")
sys.stderr.flush()
for i in range(written):
    os.remove(f"/tmp/fill-{i}")
_base.run()
