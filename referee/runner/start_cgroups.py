"""The cgroups of one bot start, made together before its launch and removed together after it (or after a start
that failed).

Which are made depends on the run: a CPU cgroup for ``--clock cpu`` (``cpu_cgroup``), a memory cgroup for
``Limits.ram`` (``memory_cgroup``), a pids cgroup for ``Limits.processes`` (on cgroup v2 the memory cgroup is that
one too) and a freezer for ``RunnerConfig.freeze`` (``freezer``). Each one made is pushed on the caller's exit stack
with what removes it, so that a start that fails half-way leaves none behind and a started bot removes them all
with one ``aclose``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import trio

from referee.runner import limits as limits_mod
from referee.runner.config import Limits, RunnerConfig
from referee.runner.cpu_cgroup import CpuCgroup, make_cpu_cgroup
from referee.runner.freezer import Freezer, make_freezer
from referee.runner.memory_cgroup import MemoryCgroup, make_memory_cgroup

__all__ = ["StartCgroups"]


@dataclass(frozen=True, slots=True)
class StartCgroups:
    """The cgroups of one bot start, each None where it was not asked for or cannot be made here: ``cpu`` (every
    process of the start, for its CPU time), ``memory`` (``Limits.ram``), ``pids`` (what caps its processes: on
    cgroup v2 the memory cgroup itself) and ``freezer`` (stops the whole bot while it is idle)."""

    cpu: CpuCgroup | None
    memory: MemoryCgroup | None
    pids: Path | None
    freezer: Freezer | None

    @classmethod
    def make(cls, config: RunnerConfig, stack: contextlib.AsyncExitStack) -> StartCgroups:
        """The cgroups ``config`` asks for, each pushed on ``stack`` with its removal as soon as it is made (a
        removal kills what is left in it first, and tries for up to 2 s). Raises ``BotSpecError`` for ``--clock
        cpu`` where no CPU cgroup can be made."""
        cpu = make_cpu_cgroup() if config.clock == "cpu" else None
        if cpu is not None:
            stack.push_async_callback(_remove, cpu.remove, cpu.kill)
        ram, processes = config.limits.ram, config.limits.processes
        memory = None if ram is None else make_memory_cgroup(ram, processes)
        v2 = memory.path if memory is not None and memory.v2 else None
        if memory is not None and v2 is None:
            stack.push_async_callback(_remove, memory.remove, partial(limits_mod.kill_cgroup, memory.path))
        # On cgroup v2 a process is in one cgroup: the memory cgroup caps the processes too.
        pids = v2 if v2 is not None else limits_mod.make_cgroup(config.limits)
        if pids is not None:
            remove = partial(limits_mod.remove_cgroup, pids)
            stack.push_async_callback(_remove, remove, partial(limits_mod.kill_cgroup, pids))
        freezer = make_freezer(v2) if config.freeze else None
        if freezer is not None:
            stack.push_async_callback(_remove, freezer.remove, None)
            stack.callback(freezer.thaw)  # before its removal: a frozen process never leaves it
        return cls(cpu, memory, pids, freezer)

    def preexec(self, limits: Limits, *, nproc: bool) -> Callable[[], None]:
        """What the bot's first process runs before its ``exec``: ``limits_mod.preexec`` joining these cgroups."""
        joins = () if self.cpu is None else self.cpu.joins
        also: tuple[Path, ...] = (self.memory.path,) if self.memory is not None and not self.memory.v2 else ()
        also += (self.freezer.path,) if self.freezer is not None and not self.freezer.v2 else ()
        return limits_mod.preexec(limits, self.pids, nproc=nproc, cpu_cgroups=joins, also=also)


async def _remove(remove: Callable[[], bool], kill: Callable[[], object] | None) -> None:
    """``kill()`` what is left in a cgroup and ``remove()`` it, up to 100 times 20 ms apart (processes killed a
    moment ago may still be leaving it). Shielded: it runs while a start or a bot is being undone."""
    with trio.CancelScope(shield=True):
        for _ in range(100):
            if kill is not None:
                kill()
            if remove():
                return
            await trio.sleep(0.02)
