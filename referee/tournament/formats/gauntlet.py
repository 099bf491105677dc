"""``--format gauntlet``: every table holds one entrant of the field and ``table_size - 1`` challengers, each
combination of challengers against each field entrant, ``repeats`` times: field entrants never share a table."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from referee.tournament.formats.base import Format
from referee.tournament.options import Option, strings

if TYPE_CHECKING:
    from referee.tournament.deals import DealSecret
    from referee.tournament.params import TournamentParams
    from referee.tournament.schedule import TableBatch

__all__ = ["CHALLENGERS", "FORMAT", "Gauntlet"]

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


class Gauntlet(Format):
    name = "gauntlet"
    summary = "--challenger entrants play the field, the field never meets itself"
    called = "this gauntlet"
    options = (CHALLENGERS,)

    def misplaced(self, option: Option[Any]) -> str:
        return "challengers (--challenger, or challenger = true in the manifest) need --format gauntlet"

    def check(self, params: TournamentParams) -> None:
        from referee.tournament.schedule import ScheduleError

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

    def planned_games(self, params: TournamentParams) -> int:
        k, challengers = params.table_size, CHALLENGERS.of(params)
        field = len(params.entrants) - len(challengers)
        return field * math.comb(len(challengers), k - 1) * k * params.repeats

    def batches(self, params: TournamentParams, secret: DealSecret) -> list[TableBatch]:
        from referee.tournament.designs import gauntlet_tables
        from referee.tournament.schedule import table_batches

        tables = gauntlet_tables(params.names, CHALLENGERS.of(params), params.table_size)
        return table_batches([(r, table) for r in range(params.repeats) for table in tables], params.seed, secret)

    def table_size(self, size: int, options: Mapping[str, Any]) -> int:
        """At most one seat more than the challengers given."""
        challengers = options.get(CHALLENGERS.name)
        return min(size, len(challengers) + 1) if challengers else size

    def describe(self, params: TournamentParams, entrants: str) -> str:
        challengers = ", ".join(CHALLENGERS.of(params))
        return f"gauntlet: {entrants}, challengers {challengers}, {self.planned_games(params):,} games"


FORMAT = Gauntlet()
