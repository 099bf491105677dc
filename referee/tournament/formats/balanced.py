"""``--format balanced``: every entrant at ``--tables-per-entrant`` tables, pairs meeting as evenly as the
construction reaches (``designs.balanced_tables``); games grow as entrants x tables per entrant."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from referee.tournament.formats.base import Format, FormatParams
from referee.tournament.options import Option, optional

if TYPE_CHECKING:
    from referee.contest.deal_secret import DealSecret
    from referee.contest.schedule import TableBatch

__all__ = ["FORMAT", "TABLES_PER_ENTRANT", "Balanced"]

TABLES_PER_ENTRANT: Option[int | None] = Option(
    "tables_per_entrant",
    None,
    optional(int),
    flag="--tables-per-entrant",
    kind=int,
    help="balanced: the tables (deals) each entrant sits at.",
)


class Balanced(Format):
    name = "balanced"
    summary = "every entrant at --tables-per-entrant tables, pairs meeting evenly"
    called = "this balanced schedule"
    options = (TABLES_PER_ENTRANT,)
    deals_per_table = False

    def check(self, params: FormatParams) -> None:
        from referee.contest.errors import ScheduleError

        n, k, tables = len(params.names), params.table_size, TABLES_PER_ENTRANT.of(params)
        if tables is None:
            raise ScheduleError("--format balanced needs --tables-per-entrant T (the tables each entrant sits at)")
        if tables < 1:
            raise ScheduleError(f"--tables-per-entrant must be at least 1, got {tables}")
        if n * tables % k:
            step = k // math.gcd(n, k)
            options = ", ".join(str(step * i) for i in range(1, 4))
            raise ScheduleError(
                f"--tables-per-entrant {tables} with {n} entrants at tables of {k} leaves seats empty "
                f"(entrants x tables must be a multiple of {k}); use {options}, ..."
            )

    def planned_games(self, params: FormatParams) -> int:
        return len(params.names) * (TABLES_PER_ENTRANT.of(params) or 0)

    def batches(self, params: FormatParams, secret: DealSecret) -> list[TableBatch]:
        from referee.contest.schedule import table_batches
        from referee.tournament.designs import balanced_tables

        tables_per_entrant = TABLES_PER_ENTRANT.of(params)
        assert tables_per_entrant is not None
        tables = balanced_tables(params.names, params.table_size, tables_per_entrant, params.seed)
        return table_batches([(0, table) for table in tables], params.seed, secret)

    def describe(self, params: FormatParams, entrants: str) -> str:
        per = TABLES_PER_ENTRANT.of(params)
        return f"balanced tournament: {entrants}, {per} tables per entrant, {self.planned_games(params):,} games"


FORMAT = Balanced()
