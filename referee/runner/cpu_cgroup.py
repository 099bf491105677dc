"""``--clock cpu``: a cgroup per bot start, which counts the CPU time of every process the bot ever starts and gives
the bot one equal share of the machine's CPU.

A bot charged the CPU time its processes used for a reply must not be able to hide some of it, nor to take CPU from
the others. Walking ``/proc`` from the bot's first process misses what it hides (a worker forked from a second
thread is not a child of the main thread; a deep or wide tree is cut off), and the kernel's scheduler gives every
session its own group (autogroup), so a bot that starts many processes, each in a session of its own, takes most of
a core from an honest bot, which then runs out of wall time. In a cgroup of its own, every process the bot starts
is counted (``cpu.stat``'s ``usage_usec`` on cgroup v2, ``cpuacct.usage`` on v1), and the CPU controller weighs the
cgroup as one (``cpu.weight`` / ``cpu.shares`` at their defaults: every bot alike), however many processes and
sessions it holds.

Where the referee can make such cgroups:

- cgroup v2 (the unified hierarchy): below the referee's own cgroup, when its ``cgroup.subtree_control`` has (or
  takes) the ``cpu`` controller: as root, or where the cgroup is delegated to the referee's user
  (``systemd-run --user -p Delegate=yes``, a container given its own cgroup);
- cgroup v1: in the ``cpu`` and ``cpuacct`` hierarchies below the referee's own cgroups, when it may write there
  (root).

Elsewhere ``cpu_cgroup_problem`` says why, and ``--clock cpu`` is refused before any game (``check_clock``).
"""

from __future__ import annotations

import contextlib
import errno
import itertools
import os
import signal
from dataclasses import dataclass
from pathlib import Path

from referee.runner.config import RunnerConfig
from referee.runner.errors import BotSpecError
from referee.runner.limits import own_cgroup as _own
from referee.runner.limits import remove_cgroup, sweep

__all__ = ["CpuCgroup", "check_clock", "cpu_cgroup_problem", "make_cpu_cgroup"]

_MOUNTS = Path("/sys/fs/cgroup")
_counter = itertools.count()


@dataclass(frozen=True, slots=True)
class CpuCgroup:
    """One bot start's cgroup(s): ``joins``, the folders whose ``cgroup.procs`` its first process joins (one on v2;
    on v1 the ``cpu`` and the ``cpuacct`` one, or one where they are mounted together), and ``usage``, the file that
    counts its CPU time (``cpu.stat``: microseconds; ``cpuacct.usage``: nanoseconds)."""

    joins: tuple[Path, ...]
    usage: Path

    def seconds(self, fd: int) -> float:
        """CPU seconds (user and system) of every process that ever ran in the cgroup, read from ``fd`` (an open
        ``usage`` file). Raises ``OSError``/``ValueError`` when it cannot be read (the cgroup is gone)."""
        data = os.pread(fd, 4096, 0)
        if self.usage.name == "cpuacct.usage":
            return int(data) / 1e9
        for line in data.splitlines():
            if line.startswith(b"usage_usec "):
                return int(line.split()[1]) / 1e6
        raise ValueError("no usage_usec in cpu.stat")

    def pids(self) -> list[int]:
        """The processes in the cgroup now."""
        try:
            return [int(x) for x in (self.joins[0] / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return []

    def kill(self) -> None:
        """SIGKILL every process in the cgroup."""
        for pid in self.pids():
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)

    def remove(self) -> bool:
        """Remove the cgroup's folders; False while a process is still in one."""
        return all([remove_cgroup(folder) for folder in self.joins])  # every one tried, in use or not


@dataclass(frozen=True, slots=True)
class _Parents:
    """Where bot cgroups are made: the parent folder in each hierarchy, and the name of the usage file."""

    folders: tuple[Path, ...]
    usage: str


_probed: _Parents | str | None = None


def _v2() -> _Parents | str:
    for mount in (_MOUNTS, _MOUNTS / "unified"):
        if (mount / "cgroup.controllers").exists() and (mount / "cgroup.subtree_control").exists():
            break
    else:
        return "no cgroup v2 hierarchy"
    own = _own("")
    if own is None:
        return "the referee's cgroup v2 is unknown"
    parent = mount / own.lstrip("/")
    try:
        enabled = (parent / "cgroup.subtree_control").read_text().split()
        if "cpu" not in enabled:
            if "cpu" not in (parent / "cgroup.controllers").read_text().split():
                return f"the cpu controller is not delegated to the referee's cgroup {parent}"
            (parent / "cgroup.subtree_control").write_text("+cpu")
    except OSError as exc:
        return f"the cpu controller cannot be enabled below the referee's cgroup {parent} ({exc.strerror or exc})"
    return _Parents((parent,), "cpu.stat")


def _v1() -> _Parents | str:
    together = _MOUNTS / "cpu,cpuacct"
    if (together / "cpuacct.usage").exists() and (together / "cpu.shares").exists():
        own = _own("cpu")
        return "the referee's cpu cgroup is unknown" if own is None else _Parents((together / own.lstrip("/"),), "")
    cpu, cpuacct = _MOUNTS / "cpu", _MOUNTS / "cpuacct"
    if not ((cpu / "cpu.shares").exists() and (cpuacct / "cpuacct.usage").exists()):
        return "no cgroup v1 cpu and cpuacct hierarchies"
    own_cpu, own_acct = _own("cpu"), _own("cpuacct")
    if own_cpu is None or own_acct is None:
        return "the referee's cpu and cpuacct cgroups are unknown"
    return _Parents((cpu / own_cpu.lstrip("/"), cpuacct / own_acct.lstrip("/")), "")


def _parents() -> _Parents | str:
    """The parents of bot cgroups here, checked by making (and removing) one; else why there are none."""
    global _probed
    if _probed is None:
        reasons = []
        for candidate in (_v2(), _v1()):
            if isinstance(candidate, str):
                reasons.append(candidate)
                continue
            made = _make(candidate)
            if isinstance(made, CpuCgroup):
                made.remove()
                for folder in candidate.folders:
                    sweep(folder, "referee-cpu-")
                _probed = candidate
                break
            reasons.append(made)
        else:
            _probed = "; ".join(reasons)
    return _probed


def _make(parents: _Parents) -> CpuCgroup | str:
    name = f"referee-cpu-{os.getpid()}-{next(_counter)}"
    made: list[Path] = []
    try:
        for folder in parents.folders:
            path = folder / name
            path.mkdir()
            made.append(path)
    except OSError as exc:
        for path in made:
            with contextlib.suppress(OSError):
                path.rmdir()
        why = "not allowed" if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS) else (exc.strerror or str(exc))
        return f"cannot make a cgroup in {parents.folders[len(made)]} ({why})"
    usage = parents.usage or "cpuacct.usage"
    holder = made[-1] if usage == "cpuacct.usage" else made[0]
    return CpuCgroup(tuple(made), holder / usage)


def cpu_cgroup_problem() -> str | None:
    """Why the referee cannot make a CPU cgroup per bot here (probed once), or None when it can."""
    parents = _parents()
    return parents if isinstance(parents, str) else None


def make_cpu_cgroup() -> CpuCgroup:
    """A fresh cgroup for one bot start. Raises ``BotSpecError`` where none can be made (``cpu_cgroup_problem``)."""
    parents = _parents()
    if isinstance(parents, str):
        raise BotSpecError(_refusal(parents))
    made = _make(parents)
    if isinstance(made, str):
        raise BotSpecError(_refusal(made))
    return made


def check_clock(config: RunnerConfig) -> None:
    """Before any game: raise ``BotSpecError`` (one line) for ``--clock cpu`` where no CPU cgroup per bot can be
    made."""
    if config.clock == "cpu":
        problem = cpu_cgroup_problem()
        if problem is not None:
            raise BotSpecError(_refusal(problem))


def _refusal(problem: str) -> str:
    return (
        f"--clock cpu needs a cgroup per bot, to count all its processes and give each bot an equal share of the "
        f"CPU, and none can be made here ({problem}): run the referee as root, or in a cgroup v2 with the cpu "
        "controller delegated to it, or use --clock wall"
    )
