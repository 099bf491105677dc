"""A bot start that fails half-way leaves nothing behind: each resource ``BotProcess.start`` acquires (its CPU,
memory and pids cgroups, its freezer, the seccomp descriptor, the process and its three pipes) is undone when a
later one fails.

Each case makes one acquisition raise in place of its work, after every earlier one succeeded for real, and then
looks for what is left: a cgroup folder, an open descriptor, a process of the start (the bot, a child it forked).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import trio

from referee.runner import Limits, start_cgroups
from referee.runner import limits as limits_mod
from referee.runner import process as process_mod
from referee.runner.config import SandboxMode
from referee.runner.cpu_cgroup import cpu_cgroup_problem
from referee.runner.process import BotProcess
from referee.runner.sandbox import seccomp_usable

from .helpers import MODES, bot, config, new_mark, processes_with

#: Every acquisition of a start, in order: (module, name, which call of it fails).
STEPS: list[tuple[Any, str, int]] = [
    (start_cgroups, "make_cpu_cgroup", 1),
    (start_cgroups, "make_memory_cgroup", 1),
    (limits_mod, "make_cgroup", 1),
    (start_cgroups, "make_freezer", 1),
    (process_mod, "filter_fd", 1),
    (process_mod, "bot_argv", 1),
    (process_mod, "run_in_starter", 1),
    (process_mod, "_stream", 1),
    (process_mod, "_stream", 2),
    (process_mod, "_stream", 3),
]


class Injected(Exception):
    """The failure a case forces."""


def _cgroup_folders() -> set[Path]:
    """Every cgroup folder of this referee (bot cgroups carry ``referee`` and its pid in their names)."""
    pid = f"-{os.getpid()}-"
    return {Path(top) / d for top, dirs, _ in os.walk("/sys/fs/cgroup") for d in dirs if "referee" in d and pid in d}


def _fds() -> set[int]:
    return {int(fd) for fd in os.listdir("/proc/self/fd")}


def _target(fd: int) -> str:
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return "closed since"


def _children() -> list[int]:
    """Processes whose parent is this one (zombies too: a child not reaped is left behind)."""
    me, found = os.getpid(), []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == me:
                found.append(int(entry))
    return found


def _failing(real: Callable[..., Any], nth: int, calls: list[str], name: str) -> Callable[..., Any]:
    count = 0

    def fake(*args: Any, **kwargs: Any) -> Any:
        nonlocal count
        count += 1
        calls.append(name)
        if count == nth:
            raise Injected(name)
        return real(*args, **kwargs)

    return fake


@pytest.mark.parametrize("mode", MODES)
def test_a_start_that_fails_after_each_acquisition_leaves_nothing(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    mark = new_mark()
    probe = limits_mod.make_cgroup(Limits())
    if probe is not None:
        limits_mod.remove_cgroup(probe)
    cgroups_here = probe is not None  # without, a child fork_child forks may outrun the kill of its parent
    spec = bot("fork_child" if cgroups_here else "honest", mark)
    cfg = config(
        mode,
        clock="cpu" if cpu_cgroup_problem() is None else "wall",
        freeze=True,
        limits=Limits(ram=256 * 2**20, processes=64),
    )
    left: list[str] = []

    async def main() -> None:
        # A start that succeeds first does the lazy set-up (cgroup parents, the starter thread).
        warm = await BotProcess.start(spec, cfg, None, SandboxMode(mode))
        await warm.terminate(0.3)
        await trio.sleep(0.3)  # its stderr drain ends
        fds, folders = _fds(), _cgroup_folders()
        children = set(_children())  # another test's process in this worker is not this start's
        for module, name, nth in STEPS:
            if name == "filter_fd" and not (mode == "bwrap" and seccomp_usable()):
                continue  # the seccomp filter is bubblewrap's
            calls: list[str] = []
            with monkeypatch.context() as patch:
                patch.setattr(module, name, _failing(getattr(module, name), nth, calls, name))
                with pytest.raises(Injected):
                    await BotProcess.start(spec, cfg, None, SandboxMode(mode))
            assert calls.count(name) == nth, f"{name} call {nth} was never reached"
            end = time.monotonic() + 10
            while processes_with(mark) and time.monotonic() < end:
                await trio.sleep(0.05)
            what = f"failed at {name} #{nth}"
            left.extend(f"{what}: fd {fd} ({_target(fd)})" for fd in _fds() - fds)
            left.extend(f"{what}: cgroup {path}" for path in _cgroup_folders() - folders)
            left.extend(f"{what}: child {pid}" for pid in set(_children()) - children)
            left.extend(f"{what}: process {pid} of the bot" for pid in processes_with(mark))

    try:
        trio.run(main)
    finally:
        for pid in processes_with(mark):
            os.kill(pid, 9)
    assert left == []
