"""Every option of a tournament, declared once: its field, its default, its ``referee run`` flag and help, how a
stored value is read back and how a refused resume names it.

``TournamentParams`` (``referee.tournament.params``) reads its JSON, its resume mismatches and its defaults from
these declarations; ``referee run`` its options and their help. The options of one format are declared in that
format's module (``referee.tournament.formats``), the same way. The bots' settings take their defaults from
``referee.settings.BotSettings``, the one place they are written.

This module imports nothing heavy (``referee COMMAND --help`` reads it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from referee.settings import BotSettings, ClockMode, SandboxMode

__all__ = [
    "CLOCK",
    "CONCEALED",
    "CORE",
    "DEFAULT_MAX_GAMES",
    "FORMAT",
    "LIMITS",
    "MAX_GAMES",
    "MOVE_TIME",
    "REPEATS",
    "RULESET",
    "SANDBOX",
    "SEED",
    "STARTUP_TIME",
    "TABLE_SIZE",
    "TIME_BANK",
    "HasOptions",
    "Option",
    "optional",
    "strings",
]

T = TypeVar("T")


class HasOptions(Protocol):
    """What holds the values of the formats' options (``TournamentParams.options``)."""

    @property
    def options(self) -> Mapping[str, Any]: ...


@dataclass(frozen=True, slots=True, eq=False)
class Option(Generic[T]):
    """One option of a tournament.

    ``name`` is its field of ``TournamentParams`` (a format's option: its key in ``TournamentParams.options``) and
    its key in the stored JSON; ``default`` the value a new tournament takes when it is not given (None with
    ``shown`` set: a default worked out from the rest, as the table size's); ``read`` makes the value from its
    stored JSON (and from the command line). ``flag`` is its option of ``referee run`` (None: it has none of its
    own), ``label`` how a refused resume names it (the flag unless given), ``shown`` the default as ``--help`` says
    it. ``required``: every stored tournament holds it (one without it is unreadable); ``compared``: a resume must
    keep it. ``kind``, ``short``, ``metavar`` and ``multiple`` shape its command-line option.
    """

    name: str
    default: T
    read: Callable[[Any], T]
    flag: str | None = None
    help: str = ""
    label: str = ""
    shown: str | None = None
    required: bool = False
    compared: bool = True
    kind: type = str
    short: str | None = None
    metavar: str | None = None
    multiple: bool = False

    @property
    def named(self) -> str:
        """How a message names the option: its label, else its flag, else its field."""
        return self.label or self.flag or self.name

    def load(self, data: Mapping[str, Any]) -> T:
        """Its value in a stored tournament's JSON object ``data``: its default when absent (written by an older
        referee). Raises ``KeyError`` when absent and ``required``, and what ``read`` raises for a bad value."""
        if self.name in data:
            return self.read(data[self.name])
        if self.required:
            raise KeyError(self.name)
        return self.default

    def of(self, params: HasOptions) -> T:
        """A format option's value in ``params`` (its default when the params do not hold it)."""
        value: T = params.options.get(self.name, self.default)
        return value

    def help_text(self) -> str:
        """``help`` with the default said as ``--help`` says it (none for an option without a default)."""
        said = self.shown if self.shown is not None else None if self.default in (None, ()) else f"{self.default}"
        return f"{self.help}  [default: {said}]" if said else self.help


def optional(read: Callable[[Any], T]) -> Callable[[Any], T | None]:
    """``read``, with None (JSON null) kept as None."""
    return lambda value: None if value is None else read(value)


def strings(value: Any) -> tuple[str, ...]:
    """A stored list of names (null or absent: none) as a tuple of str."""
    return tuple(str(v) for v in value or ())


#: The most games any format plays unless ``--max-games`` says otherwise.
DEFAULT_MAX_GAMES = 100_000

TABLE_SIZE: Option[int | None] = Option(
    "table_size",
    None,
    int,
    flag="--table-size",
    short="-k",
    kind=int,
    help="Players per game, 2 to 4.",
    shown="min(4, entrants)",
    required=True,
)
REPEATS: Option[int] = Option(
    "repeats",
    1,
    int,
    flag="--games",
    short="-n",
    kind=int,
    help="Deals per table; each is played in every seat rotation.",
    required=True,
)
SEED: Option[int | None] = Option(
    "seed",
    None,
    int,
    flag="--seed",
    kind=int,
    help="Tournament seed: with the deal secret, fixes every deal.",
    shown="random, printed",
    required=True,
)
#: The ruleset's options (``Ruleset.to_dict``); a new tournament without ``--rules`` plays the standard one.
RULESET: Option[dict[str, Any] | None] = Option("ruleset", None, dict, label="the ruleset", required=True)
MOVE_TIME: Option[float] = Option("move_time", BotSettings.move_time, float, label="--move-time", required=True)
STARTUP_TIME: Option[float] = Option(
    "startup_time", BotSettings.startup_time, float, label="the startup time", required=True
)
TIME_BANK: Option[float | None] = Option("time_bank", BotSettings.time_bank, optional(float), label="the time bank")
SANDBOX: Option[SandboxMode] = Option("sandbox", BotSettings.sandbox, SandboxMode, label="--sandbox", required=True)
CLOCK: Option[ClockMode] = Option("clock", BotSettings.clock, lambda v: ClockMode(v or ClockMode.WALL), label="--clock")
#: The ``--limit`` values given (a field of ``Limits`` each); the others take ``Limits``' defaults.
LIMITS: Option[dict[str, int | None]] = Option("limits", {}, lambda v: dict(v or {}), label="--limit")
#: Files of the contest no bot may read besides the entrants' own (the manifest): stored, never compared.
CONCEALED: Option[tuple[str, ...]] = Option("concealed", (), strings, compared=False)
FORMAT: Option[str] = Option("format", "round-robin", str, flag="--format", kind=str)
MAX_GAMES: Option[int] = Option(
    "max_games",
    DEFAULT_MAX_GAMES,
    int,
    flag="--max-games",
    kind=int,
    help="The most games any format may play.",
    shown=f"{DEFAULT_MAX_GAMES:,}",
)

#: The options every tournament has, in the order a resume compares them (the entrants first, then these, then
#: the formats' options).
CORE: tuple[Option[Any], ...] = (
    TABLE_SIZE,
    REPEATS,
    SEED,
    RULESET,
    MOVE_TIME,
    STARTUP_TIME,
    TIME_BANK,
    SANDBOX,
    CLOCK,
    LIMITS,
    CONCEALED,
    FORMAT,
    MAX_GAMES,
)
