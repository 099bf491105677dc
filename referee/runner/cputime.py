"""The CPU time of a bot's process tree from ``/proc``: the fallback of ``BotProcess.cpu_seconds``.

Under ``--clock cpu`` every bot start has a cgroup of its own (``referee.runner.cpu_cgroup``), which counts every
process the bot ever starts; the referee refuses the clock where it cannot make one. This walk is only what is left
when that cgroup cannot be read (gone), and for the pids cgroup's figures: ``cpu.stat`` (``usage_usec``) of the
bot's pids cgroup on a unified hierarchy; on a v1 hierarchy, the processes the cgroup lists. Without a cgroup, the
bot's process tree from its first process (``/proc/<pid>/task/<pid>/children``: the main thread's children only, at
most ``_MAX_TREE`` processes, so a bot can hide work from it). For listed processes the figure is
``utime + stime + cutime + cstime`` of ``/proc/<pid>/stat``: the kernel counts it in clock ticks (usually 10 ms),
and a process that exited counts once its parent in the tree has reaped it.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["cpu_seconds"]

_TICK = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
#: Deepest process tree followed (bwrap, its init, the bot, its children...).
_MAX_TREE = 64


def cpu_seconds(pid: int, cgroup: Path | None) -> float:
    """CPU seconds (user + system) the bot with first process ``pid`` has used so far; 0.0 once it is gone."""
    if cgroup is not None:
        usage = _cgroup_usage(cgroup)
        if usage is not None:
            return usage
        try:
            pids = [int(x) for x in (cgroup / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            pids = _tree(pid)
    else:
        pids = _tree(pid)
    return sum(_ticks(p) for p in pids) / _TICK


#: cgroups found to have no ``cpu.stat`` (a v1 pids cgroup): not looked for again.
_NO_STAT: set[Path] = set()


def _cgroup_usage(cgroup: Path) -> float | None:
    if cgroup in _NO_STAT:
        return None
    try:
        with open(cgroup / "cpu.stat", "rb") as f:
            for line in f.read().splitlines():
                if line.startswith(b"usage_usec "):
                    return int(line.split()[1]) / 1e6
    except (OSError, ValueError):
        pass
    _NO_STAT.add(cgroup)
    return None


def _tree(pid: int) -> list[int]:
    """``pid`` and its descendants (children of each process's main thread), breadth first."""
    out = [pid]
    i = 0
    while i < len(out) and len(out) < _MAX_TREE:
        p = out[i]
        i += 1
        try:
            with open(f"/proc/{p}/task/{p}/children", "rb") as f:
                out.extend(int(c) for c in f.read().split())
        except (OSError, ValueError):
            continue
    return out[:_MAX_TREE]


def _ticks(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return 0
    # Fields after the command name (which may hold spaces and parentheses): state is field 3, utime field 14.
    fields = data[data.rfind(b")") + 2 :].split()
    try:
        return int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])
    except (IndexError, ValueError):
        return 0
