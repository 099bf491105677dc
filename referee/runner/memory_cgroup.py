"""A memory cgroup per bot start, below one cgroup that holds every bot of this referee under a total.

An address-space limit (``Limits.address_space``) caps what one process reserves, not what a bot holds: a bot
that forks holds as much again per process, and idle warm processes of one entrant add up. In a memory cgroup of
its own, everything the bot's processes hold in RAM counts together against ``Limits.ram``; when they pass it the
kernel kills the bot (on cgroup v2 the whole group, ``memory.oom.group``; on v1 its largest process), and the
cgroup counts the kill (``oom_kill`` in ``memory.events`` / ``memory.oom_control``), so that the referee can say
the bot died of its own memory (``MemoryCgroup.oom_kills``): a fault of that bot, never of the referee.

Every bot cgroup lies in one parent per referee process, ``referee-mem-<pid>-0``, capped at ``bots_total()``: the
machine's memory less a reserve for the referee and the system (an eighth, at least 1 GiB). However many bots run,
they never take the memory of the referee, which lies outside the parent: the kernel's out-of-memory killer acts
inside the parent, on the largest bot, never on the referee.

Where the referee can make such cgroups (as root, or where the memory controller is delegated to it), that is on
cgroup v2 (the unified hierarchy) or v1 (the ``memory`` hierarchy), below its own cgroup; elsewhere ``problem``
says why in one line and bots run with their address-space limit only.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
from dataclasses import dataclass
from pathlib import Path

from referee.runner.limits import own_cgroup, remove_cgroup, sweep

__all__ = ["MemoryCgroup", "bots_total", "describe", "make_memory_cgroup", "problem"]

_MOUNTS = Path("/sys/fs/cgroup")
_PREFIX = "referee-mem-"
_counter = itertools.count()


@dataclass(frozen=True, slots=True)
class MemoryCgroup:
    """One bot start's memory cgroup ``path`` (its first process joins ``path/cgroup.procs``), capped at ``cap``
    bytes; ``v2``: on the unified hierarchy (where the cgroup also caps the bot's processes, ``pids.max``)."""

    path: Path
    cap: int
    v2: bool

    def oom_kills(self) -> int:
        """How many of the cgroup's processes the kernel killed for passing its memory cap (0 when unknown)."""
        name = "memory.events" if self.v2 else "memory.oom_control"
        try:
            text = (self.path / name).read_text()
        except OSError:
            return 0
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip().isdigit():
                return int(value)
        return 0

    def remove(self) -> bool:
        """Remove the cgroup; False while a process is still in it."""
        return remove_cgroup(self.path)


@dataclass(frozen=True, slots=True)
class _Parent:
    path: Path
    v2: bool


_probed: _Parent | str | None = None


def bots_total(ceiling: int | None = None) -> int:
    """The memory all bots of this referee may hold together: the machine's (or ``ceiling``, the cap of the
    referee's own cgroup, when lower: a container's), less an eighth (at least 1 GiB)."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (ValueError, OSError):  # pragma: no cover - every Linux has both
        memory = 8 * 1024**3
    if ceiling is not None:
        memory = min(memory, ceiling)
    return max(256 * 1024**2, memory - max(1024**3, memory // 8))


def _ceiling(folder: Path, v2: bool) -> int | None:
    """The memory cap of the cgroup ``folder`` (the referee's own), or None for none or unreadable."""
    try:
        text = (folder / ("memory.max" if v2 else "memory.limit_in_bytes")).read_text().strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def _candidates() -> list[_Parent | str]:
    found: list[_Parent | str] = []
    for mount in (_MOUNTS, _MOUNTS / "unified"):
        if (mount / "cgroup.controllers").exists():
            own = own_cgroup("")
            try:
                controllers = (mount / (own or "/").lstrip("/") / "cgroup.controllers").read_text(errors="replace")
            except OSError:
                controllers = ""  # the referee's cgroup is not in sight (a container's namespace)
            if own is None or "memory" not in controllers.split():
                found.append(f"the memory controller is not delegated to the referee's cgroup v2 ({mount})")
            else:
                found.append(_Parent(mount / own.lstrip("/"), True))
            break
    memory = _MOUNTS / "memory"
    if (memory / "memory.limit_in_bytes").exists():
        own = own_cgroup("memory")
        found.append(_Parent(memory / own.lstrip("/"), False) if own is not None else "the memory cgroup is unknown")
    return found or ["no memory cgroup hierarchy (v1 or v2) is mounted"]


def _write(path: Path, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


def _limit(folder: Path, cap: int, v2: bool, *, group: bool = False) -> None:
    """Cap ``folder`` at ``cap`` bytes of memory, no swap; ``group``: an out-of-memory kill takes every process of
    it (v2). Raises ``OSError`` when the cap cannot be set."""
    if v2:
        if group:
            with contextlib.suppress(OSError):
                _write(folder / "memory.oom.group", "1")
        _write(folder / "memory.max", str(cap))
        with contextlib.suppress(OSError):
            _write(folder / "memory.swap.max", "0")
    else:
        _write(folder / "memory.limit_in_bytes", str(cap))
        with contextlib.suppress(OSError):
            _write(folder / "memory.memsw.limit_in_bytes", str(cap))


def _make_parent(candidate: _Parent) -> _Parent | str:
    """The parent of this referee's bot cgroups below ``candidate``, capped at ``bots_total()``; else why not."""
    for stale in candidate.path.glob(f"{_PREFIX}*-*"):
        sweep(stale, "referee-")  # its bots' cgroups first: a cgroup with children cannot be removed
    sweep(candidate.path, _PREFIX)
    path = candidate.path / f"{_PREFIX}{os.getpid()}-0"
    try:
        if candidate.v2:
            enabled = (candidate.path / "cgroup.subtree_control").read_text().split()
            if "memory" not in enabled:
                _write(candidate.path / "cgroup.subtree_control", "+memory")
        path.mkdir(exist_ok=True)
        _limit(path, bots_total(_ceiling(candidate.path, candidate.v2)), candidate.v2)
        if candidate.v2:
            controllers = (path / "cgroup.controllers").read_text().split()
            wanted = " ".join(f"+{c}" for c in ("memory", "pids") if c in controllers)
            _write(path / "cgroup.subtree_control", wanted)
    except OSError as exc:
        with contextlib.suppress(OSError):
            path.rmdir()
        return f"cannot make a memory cgroup in {candidate.path} ({exc.strerror or exc})"
    atexit.register(_remove_parent, path)
    return _Parent(path, candidate.v2)


def _remove_parent(path: Path) -> None:
    sweep(path, "referee-")
    with contextlib.suppress(OSError):
        path.rmdir()


def _parent() -> _Parent | str:
    """This referee's parent of bot memory cgroups (made once), or why there is none."""
    global _probed
    if _probed is None:
        reasons = []
        for candidate in _candidates():
            made = candidate if isinstance(candidate, str) else _make_parent(candidate)
            if isinstance(made, _Parent):
                _probed = made
                break
            reasons.append(made)
        else:
            _probed = "; ".join(reasons)
    return _probed


def problem() -> str | None:
    """Why no memory cgroup per bot can be made here (one line), or None when it can."""
    parent = _parent()
    return parent if isinstance(parent, str) else None


def make_memory_cgroup(cap: int, processes: int | None = None) -> MemoryCgroup | None:
    """A fresh memory cgroup for one bot start, capped at ``cap`` bytes (and, on cgroup v2, at ``processes``
    processes and threads); None where none can be made (``problem``)."""
    parent = _parent()
    if isinstance(parent, str):
        return None
    path = parent.path / f"referee-{os.getpid()}-{next(_counter)}"
    try:
        path.mkdir()
        _limit(path, cap, parent.v2, group=True)
        if parent.v2 and processes is not None and (path / "pids.max").exists():
            _write(path / "pids.max", str(processes))
    except OSError:
        with contextlib.suppress(OSError):
            path.rmdir()
        return None
    return MemoryCgroup(path, cap, parent.v2)


def describe(ram: int | None) -> str:
    """One line on how bots' memory is capped here, for ``ram`` bytes a bot start (``Limits.ram``)."""
    if ram is None:
        return "bots' memory: no cap of a bot's processes together (ram = none); each process has its address space"
    why = problem()
    if why is not None:
        return (
            f"bots' memory: no memory cgroup can be made here ({why}); each bot process is capped by its address "
            "space only, and the kernel's out-of-memory killer may take any process, the referee's too"
        )
    parent = _parent()
    assert not isinstance(parent, str)
    gib = (_ceiling(parent.path, parent.v2) or bots_total()) / 1024**3
    return (
        f"bots' memory: a memory cgroup per bot start, {ram / 1024**3:.2f} GiB each, {gib:.1f} GiB for all bots "
        "together"
    )
