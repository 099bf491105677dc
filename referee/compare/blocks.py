"""The games of a comparison, block by block, and each block's paired difference. Pure: no IO.

A *block* is one deal at one table: NEW (or OLD) and ``table_size - 1`` opponents from the panel, in every seat
rotation of the table's seat orders (``seating.block_seatings`` of the opponents and one more seat, balanced over the
combination's blocks as a tournament's repeats are), played once with NEW and once with OLD in the same seat against
the same opponents on the same cards: ``2 * seating.games_per_block(table_size)`` games. Block ``b`` seats the
panel's ``b``-th combination of ``table_size - 1`` opponents (cycling through them in order) and is dealt
``secret.seed(seed, b)``: from the comparison's deal secret, as a tournament's tables are
(``referee.contest.deal_secret``), so no bot can derive the cards. The games' ids follow the tournament's form, ``g`` +
ordinal, with ``ordinal = b * 2g + side * g + rotation + 1`` (side 0 is NEW, 1 is OLD; g the games of a tournament
block, ``seating.games_per_block``), and every game of a block has batch ``b``: one deal, so the executor never plays
two of them at the same time.

A block's *gain* is NEW's result against OLD's on the same deal, seats and opponents, in three metrics:
matchpoints (NEW's share of the opponents it beat over the block, minus OLD's), and, per game, OLD's final score
minus NEW's (points) and OLD's rank minus NEW's (ranks) on the same rotation, averaged over the rotations. Lower
scores and ranks are better in 23, so a positive gain means NEW did better in every metric. A forfeit counts as in
every statistic of a tournament: the forfeiter's rank is below every seat that did not forfeit, its score one more
than the worst of theirs (``counting.counted_scores``) when its own is not worse already, and a version that
forfeited a game of its side of the block beats none of the opponents that did not (matchpoints).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from referee.compare.errors import CompareError
from referee.tournament import DealSecret, DealTally, ScheduledGame, SeatRow, TableBatch, block_seatings, counted_scores
from referee.tournament import games_per_block as table_games

__all__ = ["NEW", "OLD", "BlockResult", "block_batches", "block_of", "block_result", "games_per_block"]

#: The entrant names of the two versions in the results store.
NEW, OLD = "new", "old"
#: The seat of NEW or OLD when a block's cyclic seat order is drawn (no entrant's name can be empty).
_VERSION_SEAT = ""


@dataclass(frozen=True, slots=True)
class BlockResult:
    """One finished block: NEW's gain over OLD (positive: NEW better) in each metric, and each version's forfeits.

    ``matchpoints``: NEW's matchpoints at its table minus OLD's at its table (each the share of the block's
    opponents whose total over the block's games the version's total beat, ties half), in [-1, 1]; ``points`` and
    ``ranks``: OLD's result minus NEW's on the same seat order and deal, per game (ranks within [-(k-1), k-1])."""

    block: int
    points: float
    ranks: float
    forfeits: Mapping[str, int]
    matchpoints: float = 0.0

    def gain(self, metric: str) -> float:
        """The gain in ``metric`` ("matchpoints", "ranks" or "points")."""
        return float(getattr(self, metric))


def games_per_block(table_size: int) -> int:
    """NEW's games of a block and OLD's: twice a tournament block's (``seating.games_per_block``)."""
    return 2 * table_games(table_size)


def block_of(ordinal: int, table_size: int) -> int:
    """The block a game's ordinal belongs to."""
    return (ordinal - 1) // games_per_block(table_size)


def block_batches(
    block: int, panel: Sequence[str], table_size: int, seed: int, secret: DealSecret
) -> tuple[TableBatch, TableBatch]:
    """The block's games as two table batches (NEW's rotations, then OLD's), in the tournament's schedule form.

    Raises ``CompareError`` when the panel has fewer than ``table_size - 1`` bots."""
    tables = list(itertools.combinations(panel, table_size - 1))
    if not tables:
        raise CompareError(f"a table of {table_size} needs at least {table_size - 1} panel bot(s), got {len(panel)}")
    opponents = tables[block % len(tables)]
    deal = secret.seed(seed, block)
    orders = block_seatings((_VERSION_SEAT, *opponents), seed, block // len(tables))
    out = []
    for side, name in enumerate((NEW, OLD)):
        games = []
        for rotation, order in enumerate(orders):
            ordinal = block * games_per_block(table_size) + side * len(orders) + rotation + 1
            seats = tuple(name if e == _VERSION_SEAT else e for e in order)
            games.append(ScheduledGame(f"g{ordinal:06d}", ordinal, block, block, rotation, seats, deal))
        out.append(TableBatch(block, tuple(games)))
    return out[0], out[1]


def block_result(block: int, table_size: int, seats: Mapping[int, Sequence[SeatRow]]) -> BlockResult | None:
    """The block's result from its games' seats (ordinal → seats in seat order); None while a game is missing."""
    first = block * games_per_block(table_size) + 1
    per_side = table_games(table_size)
    points = ranks = 0.0
    forfeits = {NEW: 0, OLD: 0}
    sides = (DealTally(), DealTally())  # each side's block: matchpoints with the forfeit rule of the statistics
    for rotation in range(per_side):
        rows = []
        for side, name in enumerate((NEW, OLD)):
            game = seats.get(first + side * per_side + rotation)
            if game is None:
                return None
            sides[side].add(block, game)
            counted = counted_scores(game)
            seat = next(i for i, r in enumerate(game) if r.entrant == name)
            forfeits[name] += game[seat].forfeit_kind is not None
            rows.append((counted[seat], game[seat].rank))
        (new_score, new_rank), (old_score, old_rank) = rows
        points += old_score - new_score
        ranks += old_rank - new_rank
    gain = sides[0].outcomes[NEW][block].matchpoints - sides[1].outcomes[OLD][block].matchpoints
    return BlockResult(block, points / per_side, ranks / per_side, forfeits, gain)
