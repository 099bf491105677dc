"""``--format race``: adaptive; its rounds come from ``referee.tournament.formats.race_rounds`` and stop once the order
of the ``--top`` entrants is settled at ``--confidence`` (or ``--max-games`` is reached). Every table plays one deal.

``race_of`` makes the ``Race`` of a tournament's parameters and ``replay_race`` feeds it the stored results, so the
race's schedule, standings and deals are a pure function of the parameters and the results.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from referee.tournament.formats.base import Format, FormatParams, Results, RoundStart, Schedule
from referee.tournament.formats.race_status import RaceStatus
from referee.tournament.options import Option

if TYPE_CHECKING:
    from referee.contest.deal_secret import DealSecret
    from referee.contest.schedule import TableBatch
    from referee.tournament.formats.race_rounds import Race, RaceOutcome

__all__ = [
    "CONFIDENCE",
    "FORMAT",
    "TABLE_MIX",
    "TIE_MARGIN",
    "TOP",
    "RaceFormat",
    "RaceSchedule",
    "race_of",
    "replay_race",
    "table_mix",
]

TOP: Option[int] = Option("top", 3, int, flag="--top", kind=int, help="race: how many places to settle.")
CONFIDENCE: Option[float] = Option(
    "confidence", 0.95, float, flag="--confidence", kind=float, help="race: the confidence the order must reach."
)
TIE_MARGIN: Option[float] = Option(
    "tie_margin",
    0.0,
    float,
    flag="--tie-margin",
    kind=float,
    metavar="E",
    help="race: an indifference zone, in matchpoints (the share of a table beaten on a deal, against the field as "
    "a round robin seats it; e.g. 0.02): two entrants closer than E may be reported in either order, and the race "
    "stops once every entrant of the top K is proven ahead of, or less than E behind, every entrant still in the race "
    "below it. With probability at least --confidence no reported pair is out of order by E or more.",
    shown="0, the exact order",
)
TABLE_MIX: Option[str | None] = Option(
    "table_mix",
    None,
    lambda v: None if v is None else str(v),
    flag="--table-mix",
    kind=str,
    metavar="K:W,...",
    help="race: play tables of several sizes, each pass at size K with weight W (e.g. 3:1,4:2, as a ladder's "
    "table_sizes and table_weights mix them): the strength estimated is then the mix of the round robins' at those "
    "sizes. --table-size is the largest of them.",
    shown="one size, --table-size",
)


def table_mix(text: str | None) -> dict[int, float] | None:
    """``--table-mix`` as table size -> weight (None: not given). Raises ``ValueError`` (one line, naming the
    option) for text that is not sizes 2 to 4, each once, with weights of zero or more, not all zero."""
    if text is None:
        return None
    from referee.engine import MAX_PLAYERS, MIN_PLAYERS

    mix: dict[int, float] = {}
    for part in str(text).split(","):
        size, sep, weight = part.partition(":")
        try:
            k, w = int(size), float(weight)
        except ValueError:
            k, w = 0, -1.0
        if not sep or not MIN_PLAYERS <= k <= MAX_PLAYERS or k in mix or not w >= 0:
            raise ValueError(
                f"--table-mix {text!r}: give SIZE:WEIGHT pairs separated by commas, each size {MIN_PLAYERS} to "
                f"{MAX_PLAYERS} once, each weight 0 or more (e.g. 3:1,4:2)"
            )
        mix[k] = w
    if not sum(mix.values()) > 0:
        raise ValueError(f"--table-mix {text!r}: the weights are all zero")
    return mix


def race_of(params: FormatParams, secret: DealSecret | None = None) -> Race:
    """A new race with the parameters of ``params`` (format ``race``), dealt from ``secret`` (see ``Race``)."""
    from referee.tournament.formats.race_rounds import Race  # numpy: only for a race

    return Race(
        params.names,
        table_size=params.table_size,
        seed=params.seed,
        top=TOP.of(params),
        confidence=CONFIDENCE.of(params),
        max_games=params.max_games,
        secret=secret,
        tie_margin=TIE_MARGIN.of(params),
        table_mix=table_mix(TABLE_MIX.of(params)),
    )


def replay_race(race: Race, results: Results, rounds: list[TableBatch] | None = None) -> list[TableBatch]:
    """Feed ``race`` every round whose games are all in ``results`` (game id → seats); the blocks of the first round
    that is not complete (empty when the race is over). A pure function of the results and the parameters.
    ``rounds``, when given, receives the blocks of every round scheduled on the way, the last one included."""
    from referee.contest.counting import block_totals

    while (batches := race.next_round()) is not None:
        if rounds is not None:
            rounds.extend(batches)
        if any(g.game_id not in results for b in batches for g in b.games):
            return batches
        race.record([block_totals(b, results) for b in batches])
    return []


class RaceSchedule:
    """A race's rounds: each one decided from the results of the rounds before."""

    def __init__(self, race: Race) -> None:
        self.race = race
        self._round_games = 0  # the games of the round handed out last

    @property
    def total(self) -> None:
        return None

    def next_round(self, results: Results) -> list[TableBatch]:
        batches = replay_race(self.race, results)
        self._round_games = sum(len(b.games) for b in batches)
        return batches

    def game_ids(self) -> Iterable[str]:
        return [f"g{self.race.max_games:06d}"]  # the longest game id the race may use

    def blocks(self, results: Results) -> list[TableBatch]:
        rounds: list[TableBatch] = []
        replay_race(self.race, results, rounds)
        return rounds

    def over(self, stored: int) -> bool:
        return self.race.reason is not None

    def round_started(self) -> RoundStart:
        """Where the race stands (the live standings take its order) and, while it runs, the round's status."""
        race = self.race
        now = race.outcome()
        if race.reason is not None:
            return RoundStart(now)
        order, left = now.order, set(race.survivors)
        leaders = order[: race.top]
        open_ = tuple(  # the eliminated are behind every survivor: a place before one of them is not open
            p
            for p in range(1, len(leaders) + 1)
            if p < len(order) and order[p] in left and not race.ahead(order[p - 1], order[p])
        )
        status = RaceStatus(race.rounds + 1, self._round_games, race.games, len(race.survivors), leaders, open_)
        return RoundStart(now, status)

    def outcome(self) -> RaceOutcome:
        return self.race.outcome()


class RaceFormat(Format):
    name = "race"
    summary = "adaptive, stops when the order of the --top entrants is settled at --confidence"
    called = "this race"
    options = (TOP, CONFIDENCE, TIE_MARGIN, TABLE_MIX)
    deals_per_table = False
    adaptive = True
    standings_order = (
        "Best first in the race's order (settled places first, then the other entrants, the latest eliminated first)"
    )

    def check(self, params: FormatParams) -> None:
        from referee.contest.errors import ScheduleError

        n, top, confidence, margin = len(params.names), TOP.of(params), CONFIDENCE.of(params), TIE_MARGIN.of(params)
        if not 1 <= top < n:
            raise ScheduleError(f"--top must be 1 to {n - 1} (fewer than the {n} entrants), got {top}")
        if not 0.5 <= confidence < 1:
            raise ScheduleError(f"--confidence must be at least 0.5 and below 1, got {confidence}")
        if not 0 <= margin < 1:
            raise ScheduleError(f"--tie-margin is a matchpoint share: at least 0 and below 1 (e.g. 0.02), got {margin}")
        try:
            mix = table_mix(TABLE_MIX.of(params))
        except ValueError as e:
            raise ScheduleError(str(e)) from e
        largest = None if mix is None else max(k for k, w in mix.items() if w > 0)
        if largest is not None and largest != params.table_size:
            raise ScheduleError(
                f"--table-size {params.table_size} must be the largest size --table-mix weighs ({largest}); "
                "leave --table-size out"
            )

    def table_size(self, size: int, options: Mapping[str, Any]) -> int:
        """The largest size of ``--table-mix`` when it is given (checked later, by ``check``)."""
        try:
            mix = table_mix(options.get(TABLE_MIX.name))
        except ValueError:
            return size
        return size if mix is None else max(k for k, w in mix.items() if w > 0)

    def schedule(self, params: FormatParams, secret: DealSecret | None) -> Schedule:
        return RaceSchedule(race_of(params, secret))

    def processes_kept(self, params: FormatParams) -> int:
        """One per seat rotation: the race's rounds bring new deals, so they need no new process."""
        return params.table_size

    def describe(self, params: FormatParams, entrants: str) -> str:
        margin = TIE_MARGIN.of(params)
        mix = TABLE_MIX.of(params)
        return (
            f"race: {entrants}"
            + ("" if mix is None else f" at most, sizes mixed {mix}")
            + f", until the order of the top {TOP.of(params)} is settled at "
            f"{CONFIDENCE.of(params):.0%} "
            + (f"up to a tie margin of {margin:g} matchpoints " if margin else "")
            + f"(at most {params.max_games:,} games)"
        )

    def decide(self, params: FormatParams, results: Results) -> RaceOutcome:
        """The race's order and outcome, replayed from ``results``."""
        race = race_of(params)
        replay_race(race, results)
        return race.outcome()


FORMAT = RaceFormat()
