"""How every bot of a game or a contest runs, as the organiser chooses it: one record, and every default.

``BotSettings`` is what ``referee play``, ``check``, ``run`` and ``compare`` take from their options (the move
and start-up times, the time bank, the sandbox, the clock, the resource ``Limits``); the runner's
``RunnerConfig`` is these settings plus what the referee adds itself, and a tournament stores them with its
results. The defaults are written here only: the options' ``--help`` reads them from these classes.

This module imports nothing of the referee but the root of its errors (``referee.engine.errors``, itself light),
so that ``referee COMMAND --help`` stays light; ``ConfigError``, which refuses an impossible value, lives here.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from enum import StrEnum
from typing import NoReturn

from referee.engine.errors import RefereeError

__all__ = ["BotSettings", "ClockMode", "ConfigError", "GiB", "Limits", "MiB", "SandboxMode", "settings_fields"]

GiB = 1024**3
MiB = 1024**2


class SandboxMode(StrEnum):
    """``--sandbox``: ``auto`` uses bubblewrap when it is installed and works, ``bwrap`` requires it, ``none``
    runs bots with process groups and resource limits only."""

    AUTO = "auto"
    BWRAP = "bwrap"
    NONE = "none"


class ClockMode(StrEnum):
    """``--clock``: charge a bot the wall time of each reply, or the CPU time its processes used for it."""

    WALL = "wall"
    CPU = "cpu"


class ConfigError(RefereeError, ValueError):
    """A bot setting or runner option has an impossible value (``BotSettings``, the runner's ``RunnerConfig``); the
    message names the option."""


def _refuse(message: str) -> NoReturn:
    raise ConfigError(message)


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
    which live in RAM (bubblewrap only; the rest of the sandbox is read-only). ``ram`` caps the memory all the
    processes of one bot start hold together (resident, their /tmp included), through a memory cgroup of its own
    where the referee can make one (``referee.runner.memory_cgroup``): a bot that passes it is killed, a fault of
    that bot. ``game_output`` caps the bytes of one bot's lines in one game (its game log's share): a bot whose
    lines pass it forfeits the game.
    """

    address_space: int | None = 8 * GiB
    cpu_seconds: int | None = 86_400
    processes: int | None = 256
    open_files: int | None = 256
    file_size: int | None = 64 * MiB
    tmp_size: int | None = 256 * MiB
    ram: int | None = 2 * GiB
    game_output: int | None = 4 * MiB

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 1):
                _refuse(f"limit {f.name} must be a positive integer or None, got {value!r}")


@dataclass(frozen=True)
class BotSettings:
    """The organiser's settings of how bots run (seconds for the times), each with its default.

    ``time_bank``: extra seconds per game a bot may spend beyond ``move_time`` in total (None: no bank).
    ``sandbox`` and ``clock`` may be given as their names (``"none"``, ``"cpu"``) and are kept as the enums.
    Raises ``ConfigError`` naming the option for an impossible value.
    """

    move_time: float = 1.0
    startup_time: float = 10.0
    time_bank: float | None = None
    sandbox: SandboxMode = SandboxMode.AUTO
    clock: ClockMode = ClockMode.WALL
    limits: Limits = field(default_factory=Limits)

    def __post_init__(self) -> None:
        for name in ("move_time", "startup_time"):
            _check_seconds(name, getattr(self, name))
        if self.move_time < 0.001:
            # game_start tells a bot its move time in whole milliseconds: a shorter one could not be told truly
            _refuse(
                f"move-time must be at least 0.001 seconds (bots are told it in milliseconds), got {self.move_time!r}"
            )
        if self.time_bank is not None and not self.time_bank >= 0:
            _refuse(f"time-bank must be zero or more seconds, got {self.time_bank!r}")
        if self.clock not in tuple(ClockMode):
            _refuse(f"clock must be wall or cpu, got {self.clock!r}")
        if self.sandbox not in tuple(SandboxMode):
            _refuse(f"sandbox must be auto, bwrap or none, got {self.sandbox!r}")
        object.__setattr__(self, "clock", ClockMode(self.clock))
        object.__setattr__(self, "sandbox", SandboxMode(self.sandbox))


def settings_fields() -> tuple[str, ...]:
    """The names of ``BotSettings``' fields, in order."""
    return tuple(f.name for f in fields(BotSettings))


def _check_seconds(name: str, value: object) -> None:
    """Refuse anything but a positive number of seconds for the option ``name``."""
    if not isinstance(value, int | float) or isinstance(value, bool) or not value > 0:
        _refuse(f"{name.replace('_', '-')} must be a positive number of seconds, got {value!r}")
