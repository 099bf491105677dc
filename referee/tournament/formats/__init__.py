"""The tournament formats, one module each, and the one registry of them.

Every question about a format (its options, its checks, the games it plans, its schedule, its standings order, the
line a run starts with) is asked of its ``Format`` here; nothing else compares a format's name. A format is a
module of this package defining ``FORMAT`` (a ``Format``), listed in ``BUILT_IN``; ``register`` adds one from
elsewhere. ``referee run --format`` offers ``FORMATS`` with their summaries and options.

Importing this package is light (``referee run --help`` reads it): each format loads what it plays with (the
schedule, the race's numpy) only when asked to.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from referee.tournament.formats import balanced, gauntlet, race, round_robin
from referee.tournament.formats.base import (
    FIXED_ORDER,
    FixedSchedule,
    Format,
    FormatParams,
    Outcome,
    Results,
    RoundStatus,
    Schedule,
)
from referee.tournament.options import FORMAT, Option

if TYPE_CHECKING:
    from referee.contest.deal_secret import DealSecret
    from referee.contest.schedule import TableBatch

__all__ = [
    "BUILT_IN",
    "DEFAULT_FORMAT",
    "FIXED_ORDER",
    "FORMATS",
    "FixedSchedule",
    "Format",
    "FormatParams",
    "Outcome",
    "Results",
    "RoundStatus",
    "Schedule",
    "check_format",
    "format_of",
    "format_options",
    "planned_games",
    "register",
    "schedule_for",
    "schedule_of",
]

#: The formats this referee ships, in the order ``--format`` lists them (and a resume compares their options).
BUILT_IN = (round_robin.FORMAT, balanced.FORMAT, gauntlet.FORMAT, race.FORMAT)
#: Every known format by name.
FORMATS: dict[str, Format] = {}
#: The format of a tournament that names none.
DEFAULT_FORMAT = FORMAT.default


def register(fmt: Format) -> Format:
    """Add ``fmt`` to ``FORMATS`` (its name and its options' names must be new); returns it."""
    if fmt.name in FORMATS:
        raise ValueError(f"a format named {fmt.name!r} is registered already")
    taken = {o.name for o in format_options()}
    if clash := [o.name for o in fmt.options if o.name in taken]:
        raise ValueError(f"format {fmt.name!r}: option {clash[0]!r} is another format's")
    FORMATS[fmt.name] = fmt
    return fmt


def format_of(params: FormatParams | str) -> Format:
    """The format of ``params`` (or the format named so). Raises ``ScheduleError`` for a name no format has."""
    name = params if isinstance(params, str) else params.format
    fmt = FORMATS.get(name)
    if fmt is None:
        from referee.contest.errors import ScheduleError

        raise ScheduleError(f"unknown --format {name!r}; use one of {', '.join(FORMATS)}")
    return fmt


def format_options() -> tuple[Option[Any], ...]:
    """Every format's own options, format by format."""
    return tuple(o for fmt in FORMATS.values() for o in fmt.options)


for _built_in in BUILT_IN:
    register(_built_in)


def check_format(params: FormatParams) -> None:
    """Raise ``ScheduleError`` (one line, naming the option and what to do) for options that do not make a schedule
    of ``params.format``, or one that would pass ``--max-games``."""
    from referee.contest.errors import ScheduleError
    from referee.engine import MAX_PLAYERS, MIN_PLAYERS

    fmt = format_of(params)
    n, k = len(params.names), params.table_size
    if params.max_games < 1:
        raise ScheduleError(f"--max-games must be at least 1, got {params.max_games}")
    if n < MIN_PLAYERS:
        raise ScheduleError(f"a tournament needs at least {MIN_PLAYERS} entrants, got {n}")
    if not MIN_PLAYERS <= k <= MAX_PLAYERS:
        raise ScheduleError(f"table size must be {MIN_PLAYERS} to {MAX_PLAYERS}, got {k}")
    if k > n:
        raise ScheduleError(f"table size {k} is larger than the number of entrants ({n})")
    if params.repeats < 1:
        raise ScheduleError(f"the number of games per table must be at least 1, got {params.repeats}")
    for other in FORMATS.values():
        for option in other.options if other is not fmt else ():
            if option.of(params) != option.default:
                raise ScheduleError(other.misplaced(option))
    if params.repeats != 1 and not fmt.deals_per_table:
        raise ScheduleError(f"--games does not apply to --format {fmt.name}: every table plays one deal")
    fmt.check(params)
    games = fmt.planned_games(params)
    if games is not None and games > params.max_games:
        raise ScheduleError(
            f"{fmt.called} of {n} entrants at tables of {k} is {games:,} games, over --max-games "
            f"{params.max_games:,}{fmt.over_budget}"
        )


def planned_games(params: FormatParams) -> int | None:
    """How many games the schedule of ``params`` holds (None for a format that decides as it goes, a race)."""
    return format_of(params).planned_games(params)


def schedule_for(params: FormatParams, secret: DealSecret) -> list[TableBatch]:
    """The whole schedule of a fixed format (``check_format`` first), dealt from ``secret``. Raises
    ``ScheduleError`` for one that decides as it goes (a race)."""
    check_format(params)
    fmt = format_of(params)
    if fmt.adaptive:
        from referee.contest.errors import ScheduleError

        raise ScheduleError(f"--format {fmt.name} has no fixed schedule: its rounds depend on the results")
    return fmt.batches(params, secret)


def schedule_of(params: FormatParams, secret: DealSecret | None) -> Schedule:
    """The schedule of ``params`` (``check_format`` first), dealt from ``secret`` (None: a race replayed for its
    standings, whose deals are not asked for)."""
    check_format(params)
    return format_of(params).schedule(params, secret)
