"""How a game's result counts in every statistic: a forfeit is the worst result at its table.

A forfeiter drops out at once and takes the card penalty for its hand (RULES.md), which can be less than what a
weak player who plays on ends with: counted as it stands, an entrant that forfeits every game could beat the field
on points and matchpoints. The engine's ranks already place a forfeiting seat below every seat that did not forfeit;
points are brought in line here. In every statistic over scores (mean scores, matchpoints and relative scores of
blocks, head-to-head differences, the race, ``referee compare``, the ladder), a forfeiting seat's score counts as one
point more than the highest score of a seat of the same game that did not forfeit, or as its own score when that is
higher. So a forfeit is strictly the worst result at its table, an entrant that forfeits every game loses every
block to every entrant that played, and scores with no forfeit count as they are. When every seat forfeited, the
scores count as they are. The game logs and the results database keep the scores as played.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from referee.contest.schedule import TableBatch

__all__ = ["FORFEITED", "CountedSeat", "block_totals", "counted_scores"]

#: Added to the block total of an entrant that forfeited a game of the block: totals are compared only within a
#: table, so this places it below every entrant that did not (the forfeit rule of ``block_stats.block_outcomes``).
FORFEITED = 1e9


class CountedSeat(Protocol):
    """A seat of a finished game: its final score and, when it forfeited, the kind of its fault."""

    @property
    def score(self) -> int: ...

    @property
    def forfeit_kind(self) -> str | None: ...


def counted_scores(seats: Sequence[CountedSeat]) -> list[int]:
    """The scores of a game's ``seats`` (in seat order) as every statistic counts them: a forfeiting seat's score is
    raised to one more than the highest score of a seat that did not forfeit (see the module's docstring)."""
    played = [s.score for s in seats if s.forfeit_kind is None]
    if not played or len(played) == len(seats):
        return [s.score for s in seats]
    worst = max(played) + 1
    return [s.score if s.forfeit_kind is None else max(s.score, worst) for s in seats]


def block_totals(batch: TableBatch, results: Mapping[str, Sequence[CountedSeat]]) -> dict[str, float]:
    """Each entrant's total over the block ``batch`` (``results``: game id → its seats, every game of the block
    there, each seat with its ``entrant``), a forfeit counted as the worst score at its table (``counted_scores``)
    and ``FORFEITED`` more for an entrant that forfeited a game of the block. Lower is better."""
    totals: dict[str, float] = dict.fromkeys(batch.entrants, 0.0)
    forfeited: set[str] = set()
    for g in batch.games:
        rows = results[g.game_id]
        for entrant, row, score in zip(g.seats, rows, counted_scores(rows), strict=True):
            totals[entrant] += score
            if row.forfeit_kind is not None:
                forfeited.add(entrant)
    return {e: t + FORFEITED * (e in forfeited) for e, t in totals.items()}
