"""The matchmaker: which block to play next, chosen for information, with fairness bounds.

A block is one deal at one table, every seat rotation. ``Matchmaker.choose`` picks its table size and its
versions from the field as it stands (``Candidate``s: rating, uncertainty, blocks played today, time waited,
placement left, live processes) by these rules, in order:

1. **Eligible**: a version that is not playing now, whose entrant has played at most ``share_cap`` x the mean of
   today's blocks per entrant (so that after this block it has at most ``share_cap`` x the mean + 1: the daily
   bound), and not two versions of one entrant at a table. When too few are eligible to fill the table drawn, it is
   played smaller; only when not even two are, the least-played other one joins (a small field cannot always keep
   the bound, and the ladder must not stop).
2. **Seed**: a version that has waited ``DUE`` (3/4) of ``max_wait`` seconds or more since its last block (the
   longest such wait first: the starvation bound); else a version in placement (its placement blocks come first,
   fewest done first); else one drawn at random with weight ``sigma² x (1 + deficit)``, where the deficit is how
   far its entrant is below the mean of today's blocks (Halite II's seeding weighted by sigma², with psyleague's
   "who played least" in the deficit).
3. **Table size**: drawn from ``table_sizes`` with ``table_weights`` among the sizes the eligible field can fill.
4. **Opponents**: the versions whose rating lies within ``window`` x sqrt(sigma_seed² + sigma²) of the seed's
   (with probability ``wide_share`` the whole field, so that it stays connected; the window doubles until it holds
   enough), and among them, one by one, the one that has met the versions already at the table least often (in
   blocks), a version with live processes first at equal counts (it costs no bot start), then at random.

The matchmaker is pure: the caller (``serve``, or the simulation of ``bench/bench_ladder.py``) keeps the field and
passes a ``random.Random``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from referee.ladder.config import GamesSection, MatchmakingSection

__all__ = ["Candidate", "Choice", "Matchmaker"]


@dataclass(frozen=True, slots=True)
class Candidate:
    """A version of the field as the matchmaker sees it."""

    id: int
    entrant: int
    mu: float
    sigma: float
    entrant_today: int  # blocks its entrant played today (UTC day)
    waited: float  # seconds since its last block ended (or since it became active)
    placement_left: int
    warm: bool = False
    games: int = 0  # games it has played (other rules than this one read it)


@dataclass(frozen=True, slots=True)
class Choice:
    """A block to play: the versions in the seat order of its first rotation, and why its seed was chosen."""

    seats: tuple[int, ...]
    seed: int
    reason: str  # "due", "placement", "weighted"


class Matchmaker:
    """``choose`` a block from the field (see the module's docstring)."""

    #: A version that has waited this share of ``max_wait`` is due: seeded before any other, the longest wait first,
    #: so that the versions due at once are all served before ``max_wait``.
    DUE = 0.75

    def __init__(self, settings: MatchmakingSection, games: GamesSection, rng: random.Random) -> None:
        self.settings = settings
        self.sizes = games.table_sizes
        self.weights = games.table_weights
        self.rng = rng

    def choose(
        self,
        field: Sequence[Candidate],
        busy: frozenset[int] | set[int],
        met: Mapping[tuple[int, int], int],
        mean_today: float,
    ) -> Choice | None:
        """The next block, or None when fewer than two versions (of two entrants) are free. ``met[(a, b)]`` (a < b)
        counts the blocks versions a and b played together; ``mean_today`` is the mean of today's blocks per entrant
        of the field."""
        free = [c for c in field if c.id not in busy]
        if len({c.entrant for c in free}) < 2:
            return None
        cap = self.settings.share_cap * mean_today
        eligible = [c for c in free if c.entrant_today <= cap]
        seed = self._seed(eligible)
        if seed is None:
            return None
        size = self._size(eligible, free, seed)
        pool = [c for c in eligible if c.entrant != seed.entrant]
        reserve = sorted(
            (c for c in free if c.entrant_today > cap and c.entrant != seed.entrant), key=lambda c: c.entrant_today
        )
        table = [seed]
        window = self._window(seed, pool, size - 1)
        met_table = {c.id: met.get(_pair(c.id, seed.id), 0) for c in window}  # meetings with the table so far
        while len(table) < size:
            taken = {c.entrant for c in table}
            options = [c for c in window if c.entrant not in taken]
            if not options:
                options = [c for c in pool if c.entrant not in taken]
            if not options and len(table) < 2:  # the daily bound gives way rather than the ladder stopping
                options = [c for c in reserve if c.entrant not in taken]
            if not options:
                break  # a smaller table than drawn, rather than one past the daily bound

            def meetings(c: Candidate) -> int:
                known = met_table.get(c.id)
                return self._meetings(c, table, met) if known is None else known

            pick = min(options, key=lambda c: (meetings(c), not c.warm, self.rng.random()))
            table.append(pick)
            for cid in met_table:
                met_table[cid] += met.get(_pair(cid, pick.id), 0)
        if len(table) < 2:
            return None
        return Choice(tuple(c.id for c in table), seed.id, self._why(seed))

    def _why(self, seed: Candidate) -> str:
        if seed.waited >= self.DUE * self.settings.max_wait:
            return "due"
        return "placement" if seed.placement_left > 0 else "weighted"

    def _seed(self, eligible: Sequence[Candidate]) -> Candidate | None:
        if not eligible:
            return None
        due = [c for c in eligible if c.waited >= self.DUE * self.settings.max_wait]
        if due:
            return max(due, key=lambda c: (c.waited, -c.id))
        placing = [c for c in eligible if c.placement_left > 0]
        if placing:
            return max(placing, key=lambda c: (c.placement_left, c.waited, -c.id))
        mean = sum(c.entrant_today for c in eligible) / len(eligible)
        weights = [c.sigma**2 * (1 + max(0.0, mean - c.entrant_today)) for c in eligible]
        return self.rng.choices(eligible, weights=weights)[0]

    def _size(self, eligible: Sequence[Candidate], free: Sequence[Candidate], seed: Candidate) -> int:
        entrants = len({c.entrant for c in free})
        sizes = [(k, w) for k, w in zip(self.sizes, self.weights, strict=True) if k <= entrants and w > 0]
        if not sizes:
            return min(max(self.sizes), entrants)
        return self.rng.choices([k for k, _ in sizes], weights=[w for _, w in sizes])[0]

    def _window(self, seed: Candidate, pool: Sequence[Candidate], wanted: int) -> list[Candidate]:
        if self.rng.random() < self.settings.wide_share:
            return list(pool)
        width = self.settings.window
        while True:
            inside = [c for c in pool if abs(c.mu - seed.mu) <= width * math.hypot(seed.sigma, c.sigma)]
            if len({c.entrant for c in inside}) >= wanted or len(inside) == len(pool):
                return inside
            width *= 2

    @staticmethod
    def _meetings(c: Candidate, table: Sequence[Candidate], met: Mapping[tuple[int, int], int]) -> int:
        return sum(met.get(_pair(c.id, t.id), 0) for t in table)


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)
