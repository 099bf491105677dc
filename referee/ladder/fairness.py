"""The matchmaker's fairness, read from played blocks: the share of blocks at each table size, how far any version's
most-met opponent goes past its fair share, and whether the field is connected (every two versions joined by a path
of shared blocks).

A version's **fair share** against one opponent is its opponents met (a block at a table of k counts k - 1), spread
evenly over the other entrants that played; its **pair ratio** is the blocks it shared with its most-met opponent
over that share (1 under uniform tables, ``pair_cap`` at most under the matchmaker's bound, up to a block). These
are the figures of docs/ladder.md's bounds, printed by ``bench/bench_matchmaker.py`` for a simulated field and by
``bench/bench_ladder_real.py`` for a real one.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = ["Fairness", "fairness"]


@dataclass(frozen=True, slots=True)
class Fairness:
    """Figures over a set of blocks (see the module's docstring)."""

    blocks: int
    games: int
    sizes: dict[int, float]  # table size -> its share of the blocks
    worst_pair: float  # the largest pair ratio of any version (0 when no version met another)
    worst_pair_of: tuple[int, int] | None  # (the version, its most-met opponent)
    connected: bool

    def size_gap(self, sizes: Sequence[int], weights: Sequence[float]) -> float:
        """The largest gap, in points of percentage, between a size's share of the blocks and its weight's share."""
        total = sum(weights)
        return max(abs(100 * (self.sizes.get(k, 0.0) - w / total)) for k, w in zip(sizes, weights, strict=True))


def fairness(tables: Sequence[Sequence[int]], entrant_of: Mapping[int, int]) -> Fairness:
    """The figures of blocks played at ``tables`` (each block's versions), whose entrants are ``entrant_of``."""
    met: Counter[tuple[int, int]] = Counter()
    opponents: Counter[int] = Counter()
    sizes: Counter[int] = Counter()
    parent: dict[int, int] = {}

    def root(v: int) -> int:
        parent.setdefault(v, v)
        while parent[v] != v:
            parent[v] = parent[parent[v]]
            v = parent[v]
        return v

    for seats in tables:
        sizes[len(seats)] += 1
        for v in seats:
            opponents[v] += len(seats) - 1
            parent[root(v)] = root(seats[0])
        for i, a in enumerate(seats):
            for b in seats[i + 1 :]:
                met[(a, b)] += 1
                met[(b, a)] += 1
    entrants = {entrant_of[v] for v in opponents}
    worst, worst_of = 0.0, None
    most: dict[int, tuple[int, int]] = {}
    for (a, b), n in met.items():
        if n > most.get(a, (0, 0))[0]:
            most[a] = (n, b)
    for v, (n, w) in most.items():
        others = len(entrants - {entrant_of[v]})
        ratio = n / (opponents[v] / others)
        if ratio > worst:
            worst, worst_of = ratio, (v, w)
    blocks = len(tables)
    return Fairness(
        blocks=blocks,
        games=sum(len(seats) for seats in tables),
        sizes={k: n / blocks for k, n in sorted(sizes.items())},
        worst_pair=worst,
        worst_pair_of=worst_of,
        connected=len({root(v) for v in parent}) <= 1,
    )
