"""Tries to read SNOOP_PATH (a file in another bot's folder); exits 9 if it can."""

import os
import sys

import _base

try:
    with open(os.environ["SNOOP_PATH"]) as f:
        f.read()
    sys.stderr.write("snoop: read it\n")
    sys.exit(9)
except OSError as exc:
    sys.stderr.write(f"snoop: blocked ({exc})\n")

_base.run()
