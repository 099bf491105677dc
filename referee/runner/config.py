"""How the runner runs bots: deadlines, sandbox mode, resource limits, stderr cap."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from referee.engine.errors import RefereeError

SandboxMode = Literal["auto", "bwrap", "none"]
ClockMode = Literal["wall", "cpu"]
#: Under ``--clock cpu`` a reply may take at most this many times its CPU allowance of wall time.
CPU_BACKSTOP = 3.0
GiB = 1024**3
MiB = 1024**2


class ConfigError(RefereeError, ValueError):
    """A runner option has an impossible value; the message names the option."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of one bot process (``None``: not limited).

    ``address_space`` (bytes) is virtual memory, not RAM: node and the JVM reserve gigabytes up front (the JVM
    sizes its heap reservation from this limit, and glibc reserves 64 MiB per malloc arena and thread), so the
    default 8 GiB leaves room for both; 4 GiB made the JVM fail now and then under load. ``processes`` caps
    processes and threads of the bot; it is enforced by a pids cgroup when the referee may create one (root),
    else inside bubblewrap by RLIMIT_NPROC (which the kernel does not apply to root); a bare bot of a non-root
    referee has no process cap. ``cpu_seconds`` is CPU time of one process over its whole life, and a
    persistent bot plays many games: the default (a day) only stops a runaway. ``file_size`` caps each file a
    bot writes; ``tmp_size`` caps all the writable space of the sandbox, its private /tmp and /dev/shm together,
    which live in RAM (bubblewrap only; the rest of the sandbox is read-only).
    """

    address_space: int | None = 8 * GiB
    cpu_seconds: int | None = 86_400
    processes: int | None = 256
    open_files: int | None = 256
    file_size: int | None = 64 * MiB
    tmp_size: int | None = 256 * MiB

    def __post_init__(self) -> None:
        for name in ("address_space", "cpu_seconds", "processes", "open_files", "file_size", "tmp_size"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                raise ConfigError(f"limit {name} must be a positive integer or None, got {value!r}")


@dataclass(frozen=True)
class RunnerConfig:
    """Deadlines (seconds), the sandbox mode, resource limits and the cap of each bot's stderr log (bytes).

    ``time_bank``: extra seconds per game a bot may spend beyond ``move_time`` in total (None: no bank).
    ``sandbox``: ``"auto"`` uses bubblewrap when ``bwrap`` is installed, ``"bwrap"`` requires it, ``"none"``
    runs with process groups and rlimits only. ``grace`` is how long a bot has to exit after ``bye`` or TERM.
    ``hidden``: folders the sandbox hides from every bot (see the field). ``clock``: ``"wall"`` charges a bot
    the wall time from sending a message to reading its reply; ``"cpu"`` the CPU time its processes used in
    between (``referee.runner.cputime``), with a wall-clock backstop of ``CPU_BACKSTOP`` times the allowance.
    """

    move_time: float = 1.0
    startup_time: float = 10.0
    time_bank: float | None = None
    sandbox: SandboxMode = "auto"
    limits: Limits = field(default_factory=Limits)
    stderr_cap: int = 1 * MiB
    grace: float = 2.0
    #: Folders no bot may read, whatever folder it runs in: the results, game logs and other bots' logs. In the
    #: sandbox each one inside a folder the bot sees is covered by an empty private one.
    hidden: tuple[str, ...] = ()
    #: The folders and program files of every entrant of the contest (``sandbox.entrant_paths``): in the sandbox
    #: a bot sees none of them but its own (another entrant's file in a folder they share is covered).
    entrants: tuple[str, ...] = ()
    clock: ClockMode = "wall"
    #: ``clock="cpu"``: how many times its CPU allowance of wall time a reply may take.
    cpu_backstop: float = CPU_BACKSTOP

    def __post_init__(self) -> None:
        for name in ("move_time", "startup_time", "grace"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or isinstance(value, bool) or not value > 0:
                raise ConfigError(f"{name.replace('_', '-')} must be a positive number of seconds, got {value!r}")
        if self.time_bank is not None and not self.time_bank >= 0:
            raise ConfigError(f"time-bank must be zero or more seconds, got {self.time_bank!r}")
        if not self.cpu_backstop >= 1:
            raise ConfigError(f"the wall-clock backstop must be at least 1x the move time, got {self.cpu_backstop!r}")
        if self.clock not in ("wall", "cpu"):
            raise ConfigError(f"clock must be wall or cpu, got {self.clock!r}")
        if self.sandbox not in ("auto", "bwrap", "none"):
            raise ConfigError(f"sandbox must be auto, bwrap or none, got {self.sandbox!r}")
        if self.stderr_cap < 0:
            raise ConfigError(f"stderr cap must be zero or more bytes, got {self.stderr_cap!r}")
