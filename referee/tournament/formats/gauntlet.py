"""``--format gauntlet``: every table holds one entrant of the field and ``table_size - 1`` challengers, each
combination of challengers against each field entrant, ``repeats`` times: field entrants never share a table.

With ``--early-stop C`` the repeats are played one at a time, and the gauntlet stops after the first one at which
every challenger is proven ahead of or behind the field at C (``referee.tournament.formats.gauntlet_stop``)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from referee.tournament.formats.base import Format, FormatParams, Results, RoundStart, Schedule
from referee.tournament.options import Option, optional, strings

if TYPE_CHECKING:
    from referee.contest.deal_secret import DealSecret
    from referee.contest.schedule import TableBatch
    from referee.tournament.formats.gauntlet_stop import GauntletOutcome, GauntletStop

__all__ = ["CHALLENGERS", "EARLY_STOP", "FORMAT", "Gauntlet", "GauntletSchedule"]

#: The entrants that play the field (their tournament names); on the command line, bots that become entrants.
CHALLENGERS: Option[tuple[str, ...]] = Option(
    "challengers",
    (),
    strings,
    flag="--challenger",
    label="the challengers",
    metavar="BOT",
    multiple=True,
    help="gauntlet: a bot that plays the field (repeatable; or challenger = true in bots.toml).",
)

#: The confidence at which a gauntlet may stop early (None: it plays every repeat).
EARLY_STOP: Option[float | None] = Option(
    "early_stop",
    None,
    optional(float),
    flag="--early-stop",
    kind=float,
    metavar="C",
    help="gauntlet: stop after the first repeat at which every challenger is proven ahead of or behind the field "
    "(its share of blocks won against a table's field entrant above or below 1/2), all at once with probability at "
    "least C (e.g. 0.95); --games is then the most repeats played.",
    shown="none, play every repeat",
)


class GauntletSchedule:
    """A gauntlet played one repeat (a round: every table once) at a time, stopping after the first round at which
    every challenger is decided (``GauntletStop``) or after the last repeat. ``batches``: the whole gauntlet's
    blocks in repeat order, ``per_round`` of them a repeat."""

    def __init__(self, batches: Sequence[TableBatch], per_round: int, stop: GauntletStop) -> None:
        self.batches = tuple(batches)
        self.per_round = per_round
        self.stop = stop
        self._round = 0  # the first round not counted in ``stop``

    def _rounds(self) -> list[list[TableBatch]]:
        return [list(self.batches[i : i + self.per_round]) for i in range(0, len(self.batches), self.per_round)]

    @property
    def total(self) -> int:
        """The games of every repeat: the most the gauntlet plays."""
        return sum(len(b.games) for b in self.batches)

    def next_round(self, results: Results) -> list[TableBatch]:
        from referee.contest.counting import block_totals

        rounds = self._rounds()
        while self._round < len(rounds) and not self.stop.decided:
            batches = rounds[self._round]
            if any(g.game_id not in results for b in batches for g in b.games):
                return batches
            self.stop.record([block_totals(b, results) for b in batches])
            self._round += 1
        return []

    def game_ids(self) -> Iterable[str]:
        return (g.game_id for b in self.batches for g in b.games)

    def blocks(self, results: Results) -> list[TableBatch]:
        """The repeats ``results`` lead to, the first they do not complete included."""
        replay = GauntletSchedule(self.batches, self.per_round, self.stop.fresh())
        pending = replay.next_round(results)
        return [*self.batches[: replay._round * self.per_round], *pending]

    def over(self, stored: int) -> bool:
        return self.stop.decided or stored >= self.total

    def round_started(self) -> RoundStart:
        return RoundStart(self.stop.outcome())

    def outcome(self) -> GauntletOutcome:
        return self.stop.outcome()


class Gauntlet(Format):
    name = "gauntlet"
    summary = "--challenger entrants play the field, the field never meets itself"
    called = "this gauntlet"
    options = (CHALLENGERS, EARLY_STOP)
    symmetric = False  # challengers against a field

    def misplaced(self, option: Option[Any]) -> str:
        if option is EARLY_STOP:
            return "--early-stop applies to --format gauntlet only (a race always stops early: --confidence)"
        return "challengers (--challenger, or challenger = true in the manifest) need --format gauntlet"

    def check(self, params: FormatParams) -> None:
        from referee.contest.errors import ScheduleError

        names, k, challengers = params.names, params.table_size, CHALLENGERS.of(params)
        unknown = [c for c in challengers if c not in names]
        if unknown:
            raise ScheduleError(f"challenger {unknown[0]!r} is not an entrant")
        if not challengers:
            raise ScheduleError(
                "--format gauntlet needs challengers: --challenger BOT, or challenger = true in bots.toml"
            )
        if len(challengers) == len(names):
            raise ScheduleError("--format gauntlet needs a field: every entrant is a challenger")
        if len(challengers) < k - 1:
            raise ScheduleError(
                f"a gauntlet at tables of {k} needs {k - 1} challengers per table (field entrants never share a "
                f"table), got {len(challengers)}; use --table-size {len(challengers) + 1} or add challengers"
            )
        confidence = EARLY_STOP.of(params)
        if confidence is not None and not 0.5 <= confidence < 1:
            raise ScheduleError(f"--early-stop is a confidence: at least 0.5 and below 1 (e.g. 0.95), got {confidence}")

    def planned_games(self, params: FormatParams) -> int:
        k, challengers = params.table_size, CHALLENGERS.of(params)
        field = len(params.names) - len(challengers)
        return field * math.comb(len(challengers), k - 1) * k * params.repeats

    def batches(self, params: FormatParams, secret: DealSecret | None) -> list[TableBatch]:
        """Every repeat's blocks in order, a repeat being every table once (without a secret: bookkeeping only)."""
        from referee.contest.schedule import table_batches
        from referee.tournament.designs import gauntlet_tables

        tables = gauntlet_tables(params.names, CHALLENGERS.of(params), params.table_size)
        return table_batches([(r, table) for r in range(params.repeats) for table in tables], params.seed, secret)

    def schedule(self, params: FormatParams, secret: DealSecret | None) -> Schedule:
        """Every repeat at once; with ``--early-stop``, one repeat a round (``GauntletSchedule``)."""
        confidence = EARLY_STOP.of(params)
        if confidence is None:
            return super().schedule(params, secret)
        from referee.tournament.designs import gauntlet_tables
        from referee.tournament.formats.gauntlet_stop import GauntletStop

        challengers = CHALLENGERS.of(params)
        per_round = len(gauntlet_tables(params.names, challengers, params.table_size))
        return GauntletSchedule(self.batches(params, secret), per_round, GauntletStop(challengers, confidence))

    def decides_as_it_goes(self, params: FormatParams) -> bool:
        return EARLY_STOP.of(params) is not None

    def decide(self, params: FormatParams, results: Results) -> GauntletOutcome | None:
        """With ``--early-stop``: each challenger's verdict against the field, replayed from ``results`` (and, once
        it stopped early, the games of the rounds it played: all it plans)."""
        if EARLY_STOP.of(params) is None:
            return None
        schedule = self.schedule(params, None)
        assert isinstance(schedule, GauntletSchedule)
        schedule.next_round(results)
        played = sum(len(b.games) for b in schedule.blocks(results)) if schedule.stop.decided else None
        return schedule.stop.outcome(played)

    def table_size(self, size: int, options: Mapping[str, Any]) -> int:
        """At most one seat more than the challengers given."""
        challengers = options.get(CHALLENGERS.name)
        return min(size, len(challengers) + 1) if challengers else size

    def describe(self, params: FormatParams, entrants: str) -> str:
        challengers = ", ".join(CHALLENGERS.of(params))
        confidence = EARLY_STOP.of(params)
        stop = "" if confidence is None else f" at most, stopping once every challenger is decided at {confidence:.0%}"
        return f"gauntlet: {entrants}, challengers {challengers}, {self.planned_games(params):,} games{stop}"


FORMAT = Gauntlet()
