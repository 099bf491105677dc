"""``--format round-robin``: every combination of ``table_size`` entrants, ``repeats`` times (``make_schedule``)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from referee.tournament.formats.base import Format, FormatParams

if TYPE_CHECKING:
    from referee.contest.deal_secret import DealSecret
    from referee.contest.schedule import TableBatch

__all__ = ["FORMAT", "RoundRobin"]


class RoundRobin(Format):
    name = "round-robin"
    summary = "every combination of entrants"
    called = "a round robin"
    over_budget = "; use --format balanced --tables-per-entrant T or --format race, or raise --max-games"

    def planned_games(self, params: FormatParams) -> int:
        k = params.table_size
        return math.comb(len(params.names), k) * k * params.repeats

    def batches(self, params: FormatParams, secret: DealSecret) -> list[TableBatch]:
        from referee.contest.schedule import make_schedule

        return make_schedule(
            params.names, table_size=params.table_size, repeats=params.repeats, seed=params.seed, secret=secret
        )

    def describe(self, params: FormatParams, entrants: str) -> str:
        games = self.planned_games(params)
        return f"tournament: {entrants}, {params.repeats} deal(s) per table, {games:,} games"


FORMAT = RoundRobin()
