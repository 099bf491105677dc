"""What a tournament format is: the ``Format`` every format module defines, and the ``Schedule`` it plays.

A format has a name, a phrase for ``referee run --format``'s help, its own options (``referee.tournament.options``
declarations), its checks, the games it plans, its schedule (fixed, or rounds that depend on the results), how
many bot processes of an entrant a lane keeps, the line a run starts with, and the order of its standings. The
defaults here are a fixed format's; a format overrides what differs.

What a format decides (a race's order, a gauntlet's verdicts) it returns as an ``Outcome``, and what a round's
progress shows as a ``RoundStatus``: the standings, the report and ``referee run`` read those, never a format's
own fields. A format reads a tournament's parameters as ``FormatParams`` (``TournamentParams`` is one), so the
formats sit below the parameters that list them.

This module imports nothing heavy: ``referee run --help`` reads the formats.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
    from referee.contest.counting import CountedSeat
    from referee.contest.deal_secret import DealSecret
    from referee.contest.schedule import TableBatch
    from referee.tournament.options import Option

__all__ = [
    "FIXED_ORDER",
    "FixedSchedule",
    "Format",
    "FormatParams",
    "Outcome",
    "Results",
    "RoundStart",
    "RoundStatus",
    "Schedule",
]

#: Stored results as a schedule reads them: game id → its seats (``store.SeatRow`` is one).
Results = Mapping[str, "Sequence[CountedSeat]"]


class FormatParams(Protocol):
    """What a format reads of a tournament's parameters (``params.TournamentParams`` is one): the entrants'
    ``names``, the ``format``, ``table_size``, ``repeats`` (``--games``), ``seed``, ``max_games`` and the formats'
    own ``options`` (read through their ``Option``)."""

    @property
    def names(self) -> tuple[str, ...]: ...
    @property
    def format(self) -> str: ...
    @property
    def table_size(self) -> int: ...
    @property
    def repeats(self) -> int: ...
    @property
    def seed(self) -> int: ...
    @property
    def max_games(self) -> int: ...
    @property
    def options(self) -> Mapping[str, Any]: ...


class Outcome(Protocol):
    """What a format decides of its tournament (a race's order, a gauntlet's verdicts), as ``Format.decide`` and
    ``Schedule.round_started`` return it: the standings take its ``order`` and ``ahead_of_next``, standings.json
    holds ``to_dict()`` under ``key``, ``referee run`` prints ``lines()`` and the report shows ``banner()`` and
    ``places()``."""

    @property
    def key(self) -> str:
        """Its key in standings.json (``"race"``, ``"gauntlet"``)."""

    @property
    def order(self) -> Sequence[str] | None:
        """Every entrant best first, when the format decides the order (None: the standings sort by matchpoints)."""

    @property
    def ahead_of_next(self) -> Sequence[bool] | None:
        """For each place of ``order`` but the last, whether the format proved it ahead of the next (None: the
        standings test the places themselves)."""

    @property
    def final_games(self) -> int | None:
        """The games the tournament holds once the format has ended it (a race over, a gauntlet stopped early);
        None before, and when the schedule's own count stands."""

    def to_dict(self) -> dict[str, Any]:
        """Its JSON form (standings.json)."""

    def lines(self) -> list[str]:
        """What ``referee run`` prints of it after the standings (plain text; none while undecided)."""

    def banner(self) -> str:
        """The report's paragraph on it (plain text; empty for none)."""

    def places(self, names: Sequence[str]) -> dict[str, str]:
        """Why each entrant of ``names`` (the standings, best first) holds its place, for the report (empty: the
        report shows no such column)."""


class RoundStatus(Protocol):
    """Where a format that decides as it goes stands as a round begins, as a run's progress shows it."""

    @property
    def event(self) -> str:
        """The ``--progress json`` event it is (``"race_round"``)."""

    @property
    def label(self) -> str:
        """The word a printed progress line starts with (``"Race"``)."""

    @property
    def round(self) -> int:
        """The round about to be played, from 1."""

    @property
    def round_games(self) -> int:
        """The games the round holds."""

    def line(self) -> str:
        """Where it stands, in a few words (the progress line adds the pace)."""

    def news(self, before: RoundStatus | None) -> bool:
        """Whether it changed since ``before`` (the last round's) in a way worth a line off a terminal."""

    def to_dict(self) -> dict[str, object]:
        """Its fields for the ``--progress json`` event."""


@dataclass(frozen=True, slots=True)
class RoundStart:
    """What a schedule says as a round begins: where its format stands (``outcome``: the live standings take its
    order) and what the progress shows (``status``); None where there is nothing to say (a fixed format)."""

    outcome: Outcome | None = None
    status: RoundStatus | None = None


#: How the standings of a format that does not decide the order are sorted (``standings._best_first``).
FIXED_ORDER = (
    "Best first by matchpoints over complete deals, then rating (OpenSkill Plackett-Luce, μ − 3σ, updated game by "
    "game in schedule order); entrants without a complete deal last"
)


class Schedule(Protocol):
    """The rounds of one tournament, as ``run_tournament`` plays them and ``verify-deals`` lists them."""

    @property
    def total(self) -> int | None:
        """The games of a fixed schedule; None for one whose rounds depend on the results."""

    def next_round(self, results: Results) -> list[TableBatch]:
        """The blocks of the first round that ``results`` do not complete (empty: the tournament is over). A fixed
        schedule has one round: every block, then none."""

    def game_ids(self) -> Iterable[str]:
        """Every game id the schedule may use (the longest, for one that decides as it goes)."""

    def blocks(self, results: Results) -> list[TableBatch]:
        """Every block scheduled so far: all of a fixed schedule; the rounds ``results`` lead to, the round they
        do not complete included."""

    def over(self, stored: int) -> bool:
        """Whether the tournament has ended, ``stored`` games being stored."""

    def round_started(self) -> RoundStart:
        """A round is about to be played (the one ``next_round`` gave last): where the format stands."""

    def outcome(self) -> Outcome | None:
        """How a schedule that decides as it goes stands (None for a fixed one)."""


class FixedSchedule:
    """A schedule fixed by the parameters: every block known before the first game, played as one round."""

    def __init__(self, batches: Sequence[TableBatch]) -> None:
        self.batches = tuple(batches)
        self._given = False

    @property
    def total(self) -> int:
        return sum(len(b.games) for b in self.batches)

    def next_round(self, results: Results) -> list[TableBatch]:
        given, self._given = self._given, True
        return [] if given else list(self.batches)

    def game_ids(self) -> Iterable[str]:
        return (g.game_id for b in self.batches for g in b.games)

    def blocks(self, results: Results) -> list[TableBatch]:
        return list(self.batches)

    def over(self, stored: int) -> bool:
        return stored >= self.total

    def round_started(self) -> RoundStart:
        return RoundStart()

    def outcome(self) -> None:
        return None


class Format:
    """A tournament format. A module of ``referee.tournament.formats`` defines a subclass and an instance of it,
    ``FORMAT``; the registry (``referee.tournament.formats``) lists it.

    Class attributes: ``name`` (``--format NAME``), ``summary`` (its phrase in ``--format``'s help), ``called``
    (how a message names a schedule of it: "a round robin"), ``options`` (its own options), ``deals_per_table``
    (``--games`` applies: a table may play several deals), ``adaptive`` (its rounds depend on the results),
    ``standings_order`` (how its standings are sorted, for the report), ``over_budget`` (what a message over
    ``--max-games`` suggests), ``symmetric`` (every entrant plays the same part, so it ranks a field: a ladder's
    final may use it; a gauntlet's challengers and field do not).
    """

    name: ClassVar[str]
    summary: ClassVar[str]
    called: ClassVar[str]
    options: ClassVar[tuple[Option[Any], ...]] = ()
    deals_per_table: ClassVar[bool] = True
    adaptive: ClassVar[bool] = False
    standings_order: ClassVar[str] = FIXED_ORDER
    over_budget: ClassVar[str] = "; lower it, or raise --max-games"
    symmetric: ClassVar[bool] = True

    def check(self, params: FormatParams) -> None:
        """Raise ``ScheduleError`` (one line, naming the option and what to do) for options of this format that
        make no schedule; the checks every format shares (``formats.check_format``) have passed."""

    def misplaced(self, option: Option[Any]) -> str:
        """The message for ``option`` of this format given with another format."""
        return f"{option.flag} applies to --format {self.name} only"

    def planned_games(self, params: FormatParams) -> int | None:
        """How many games the schedule of ``params`` holds (None: it decides as it goes)."""
        return None

    def batches(self, params: FormatParams, secret: DealSecret) -> list[TableBatch]:
        """Every block of a fixed format's schedule, dealt from ``secret`` (the parameters are checked)."""
        raise NotImplementedError(f"--format {self.name} has no fixed schedule")

    def schedule(self, params: FormatParams, secret: DealSecret | None) -> Schedule:
        """The schedule of ``params`` (checked), dealt from ``secret`` (None: blocks without deals are not asked
        for; a race replayed for its standings)."""
        assert secret is not None, "a fixed schedule is dealt from the tournament's secret"
        return FixedSchedule(self.batches(params, secret))

    def decides_as_it_goes(self, params: FormatParams) -> bool:
        """Whether the rounds of ``params``'s schedule read the results so far (``adaptive``; a gauntlet with
        ``--early-stop`` too)."""
        return self.adaptive

    def table_size(self, size: int, options: Mapping[str, Any]) -> int:
        """The default table size, ``size`` being ``min(4, entrants)`` and ``options`` the given ones."""
        return size

    def processes_kept(self, params: FormatParams) -> int:
        """How many bot processes of an entrant a lane keeps (``PlayerPool``)."""
        return 1

    def describe(self, params: FormatParams, entrants: str) -> str:
        """The line a run starts with, ``entrants`` saying who plays at which tables."""
        return f"{self.name}: {entrants}, {self.planned_games(params) or 0:,} games"

    def decide(self, params: FormatParams, results: Results) -> Outcome | None:
        """What this format decides of a tournament of ``params`` whose stored games are ``results`` (game id →
        seats): a race its order and outcome; None for a format that decides nothing (the standings sort by
        matchpoints)."""
        return None
