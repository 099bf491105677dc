"""What a tournament format is: the ``Format`` every format module defines, and the ``Schedule`` it plays.

A format has a name, a phrase for ``referee run --format``'s help, its own options (``referee.tournament.options``
declarations), its checks, the games it plans, its schedule (fixed, or rounds that depend on the results), how
many bot processes of an entrant a lane keeps, the line a run starts with, and the order of its standings. The
defaults here are a fixed format's; a format overrides what differs.

This module imports nothing heavy: ``referee run --help`` reads the formats.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

if TYPE_CHECKING:
    from referee.tournament.deals import DealSecret
    from referee.tournament.options import Option
    from referee.tournament.params import TournamentParams
    from referee.tournament.race import RaceOutcome
    from referee.tournament.run import Progress
    from referee.tournament.schedule import TableBatch
    from referee.tournament.standings import Tally
    from referee.tournament.store import SeatRow

__all__ = ["FIXED_ORDER", "FixedSchedule", "Format", "Results", "Schedule"]

#: Stored results as a schedule reads them: game id → its seats.
Results = Mapping[str, "Sequence[SeatRow]"]

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

    def round_started(self, tally: Tally, progress: Progress) -> None:
        """A round is about to be played (``tally``: every game so far): tell ``progress`` where the tournament
        stands, and give ``tally`` the order the format decides."""

    def outcome(self) -> RaceOutcome | None:
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

    def round_started(self, tally: Tally, progress: Progress) -> None:
        pass

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

    def check(self, params: TournamentParams) -> None:
        """Raise ``ScheduleError`` (one line, naming the option and what to do) for options of this format that
        make no schedule; the checks every format shares (``formats.check_format``) have passed."""

    def misplaced(self, option: Option[Any]) -> str:
        """The message for ``option`` of this format given with another format."""
        return f"{option.flag} applies to --format {self.name} only"

    def planned_games(self, params: TournamentParams) -> int | None:
        """How many games the schedule of ``params`` holds (None: it decides as it goes)."""
        return None

    def batches(self, params: TournamentParams, secret: DealSecret) -> list[TableBatch]:
        """Every block of a fixed format's schedule, dealt from ``secret`` (the parameters are checked)."""
        raise NotImplementedError(f"--format {self.name} has no fixed schedule")

    def schedule(self, params: TournamentParams, secret: DealSecret | None) -> Schedule:
        """The schedule of ``params`` (checked), dealt from ``secret`` (None: blocks without deals are not asked
        for; a race replayed for its standings)."""
        assert secret is not None, "a fixed schedule is dealt from the tournament's secret"
        return FixedSchedule(self.batches(params, secret))

    def decides_as_it_goes(self, params: TournamentParams) -> bool:
        """Whether the rounds of ``params``'s schedule read the results so far (``adaptive``; a gauntlet with
        ``--early-stop`` too)."""
        return self.adaptive

    def table_size(self, size: int, options: Mapping[str, Any]) -> int:
        """The default table size, ``size`` being ``min(4, entrants)`` and ``options`` the given ones."""
        return size

    def processes_kept(self, params: TournamentParams) -> int:
        """How many bot processes of an entrant a lane keeps (``PlayerPool``)."""
        return 1

    def describe(self, params: TournamentParams, entrants: str) -> str:
        """The line a run starts with, ``entrants`` saying who plays at which tables."""
        return f"{self.name}: {entrants}, {self.planned_games(params) or 0:,} games"

    def decide(self, tally: Tally, params: TournamentParams, results: Results) -> None:
        """Give ``tally`` (every stored game counted) what this format decides of its standings (a race: its order
        and outcome); a format that does not decide the order leaves it."""
