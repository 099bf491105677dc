"""Resource limits of a bot process: rlimits set in the child before exec, and a pids cgroup where allowed.

The kernel does not apply RLIMIT_NPROC to root, so when the referee may create a cgroup (it runs as root on a
machine with a writable pids controller) each bot process gets its own pids cgroup: it caps processes and
threads and lists every process the bot started, even ones that left its session, so all can be killed.
"""

from __future__ import annotations

import contextlib
import ctypes
import itertools
import os
import resource
import signal
from collections.abc import Callable, Sequence
from pathlib import Path

from referee.runner.config import Limits

_CGROUP_ROOTS = (Path("/sys/fs/cgroup/pids"), Path("/sys/fs/cgroup"))
_counter = itertools.count()
_usable_root: Path | bool | None = False  # False: not probed yet


def preexec(
    limits: Limits,
    cgroup: Path | None,
    *,
    nproc: bool,
    cpu_cgroups: Sequence[Path] = (),
    also: Sequence[Path] = (),
) -> Callable[[], None]:
    """A function for the child between fork and exec: die with the parent thread, join ``cgroup``, the cgroups
    ``also`` (the memory one, on cgroup v1) and the ``--clock cpu`` cgroups ``cpu_cgroups``, set the rlimits, reset
    signals. Failing to join a CPU cgroup fails the
    start (raises: ``Popen`` raises ``SubprocessError``): a bot outside it would be charged nothing.

    ``nproc``: also set RLIMIT_NPROC. Only inside bubblewrap does the kernel count it per sandbox (its own user
    namespace); outside, it counts every process of the user, so a bare bot could not even start threads.
    """
    pairs: list[tuple[int, int]] = []
    if limits.address_space is not None:
        pairs.append((resource.RLIMIT_AS, limits.address_space))
    if limits.cpu_seconds is not None:
        pairs.append((resource.RLIMIT_CPU, limits.cpu_seconds))
    if limits.processes is not None and nproc:
        pairs.append((resource.RLIMIT_NPROC, limits.processes))
    if limits.open_files is not None:
        pairs.append((resource.RLIMIT_NOFILE, limits.open_files))
    if limits.file_size is not None:
        pairs.append((resource.RLIMIT_FSIZE, limits.file_size))
    pairs.append((resource.RLIMIT_CORE, 0))
    joins = [str(c / "cgroup.procs") for c in ([] if cgroup is None else [cgroup]) + list(also)]
    must = [str(c / "cgroup.procs") for c in cpu_cgroups]
    prctl = _prctl()

    def run() -> None:
        if prctl is not None:
            # Die with the referee (PR_SET_PDEATHSIG = 1): no bot outlives a killed referee.
            prctl(1, signal.SIGKILL, 0, 0, 0)
        for procs in joins:
            with contextlib.suppress(OSError), open(procs, "w") as f:
                f.write("0")
        for procs in must:
            with open(procs, "w") as f:
                f.write("0")
        for which, value in pairs:
            _soft, hard = resource.getrlimit(which)
            if hard != resource.RLIM_INFINITY:
                value = min(value, hard)
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(which, (value, value))
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)

    return run


def die_with_parent() -> bool:
    """Have the kernel SIGKILL this process when the thread that forked it ends (PR_SET_PDEATHSIG), as a bot is;
    False where prctl is not available."""
    prctl = _prctl()
    if prctl is None:
        return False
    return prctl(1, signal.SIGKILL, 0, 0, 0) == 0


def _prctl() -> Callable[..., int] | None:
    """libc's prctl, or None where it is not available."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl
    except (OSError, AttributeError):
        return None


def _cgroup_root() -> Path | None:
    """A pids cgroup hierarchy where this process may create cgroups, or None (probed once)."""
    global _usable_root
    if _usable_root is not False:
        return _usable_root  # type: ignore[return-value]
    _usable_root = None
    for root in _CGROUP_ROOTS:
        probe = root / f"referee-probe-{os.getpid()}"
        try:
            probe.mkdir()
        except OSError:
            continue
        ok = (probe / "pids.max").exists()
        with contextlib.suppress(OSError):
            probe.rmdir()
        if ok:
            _usable_root = root
            sweep(root)
            break
    return _usable_root


def own_cgroup(hierarchy: str) -> str | None:
    """The referee's cgroup path in ``hierarchy`` ("" for v2, else a v1 controller list such as "cpu,cpuacct"),
    from ``/proc/self/cgroup``."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _id, controllers, path = line.split(":", 2)
        if controllers == hierarchy or (hierarchy and hierarchy in controllers.split(",")):
            return path
    return None


def sweep(root: Path, prefix: str = "referee-") -> None:
    """Remove empty bot cgroups (``<prefix><pid>-<n>``) left in ``root`` by referee processes that no longer run
    (killed before cleaning up)."""
    for path in root.glob(f"{prefix}*-*"):
        owner = path.name[len(prefix) :].split("-")[0]
        if owner.isdigit() and not os.path.exists(f"/proc/{owner}"):
            with contextlib.suppress(OSError):
                path.rmdir()  # refused while a process is still in it


def make_cgroup(limits: Limits) -> Path | None:
    """A fresh pids cgroup capped at ``limits.processes``, or None where cgroups are not available."""
    root = _cgroup_root()
    if root is None or limits.processes is None:
        return None
    path = root / f"referee-{os.getpid()}-{next(_counter)}"
    try:
        path.mkdir()
        (path / "pids.max").write_text(str(limits.processes))
    except OSError:
        with contextlib.suppress(OSError):
            path.rmdir()
        return None
    return path


def cgroup_pids(cgroup: Path) -> list[int]:
    """The processes in ``cgroup`` now."""
    try:
        return [int(x) for x in (cgroup / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def kill_cgroup(cgroup: Path) -> int:
    """SIGKILL every process in ``cgroup``; the number signalled."""
    pids = cgroup_pids(cgroup)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)
    return len(pids)


def remove_cgroup(cgroup: Path) -> bool:
    """Remove an empty cgroup; False while processes remain in it."""
    try:
        cgroup.rmdir()
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return True


#: The environment variable that tags every process of one bot start (inherited by its children).
MARK_VARIABLE = "REFEREE_BOT"


def new_mark() -> str:
    """A tag unique to one bot start, for ``MARK_VARIABLE``."""
    return f"{os.getpid()}-{next(_counter)}-{os.urandom(6).hex()}"


def kill_marked(mark: str) -> int:
    """SIGKILL every process whose environment carries ``MARK_VARIABLE=mark``; the number signalled.

    Finds the children a bare bot left behind outside its process group (a child that called setsid) where no
    cgroup lists them. A process that cleared its environment escapes this; bubblewrap's PID namespace or a
    cgroup does not let it.
    """
    needle = f"{MARK_VARIABLE}={mark}".encode()
    killed = 0
    try:
        entries = os.listdir("/proc")
    except OSError:
        return 0
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if needle not in f.read():
                    continue
            os.kill(int(entry), signal.SIGKILL)
            killed += 1
        except (OSError, ValueError):
            continue
    return killed
