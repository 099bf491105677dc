"""The tables of the formats that are not every combination (``referee.tournament.formats`` uses them).

- ``balanced``: an incomplete design. Every entrant sits at exactly ``tables_per_entrant`` tables and pairs of
  entrants meet as evenly as possible: a seeded greedy construction (each table is filled from the entrants with the
  most seats still to fill, preferring those who met the table's entrants least) followed by swaps of two entrants
  between tables that lower the sum of squared pair meetings. Games grow as entrants × tables per entrant.
- ``gauntlet``: every table holds one entrant of the field and ``table_size - 1`` challengers, each combination of
  challengers against each field entrant, ``repeats`` times: field entrants never share a table.

Every table becomes a block (one deal, every seat rotation of the cyclic seat order ``seating`` draws for it:
``schedule.table_batches``). Both are pure functions of their arguments.
"""

from __future__ import annotations

import bisect
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
    """How often each pair of entrant indices shares a table (a flat ``n x n`` table, both halves kept), with a
    histogram of those counts over all pairs, and the pairs that have met at some time, in the order they first
    did (the annealing's choices go by that order)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.count = [0] * (n * n)  # count[a * n + b] == count[b * n + a]
        self.histogram = [n * (n - 1) // 2]  # histogram[c]: pairs that met c times
        self._seen = bytearray(n * n)
        self.order: list[int] = []  # a * n + b (a < b) of every pair that met, first meeting first

    def __call__(self, a: int, b: int) -> int:
        return self.count[a * self.n + b]

    def bump(self, a: int, b: int, by: int) -> None:
        n = self.n
        key = a * n + b if a < b else b * n + a
        count = self.count
        old = count[key]
        new = old + by
        count[key] = count[(key % n) * n + key // n] = new
        if not self._seen[key]:
            self._seen[key] = 1
            self.order.append(key)
        histogram = self.histogram
        histogram[old] -= 1
        while len(histogram) <= new:
            histogram.append(0)
        histogram[new] += 1

    def spread(self) -> int:
        """The most meetings of a pair minus the fewest (pairs that never met count 0)."""
        while len(self.histogram) > 1 and not self.histogram[-1]:
            self.histogram.pop()
        low = next(c for c, pairs in enumerate(self.histogram) if pairs)
        return len(self.histogram) - 1 - low

    def most_met(self) -> list[tuple[int, int]]:
        """The pairs that met most often (call ``spread`` first), in the order they first met."""
        high, n, count = len(self.histogram) - 1, self.n, self.count
        return [divmod(key, n) for key in self.order if count[key] == high]


def balanced_tables(names: Sequence[str], k: int, tables_per_entrant: int, seed: int) -> list[tuple[str, ...]]:
    """``len(names) * tables_per_entrant / k`` tables of ``k`` distinct entrants; every entrant at exactly
    ``tables_per_entrant`` of them, pair meetings spread as evenly as the construction reaches (``_even_out``)."""
    n = len(names)
    rng = random.Random(f"referee-balanced/{seed}/{n}/{k}/{tables_per_entrant}")
    meet = _Meetings(n)
    count = meet.count
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
            best = min(candidates, key=lambda c: sum(count[c * n + x] for x in table))
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
    count, n = meet.count, meet.n
    rb, rc = b * n, c * n
    gain = 0
    for o in x:
        if o != b:
            gain += 2 * (count[rc + o] - count[rb + o]) + 2
    for o in y:
        if o != c:
            gain += 2 * (count[rb + o] - count[rc + o]) + 2
    return gain


def _tables_of(mask: int) -> list[int]:
    """The table indexes set in ``mask``, in increasing order."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _even_out(tables: list[list[int]], meet: _Meetings, rng: random.Random, steps: int = 200_000) -> None:
    """Simulated annealing on the sum of squared pair meetings (its minimum spreads the meetings most evenly):
    swap an entrant of a most-met pair (or, one time in four, any entrant) with an entrant of another table, keep the
    swap when it does not raise the sum, or with probability exp(-rise / temperature) when it does; stop as soon
    as every pair meets within one of every other, or after ``steps`` tries.

    The draws are those of ``rng.choice`` and ``rng.random`` in a fixed order, so a seed gives one schedule (the
    one earlier versions drew: stored tournaments resume and ``verify-deals`` on it); what is kept to make each step
    cheap (the pairs' counts in a flat table, each entrant's tables as a bit mask and a sorted list) changes none
    of the draws."""
    if not tables:
        return
    temperature, cooling = 1.0, (0.01 / 1.0) ** (1 / steps)
    hot: list[tuple[int, int]] = []
    n = meet.n
    choice, draw = rng.choice, rng.random
    everywhere = range(len(tables))
    # entrant -> the indexes of the tables it sits at: a bit mask (the tables a pair shares) and a sorted list
    mask = [0] * n
    seated: list[list[int]] = [[] for _ in range(n)]
    for i, t in enumerate(tables):
        for e in t:
            mask[e] |= 1 << i
            seated[e].append(i)
    for step in range(steps):
        if meet.spread() <= 1:
            return
        if step % 256 == 0:
            hot = meet.most_met()
        temperature *= cooling
        if hot and draw() < 0.75:
            a, b = choice(hot)
            b = b if draw() < 0.5 else a
            shared = seated[a] if a == b else _tables_of(mask[a] & mask[b])
            xi = choice(shared or everywhere)
        else:
            xi = choice(everywhere)
            x = tables[xi]
            b = choice(x)
        yi = choice(everywhere)
        x, y = tables[xi], tables[yi]
        c = choice(y)
        if b not in x or b in y or c in x:
            continue
        gain = _swap_gain(meet, x, b, y, c)
        if gain > 0 and draw() >= math.exp(-gain / temperature):
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
        mask[b] ^= (1 << xi) | (1 << yi)
        mask[c] ^= (1 << xi) | (1 << yi)
        seated[b].remove(xi)
        bisect.insort(seated[b], yi)
        seated[c].remove(yi)
        bisect.insort(seated[c], xi)
