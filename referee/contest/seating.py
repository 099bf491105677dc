"""Seat orders that cancel out: which cyclic order a table's entrants sit in, never the order they were listed in.

A block plays one deal in every seat rotation of one cyclic order, so that every entrant of the table plays every
seat's cards once. Within a block each entrant has the same neighbours on the same sides in every game, and that
seat relation (who acts right after whom) changes the results: if a table always used the same cyclic order, the
entrant listed after another would always play after it, and two copies of one program would not come out level.

So the cyclic order of a block is drawn per deal: a table of k entrants has (k - 1)! cyclic orders (one at 2 seats,
whose two rotations are both seat orders; the two directions round the table at 3; six at 4), and the i-th block of
a table takes the i-th order of a shuffle of them keyed by the seed and the table's entrants in sorted order (their
listing order plays no part), cycling. A table's repeats therefore go through every cyclic order equally often (at 3
seats the two directions alternate), and a table seated once gets one drawn uniformly at random: every entrant sits
right after every other as often as right before it, exactly over (k - 1)! repeats of a table and in expectation
otherwise. The seat order is part of a block's randomisation, and every statistic is over blocks, so the intervals
account for it (two copies of one program are level in expectation, within their interval).

Playing every cyclic order inside each block (6 games a block at 3 seats, 24 at 4) would cancel the seat relation
within the block, at the price of blocks 2 or 6 times as long and as many bot processes per deal; the block stays
one cyclic order (k games). Pure: a function of the names, the seed and the index.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence

__all__ = ["block_seatings", "cyclic_orders", "games_per_block", "seat_cycle"]


def games_per_block(table_size: int) -> int:
    """The games of one block: every rotation of its cyclic order, one per seat."""
    return table_size


def cyclic_orders(entrants: Sequence[str]) -> list[tuple[str, ...]]:
    """The (k - 1)! cyclic orders of ``entrants``, each written from the first in sorted order."""
    first, *rest = sorted(entrants)
    return [(first, *perm) for perm in itertools.permutations(rest)]


def seat_cycle(entrants: Sequence[str], seed: int, index: int) -> tuple[str, ...]:
    """The cyclic seat order of the ``index``-th seating (from 0) of the table ``entrants`` (any order; names
    distinct) in the tournament with ``seed``: its rotations are the block's games. Raises ``ValueError`` for a
    repeated name or a negative index."""
    if len(set(entrants)) != len(entrants):
        raise ValueError(f"a table's entrants must be distinct, got {', '.join(entrants)}")
    if index < 0:
        raise ValueError(f"a seating index is 0 or more, got {index}")
    orders = cyclic_orders(entrants)
    if len(orders) == 1:
        return orders[0]
    key = "\x1f".join(sorted(entrants))
    shuffled = list(range(math.factorial(len(entrants) - 1)))
    random.Random(f"referee-seats/1/{seed}/{key}").shuffle(shuffled)
    return orders[shuffled[index % len(shuffled)]]


def block_seatings(entrants: Sequence[str], seed: int, index: int) -> list[tuple[str, ...]]:
    """The seats of every game of the ``index``-th block of the table ``entrants``, in play order: the rotations of
    its cyclic order (``seat_cycle``). Raises ``ValueError`` as ``seat_cycle``."""
    cycle = seat_cycle(entrants, seed, index)
    return [cycle[r:] + cycle[:r] for r in range(len(cycle))]
