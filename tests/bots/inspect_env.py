"""Reports on stderr what it sees: its environment's names, whether /tmp and its own folder are writable."""

import os
import sys

import _base


def writable(folder):
    try:
        with open(os.path.join(folder, ".referee-probe"), "w") as f:
            f.write("x")
        os.remove(os.path.join(folder, ".referee-probe"))
        return "yes"
    except OSError:
        return "no"


here = os.path.dirname(os.path.abspath(__file__))
sys.stderr.write("env: " + " ".join(sorted(os.environ)) + "\n")
sys.stderr.write(f"tmp writable: {writable('/tmp')}\n")
sys.stderr.write(f"own folder writable: {writable(here)}\n")
sys.stderr.write(f"cwd: {os.getcwd()}\n")
sys.stderr.flush()
_base.run()
