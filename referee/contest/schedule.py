"""The round-robin schedule: who plays whom, in which seats, on which deal.

Every combination of ``table_size`` entrants forms a *table*. A table plays one game per seat rotation, all on the
same deal (the duplicate format: every entrant of the table plays every seat's cards), so no entrant is favoured by
the cards. The rotations are those of the cyclic seat orders ``seating.block_seatings`` takes from the seed and the
table's sorted names (both directions at 3 seats; at 4 one, balanced over the table's repeats), never from the
order the entrants were listed in, so no entrant always acts after another. The whole round robin is repeated
``repeats`` times with fresh deals.

The schedule is a pure function of (entrant names in order, table size, repeats, seed, deal secret): a resumed
run and a run on another machine produce exactly the same games with the same ids. The deal of a table batch
comes from the tournament's secret (``referee.contest.deal_secret``): the seed, the ids and the schedule tell
nothing of the cards. Game ids are ``g`` + a 6-digit ordinal in
schedule order (repeat, then table, then seat order), so sorting by id is sorting by schedule order up to 999,999
games; ``ScheduledGame.ordinal`` is the order at any size.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from referee.contest.deal_secret import DealSecret
from referee.contest.errors import ScheduleError
from referee.contest.seating import block_seatings
from referee.engine import MAX_PLAYERS, MIN_PLAYERS

__all__ = ["ScheduledGame", "TableBatch", "default_table_size", "make_schedule", "table_batches"]


@dataclass(frozen=True, slots=True)
class ScheduledGame:
    """One game of the schedule. ``seats[i]`` is the entrant name in seat i; ``seed`` deals the cards; ``rotation``
    is the game's place in its block (0 to ``seating.games_per_block(k) - 1``: the seat orders of the block)."""

    game_id: str
    ordinal: int
    batch: int
    repeat: int
    rotation: int
    seats: tuple[str, ...]
    seed: int


@dataclass(frozen=True, slots=True)
class TableBatch:
    """Every rotation of one table in one repeat: the unit of work an executor plays (all on one deal)."""

    batch: int
    games: tuple[ScheduledGame, ...]

    @property
    def entrants(self) -> tuple[str, ...]:
        """The table's entrants, in the seat order of its first rotation (its cyclic seat order)."""
        return self.games[0].seats


def default_table_size(entrants: int) -> int:
    """``min(4, entrants)``: the largest table the game allows."""
    return min(MAX_PLAYERS, entrants)


def make_schedule(
    entrants: Sequence[str], *, table_size: int, repeats: int, seed: int, secret: DealSecret
) -> list[TableBatch]:
    """The full schedule as table batches in game-id order; batch ``b`` is dealt ``secret.seed(seed, b)``.

    ``len(result)`` is ``C(len(entrants), table_size) * repeats`` and every batch holds
    ``seating.games_per_block(table_size)`` games.
    Raises ``ScheduleError`` for fewer than 2 entrants, duplicate names, a table size outside 2..4 or larger
    than the number of entrants, or fewer than 1 repeat.
    """
    names = tuple(entrants)
    if len(names) < MIN_PLAYERS:
        raise ScheduleError(f"a tournament needs at least {MIN_PLAYERS} entrants, got {len(names)}")
    if len(set(names)) != len(names):
        raise ScheduleError(f"entrant names must be unique, got {', '.join(names)}")
    if not MIN_PLAYERS <= table_size <= MAX_PLAYERS:
        raise ScheduleError(f"table size must be {MIN_PLAYERS} to {MAX_PLAYERS}, got {table_size}")
    if table_size > len(names):
        raise ScheduleError(f"table size {table_size} is larger than the number of entrants ({len(names)})")
    if repeats < 1:
        raise ScheduleError(f"the number of games per table must be at least 1, got {repeats}")
    tables = list(itertools.combinations(names, table_size))
    return table_batches([(repeat, table) for repeat in range(repeats) for table in tables], seed, secret)


def table_batches(
    tables: Sequence[tuple[int, tuple[str, ...]]],
    seed: int,
    secret: DealSecret | None,
    *,
    first_batch: int = 0,
    first_ordinal: int = 0,
    seatings: Counter[frozenset[str]] | None = None,
) -> list[TableBatch]:
    """Blocks from ``(repeat, entrants)`` pairs, in order, numbered on from ``first_batch`` and ``first_ordinal``:
    every game of the block's seat orders on the deal ``secret.seed(seed, batch)``. Without a secret (bookkeeping
    only, e.g. replaying a race's schedule for its standings) every deal seed is 0.

    The order of the entrants in a pair does not matter: the n-th block of the same entrants (counted in this call,
    after the ``seatings`` earlier calls counted, which this call updates) sits in ``block_seatings(entrants, seed,
    n)``."""
    batches: list[TableBatch] = []
    ordinal = first_ordinal
    seen: Counter[frozenset[str]] = Counter() if seatings is None else seatings
    for repeat, entrants in tables:
        batch_no = first_batch + len(batches)
        deal_seed = 0 if secret is None else secret.seed(seed, batch_no)
        key = frozenset(entrants)
        orders = block_seatings(entrants, seed, seen[key])
        seen[key] += 1
        games = []
        for rotation, seats in enumerate(orders):
            ordinal += 1
            games.append(ScheduledGame(f"g{ordinal:06d}", ordinal, batch_no, repeat, rotation, seats, deal_seed))
        batches.append(TableBatch(batch_no, tuple(games)))
    return batches
