"""The tables of the formats that are not every combination (``referee.tournament.formats`` uses them).

- ``balanced``: an incomplete design. Every entrant sits at exactly ``tables_per_entrant`` tables and pairs of
  entrants meet as evenly as possible: a seeded greedy construction (each table is filled from the entrants with the
  most seats still to fill, preferring those who met the table's entrants least) followed by swaps of two entrants
  between tables that lower the sum of squared pair meetings. Games grow as entrants × tables per entrant.
- ``gauntlet``: every table holds one entrant of the field and ``table_size - 1`` challengers, each combination of
  challengers against each field entrant, ``repeats`` times: field entrants never share a table.

Every table becomes a block (one deal, every seat rotation: ``schedule.table_batches``). Both are pure functions of
their arguments.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence

__all__ = ["balanced_tables", "gauntlet_tables"]


def gauntlet_tables(names: Sequence[str], challengers: Sequence[str], k: int) -> list[tuple[str, ...]]:
    """Each field entrant with each combination of ``k - 1`` challengers (challengers first, in entrant order)."""
    chosen = set(challengers)
    ordered = [n for n in names if n in chosen]
    field = [n for n in names if n not in chosen]
    return [(*combo, f) for f in field for combo in itertools.combinations(ordered, k - 1)]


class _Meetings:
    """How often each pair of entrant indices shares a table, with a histogram of those counts over all pairs."""

    def __init__(self, n: int) -> None:
        self.count: dict[tuple[int, int], int] = {}
        self.histogram = [n * (n - 1) // 2]  # histogram[c]: pairs that met c times

    def __call__(self, a: int, b: int) -> int:
        return self.count.get((a, b) if a < b else (b, a), 0)

    def bump(self, a: int, b: int, by: int) -> None:
        key = (a, b) if a < b else (b, a)
        old = self.count.get(key, 0)
        new = old + by
        self.count[key] = new
        self.histogram[old] -= 1
        while len(self.histogram) <= new:
            self.histogram.append(0)
        self.histogram[new] += 1

    def spread(self) -> int:
        """The most meetings of a pair minus the fewest (pairs that never met count 0)."""
        while len(self.histogram) > 1 and not self.histogram[-1]:
            self.histogram.pop()
        low = next(c for c, pairs in enumerate(self.histogram) if pairs)
        return len(self.histogram) - 1 - low


def balanced_tables(names: Sequence[str], k: int, tables_per_entrant: int, seed: int) -> list[tuple[str, ...]]:
    """``len(names) * tables_per_entrant / k`` tables of ``k`` distinct entrants; every entrant at exactly
    ``tables_per_entrant`` of them, pair meetings spread as evenly as the construction reaches (``_even_out``)."""
    n = len(names)
    rng = random.Random(f"referee-balanced/{seed}/{n}/{k}/{tables_per_entrant}")
    meet = _Meetings(n)
    remaining = [tables_per_entrant] * n
    pool: list[int] = []  # the entrants with the most seats still to fill, in random order
    tables: list[list[int]] = []
    for _ in range(n * tables_per_entrant // k):
        table: list[int] = []
        while len(table) < k:
            if not [c for c in pool if c not in table]:
                most = max(remaining[c] for c in range(n) if c not in table)
                pool = [c for c in range(n) if remaining[c] == most and c not in pool]
                rng.shuffle(pool)
            candidates = [c for c in pool[:48] if c not in table] or [c for c in pool if c not in table]
            best = min(candidates, key=lambda c: sum(meet(c, x) for x in table))
            pool.remove(best)
            table.append(best)
            remaining[best] -= 1
        for a, b in itertools.combinations(table, 2):
            meet.bump(a, b, 1)
        tables.append(table)
    _even_out(tables, meet, rng)
    return [tuple(names[i] for i in sorted(t)) for t in tables]


def _swap_gain(meet: _Meetings, x: list[int], b: int, y: list[int], c: int) -> int:
    """The change of the sum of squared pair meetings when ``b`` (of table ``x``) and ``c`` (of ``y``) swap."""
    return sum(2 * (meet(c, o) - meet(b, o)) + 2 for o in x if o != b) + sum(
        2 * (meet(b, o) - meet(c, o)) + 2 for o in y if o != c
    )


def _even_out(tables: list[list[int]], meet: _Meetings, rng: random.Random, steps: int = 200_000) -> None:
    """Simulated annealing on the sum of squared pair meetings (its minimum spreads the meetings most evenly):
    swap an entrant of a most-met pair (or, one time in four, any entrant) with an entrant of another table, keep the
    swap when it does not raise the sum, or with probability exp(-rise / temperature) when it does; stop as soon
    as every pair meets within one of every other, or after ``steps`` tries."""
    if not tables:
        return
    temperature, cooling = 1.0, (0.01 / 1.0) ** (1 / steps)
    hot: list[tuple[int, int]] = []
    everywhere = range(len(tables))
    # entrant -> the indexes of the tables it sits at, so that the tables a pair shares are found without a scan of
    # every table (the same tables, in the same order: the same choices, the same schedule)
    seated: dict[int, set[int]] = {}
    for i, t in enumerate(tables):
        for e in t:
            seated.setdefault(e, set()).add(i)
    for step in range(steps):
        if meet.spread() <= 1:
            return
        if step % 256 == 0:
            high = len(meet.histogram) - 1
            hot = [p for p, v in meet.count.items() if v == high]
        temperature *= cooling
        if hot and rng.random() < 0.75:
            a, b = rng.choice(hot)
            b = b if rng.random() < 0.5 else a
            shared = sorted(seated[a] & seated[b])
            xi = rng.choice(shared or everywhere)
        else:
            xi = rng.choice(everywhere)
            b = rng.choice(tables[xi])
        yi = rng.choice(everywhere)
        x, y = tables[xi], tables[yi]
        c = rng.choice(y)
        if b not in x or b in y or c in x:
            continue
        gain = _swap_gain(meet, x, b, y, c)
        if gain > 0 and rng.random() >= math.exp(-gain / temperature):
            continue
        for o in x:
            if o != b:
                meet.bump(b, o, -1)
                meet.bump(c, o, 1)
        for o in y:
            if o != c:
                meet.bump(c, o, -1)
                meet.bump(b, o, 1)
        x[x.index(b)], y[y.index(c)] = c, b
        seated[b].discard(xi)
        seated[b].add(yi)
        seated[c].discard(yi)
        seated[c].add(xi)
