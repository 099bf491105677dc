"""``referee.runner.cputime`` without a cgroup: the CPU time of a bot's whole process tree, children included."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

from referee.runner.cputime import cpu_seconds

BURN = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.4:\n    pass\n"


def test_a_process_tree_is_counted_running_and_reaped_children_too() -> None:
    # The first process starts a child that burns 0.4 s and exits (reaped), then one that burns and sleeps on.
    script = (
        "import subprocess, sys, time\n"
        f"subprocess.run([sys.executable, '-c', {BURN!r}])\n"
        f"child = subprocess.Popen([sys.executable, '-c', {BURN!r} + 'time.sleep(60)\\n'])\n"
        "time.sleep(60)\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script])
    try:
        used = 0.0
        deadline = time.monotonic() + 60
        while used < 0.75 and time.monotonic() < deadline:
            time.sleep(0.2)
            used = cpu_seconds(proc.pid, None)
        assert 0.75 <= used < 3.0, used
    finally:
        with open(f"/proc/{proc.pid}/task/{proc.pid}/children") as f:
            children = [int(c) for c in f.read().split()]
        for child in children:
            os.kill(child, signal.SIGKILL)
        proc.kill()
        proc.wait()
    assert cpu_seconds(proc.pid, None) == 0.0, "a process that is gone has used nothing more"
