"""How the runner runs bots: the organiser's ``BotSettings`` (``referee.settings``) and the referee's own."""

from __future__ import annotations

from dataclasses import dataclass, replace

from referee.settings import BotSettings, ClockMode, ConfigError, Limits, MiB, SandboxMode, settings_fields

__all__ = [
    "CPU_BACKSTOP",
    "HOLD_LOOP",
    "HOLD_LOOP_MAX",
    "BotSettings",
    "ClockMode",
    "ConfigError",
    "Limits",
    "RunnerConfig",
    "SandboxMode",
]

#: Under ``--clock cpu`` a reply may take at most this many times its CPU allowance of wall time.
CPU_BACKSTOP = 3.0

#: The most ``RunnerConfig.hold_loop`` may be: the loop's other tasks (a stop, a stderr pipe to drain) wait at most
#: this long for a turn of its game.
HOLD_LOOP_MAX = 0.01
#: ``hold_loop`` of a loop that plays one lane alone (``RunnerConfig.alone``).
HOLD_LOOP = HOLD_LOOP_MAX / 2


@dataclass(frozen=True)
class RunnerConfig(BotSettings):
    """The organiser's ``BotSettings`` plus what the referee sets itself: the cap of each bot's stderr log
    (bytes), the grace, the folders hidden from bots and the wall-clock backstop of the CPU clock.

    ``grace`` is how long a bot has to exit after ``bye`` or TERM. ``hidden``: folders the sandbox hides from
    every bot (see the field). ``clock``: ``"wall"`` charges a bot the wall time from sending a message to
    reading its reply; ``"cpu"`` the CPU time its processes used in between (``referee.runner.cputime``), with a
    wall-clock backstop of ``CPU_BACKSTOP`` times the allowance.
    """

    stderr_cap: int = 1 * MiB
    grace: float = 2.0
    #: Folders no bot may read, whatever folder it runs in: the results, game logs and other bots' logs. In the
    #: sandbox each one inside a folder the bot sees is covered by an empty private one.
    hidden: tuple[str, ...] = ()
    #: The folders and program files of every entrant of the contest (``sandbox.entrant_paths``): in the sandbox
    #: a bot sees none of them but its own (another entrant's file in a folder they share is covered).
    entrants: tuple[str, ...] = ()
    #: ``clock="cpu"``: how many times its CPU allowance of wall time a reply may take.
    cpu_backstop: float = CPU_BACKSTOP
    #: The program's own folder is writable in the sandbox (a ladder's build command; never a bot).
    writable_folder: bool = False
    #: Give each bot start a freezer (``referee.runner.freezer``), so that its owner can stop it while it is idle (a
    #: ladder's warm processes between their games).
    freeze: bool = False
    #: Mark each bot's stderr log with the game, seat and request the bot wrote each part under
    #: (``referee.runner.stderr_marks``): a ladder's replay shows an author its bot's stderr beside each turn.
    stderr_marks: bool = False
    #: Seconds a wait for a turn's reply may hold the event loop (a blocking ``poll`` of the bot's stdout) before it
    #: waits through trio: 0, never. Only for a loop that plays one game and nothing else (a lane's worker process):
    #: a reply that comes within it is read without a pass through trio's scheduler, about 1 ms of the referee's CPU
    #: a game less (bench/README.md, "Hot paths"). Every deadline, exit and stop is kept (``BotProcess.exchange``).
    hold_loop: float = 0.0

    def __post_init__(self) -> None:
        super().__post_init__()
        if not isinstance(self.grace, int | float) or isinstance(self.grace, bool) or not self.grace > 0:
            raise ConfigError(f"grace must be a positive number of seconds, got {self.grace!r}")
        if not self.cpu_backstop >= 1:
            raise ConfigError(f"the wall-clock backstop must be at least 1x the move time, got {self.cpu_backstop!r}")
        if self.stderr_cap < 0:
            raise ConfigError(f"stderr cap must be zero or more bytes, got {self.stderr_cap!r}")
        if not 0 <= self.hold_loop <= HOLD_LOOP_MAX:
            raise ConfigError(f"hold_loop must be 0 to {HOLD_LOOP_MAX:g} seconds, got {self.hold_loop!r}")

    def alone(self) -> RunnerConfig:
        """This configuration for a trio loop that plays one lane and nothing else (``referee run --jobs 1``, a lane's
        worker process, a ladder lane process): a turn's wait for its reply may hold the loop (``HOLD_LOOP``)."""
        return replace(self, hold_loop=HOLD_LOOP)

    @classmethod
    def of(cls, settings: BotSettings, *, hidden: tuple[str, ...] = (), entrants: tuple[str, ...] = ()) -> RunnerConfig:
        """The runner's configuration for ``settings``, hiding ``hidden`` and the ``entrants``' files from bots."""
        chosen = {name: getattr(settings, name) for name in settings_fields()}
        return cls(**chosen, hidden=hidden, entrants=entrants)
