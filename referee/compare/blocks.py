"""The games of a comparison, block by block, and each block's paired difference. Pure: no IO.

A *block* is one deal at one table: NEW (or OLD) and ``table_size - 1`` opponents from the panel, in every seat
rotation, played once with NEW and once with OLD in the same seat against the same opponents on the same cards:
``2 * table_size`` games. Block ``b`` seats the panel's ``b``-th combination of ``table_size - 1`` opponents
(cycling through them in order) and is dealt ``secret.seed(seed, b)``: from the comparison's deal secret, as a
tournament's tables are (``referee.tournament.deals``), so no bot can derive the cards. The games' ids follow
the tournament's form, ``g`` + ordinal, with ``ordinal = b * 2k + side * k + rotation + 1`` (side 0 is NEW, 1 is OLD),
and every game of a block has batch ``b``: one deal, so the executor never plays two of them at the same time.

A block's paired difference is, per game, OLD's result minus NEW's on the same rotation, averaged over the
rotations, in points (final scores) and in ranks: lower is better in 23, so a positive difference means NEW did
better. A forfeited game counts with the score and rank the engine gives the forfeiter, as in a tournament.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from referee.compare.errors import CompareError
from referee.tournament import DealSecret, ScheduledGame, SeatRow, TableBatch

__all__ = ["NEW", "OLD", "BlockResult", "block_batches", "block_of", "block_result", "games_per_block"]

#: The entrant names of the two versions in the results store.
NEW, OLD = "new", "old"


@dataclass(frozen=True, slots=True)
class BlockResult:
    """One finished block: its paired differences per game (OLD minus NEW) and each version's forfeits."""

    block: int
    points: float
    ranks: float
    forfeits: Mapping[str, int]


def games_per_block(table_size: int) -> int:
    return 2 * table_size


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
    out = []
    for side, name in enumerate((NEW, OLD)):
        table = (name, *opponents)
        games = []
        for rotation in range(table_size):
            ordinal = block * games_per_block(table_size) + side * table_size + rotation + 1
            seats = table[rotation:] + table[:rotation]
            games.append(ScheduledGame(f"g{ordinal:06d}", ordinal, block, block, rotation, seats, deal))
        out.append(TableBatch(block, tuple(games)))
    return out[0], out[1]


def block_result(block: int, table_size: int, seats: Mapping[int, Sequence[SeatRow]]) -> BlockResult | None:
    """The block's result from its games' seats (ordinal → seats in seat order); None while a game is missing."""
    first = block * games_per_block(table_size) + 1
    points = ranks = 0.0
    forfeits = {NEW: 0, OLD: 0}
    for rotation in range(table_size):
        rows = []
        for side, name in enumerate((NEW, OLD)):
            game = seats.get(first + side * table_size + rotation)
            if game is None:
                return None
            row = next(r for r in game if r.entrant == name)
            forfeits[name] += row.forfeit_kind is not None
            rows.append(row)
        new, old = rows
        points += old.score - new.score
        ranks += old.rank - new.rank
    return BlockResult(block, points / table_size, ranks / table_size, forfeits)
