"""The matchmaker: which block to play next, chosen for information, with fairness bounds.

A block is one deal at one table, every seat rotation. ``Matchmaker.choose`` picks its table size and its
versions from the field as it stands (``Candidate``s: rating, uncertainty, its entrant's bot time today, time
waited, placement left, live processes, opponents met) by these rules, in order:

1. **Eligible**: a version that is not playing now, whose entrant has used at most ``share_cap`` x the mean of
   today's bot time per entrant (the fair share is counted in time, so that a slow bot plays fewer blocks instead
   of holding the fast ones back: the daily bound), and not two versions of one entrant at a table. Only when
   fewer than two are eligible, the least-used other one joins (a small field cannot always keep the bound, and
   the ladder must not stop).
2. **Seed**: a version that has waited ``DUE`` (3/4) of ``max_wait`` seconds or more since its last block (the
   longest such wait first: the starvation bound); else a version in placement (its placement blocks come first,
   fewest done first); else, when the meetings of the field fall apart in parts that never shared a block, the
   version of the smallest part that waited longest (its first opponent then comes from another part, so the
   field stays connected); else one drawn at random with weight ``sigma² x (1 + deficit)``, where the deficit is
   how many of its own blocks its entrant is below the mean of today's bot time (Halite II's seeding weighted by
   sigma², with psyleague's "who played least" in the deficit).
3. **Table size**: the size whose share of the blocks chosen so far is furthest below its share of
   ``table_weights`` (a running credit, as in smooth weighted round robin), among the sizes the eligible field can
   fill now: the sizes follow the weights over any stretch of blocks, not only on average.
4. **Opponents**: the versions whose rating lies within ``window`` x sqrt(sigma_seed² + sigma²) of the seed's
   (with probability ``wide_share`` the whole field; the window doubles until it holds enough), leaving out a
   version that has already met one at the table more than ``pair_cap`` x its fair share (its opponents met,
   spread evenly over the other entrants) unless nothing else is left; among them, one by one, the one that has
   met the versions already at the table least often (in blocks), a version with live processes first at equal
   counts (it costs no bot start), then at random.

The matchmaker is pure but for its table-size credit: the caller (``serve``, or the simulation of
``referee.ladder.simulate``) keeps the field and passes a ``random.Random``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from referee.ladder.config import GamesSection, MatchmakingSection

__all__ = ["Candidate", "Choice", "Matchmaker", "charges"]


@dataclass(slots=True)
class Candidate:
    """A version of the field as the matchmaker sees it (read, never changed: not frozen only because a frozen one
    costs five times as much to make, and ``serve`` makes one for every version of the field before each block)."""

    id: int
    entrant: int
    mu: float
    sigma: float
    entrant_today: int  # blocks its entrant played today (UTC day)
    waited: float  # seconds since its last block ended (or since it became active)
    placement_left: int
    warm: bool = False
    games: int = 0  # games it has played (other rules than this one read it)
    entrant_seconds: float = 0.0  # bot time its entrant was charged today (``charges``)
    opponents_met: int = 0  # its meetings with the versions of the field (a block with k counts k - 1)


@dataclass(frozen=True, slots=True)
class Choice:
    """A block to play: the versions in the seat order of its first rotation, and why its seed was chosen."""

    seats: tuple[int, ...]
    seed: int
    reason: str  # "due", "placement", "bridge", "weighted"


def charges(seats: Sequence[int], seconds: float, own: Mapping[int, float]) -> dict[int, float]:
    """What a block of ``seats`` that took ``seconds`` of its lane costs each version: its own bot time (``own``:
    the seconds it took to reply, all games of the block) and an equal share of the rest (the referee's time, bot
    starts). A version ``own`` does not know is charged the equal share only."""
    spent = {v: max(0.0, own.get(v, 0.0)) for v in seats}
    rest = max(0.0, seconds - sum(spent.values())) / len(seats)
    return {v: spent[v] + rest for v in seats}


class Matchmaker:
    """``choose`` a block from the field (see the module's docstring)."""

    #: A version that has waited this share of ``max_wait`` is due: seeded before any other, the longest wait first,
    #: so that the versions due at once are all served before ``max_wait``.
    DUE = 0.75
    #: The table-size credit forgets the past at this rate a block (over about 1 / (1 - FADE) = 500 blocks), so
    #: that the sizes follow their weights over any stretch of that many blocks, not only since the start.
    FADE = 0.998

    def __init__(self, settings: MatchmakingSection, games: GamesSection, rng: random.Random) -> None:
        self.settings = settings
        self.sizes = games.table_sizes
        self.weights = games.table_weights
        self.rng = rng
        total = sum(self.weights)
        self._share = {k: w / total for k, w in zip(self.sizes, self.weights, strict=True)}
        self._credit = dict.fromkeys(self.sizes, 0.0)  # blocks each size is behind its share (faded)
        self._seen = 0.0  # blocks chosen (faded)
        self._joined: frozenset[int] = frozenset()  # a field found connected (meetings only grow while it stays)

    def choose(
        self,
        field: Sequence[Candidate],
        busy: frozenset[int] | set[int],
        met: Mapping[tuple[int, int], int],
        mean_today: float,
    ) -> Choice | None:
        """The next block, or None when fewer than two versions (of two entrants) are free. ``met[(a, b)]`` (a < b)
        counts the blocks versions a and b played together; ``mean_today`` is the mean of today's bot time per
        entrant of the field (seconds charged, ``charges``)."""
        free = [c for c in field if c.id not in busy]
        if len({c.entrant for c in free}) < 2:
            return None
        cap = self.settings.share_cap * mean_today
        eligible = [c for c in free if c.entrant_seconds <= cap]
        part = self._part(field, met)
        seed = self._seed(eligible, part, mean_today)
        if seed is None:
            return None
        pool = [c for c in eligible if c.entrant != seed.entrant]
        reserve = sorted(
            (c for c in free if c.entrant_seconds > cap and c.entrant != seed.entrant),
            key=lambda c: c.entrant_seconds,
        )
        fillable = max(2, 1 + len({c.entrant for c in pool}))  # two at least: the reserve fills in below
        entrants = len({c.entrant for c in field})
        size = self._size(fillable, entrants, bool(busy))
        if size is None:
            return None  # the size due needs seats that are playing now: wait for them
        others = entrants - 1
        table = [seed]
        window = self._window(seed, pool, size - 1)
        # the seed of a part apart meets the rest first (its first opponent from outside the part)
        first = [c for c in pool if c.id not in part] if part is not None and seed.id in part else []
        # the pair bound: a version may join the table when no pair of it and one seated has met more than
        # ``pair_cap`` x the fair share of either (its opponents met after this block, spread over the others)
        cap = self.settings.pair_cap / max(1, others)
        bound = {c.id: cap * (c.opponents_met + size - 1) for c in free}
        met_table = dict.fromkeys((c.id for c in window), 0)  # each one's meetings with the versions at the table
        barred: set[int] = set()  # the versions of the pool the pair bound keeps from the table as it is
        draw = self.rng.random
        seated = seed
        while len(table) < size:
            # the one seated last: the pool's meetings with it, against the pair bound and for the pick
            sid, theirs = seated.id, bound[seated.id]
            for c in pool:
                cid = c.id
                n = met.get((cid, sid) if cid < sid else (sid, cid), 0)
                if n > bound[cid] or n > theirs:
                    barred.add(cid)
                if cid in met_table:
                    met_table[cid] += n
            taken = {c.entrant for c in table}
            # the pair bound first (from the window, else the pool), then the window, then the pool
            fits = ([c for c in g if c.entrant not in taken and c.id not in barred] for g in (first, window, pool))
            options = next((fit for fit in fits if fit), None)
            if options is None:
                free_of = ([c for c in g if c.entrant not in taken] for g in (first, window, pool))
                options = next((g for g in free_of if g), [])
            first = []
            if not options and len(table) < 2:  # the daily bound gives way rather than the ladder stopping
                options = [c for c in reserve if c.entrant not in taken]
            if not options:
                break
            # the fewest meetings with the table, a warm one first, then at random (a draw for each option, in order)
            pick, best = options[0], None
            for c in options:
                known = met_table.get(c.id)
                key = (self._meetings(c, table, met) if known is None else known, not c.warm, draw())
                if best is None or key < best:
                    pick, best = c, key
            table.append(pick)
            seated = pick
        if len(table) < 2:
            return None
        self._count(len(table), entrants)
        return Choice(tuple(c.id for c in table), seed.id, self._why(seed, part))

    def _why(self, seed: Candidate, part: frozenset[int] | None) -> str:
        if seed.waited >= self.DUE * self.settings.max_wait:
            return "due"
        if seed.placement_left > 0:
            return "placement"
        return "bridge" if part is not None and seed.id in part else "weighted"

    def _seed(self, eligible: Sequence[Candidate], part: frozenset[int] | None, mean_today: float) -> Candidate | None:
        if not eligible:
            return None
        due = [c for c in eligible if c.waited >= self.DUE * self.settings.max_wait]
        if due:
            return max(due, key=lambda c: (c.waited, -c.id))
        placing = [c for c in eligible if c.placement_left > 0]
        if placing:
            return max(placing, key=lambda c: (c.placement_left, c.waited, -c.id))
        if part is not None:
            apart = [c for c in eligible if c.id in part]
            if apart and len(apart) < len(eligible):
                return max(apart, key=lambda c: (c.waited, -c.id))
        used = sum(c.entrant_seconds for c in eligible)
        blocks = sum(c.entrant_today for c in eligible)
        typical = used / blocks if blocks and used > 0 else 1.0  # seconds a block costs an entrant, on average

        def deficit(c: Candidate) -> float:  # in the entrant's own blocks
            per_block = c.entrant_seconds / c.entrant_today if c.entrant_today and c.entrant_seconds > 0 else typical
            return max(0.0, mean_today - c.entrant_seconds) / per_block

        weights = [c.sigma**2 * (1 + deficit(c)) for c in eligible]
        return self.rng.choices(eligible, weights=weights)[0]

    def _size(self, fillable: int, entrants: int, playing: bool) -> int | None:
        """The table size with the most credit among those ``fillable`` entrants can fill (or, when the whole field is
        smaller than every size, as many as can sit; when it is not, a wait for the seats playing now);
        None (wait) when seats are ``playing`` (so that they free up) and either a size the field's ``entrants``
        could fill is behind its share by more than ``size_slack`` points and the most behind, or even the best size
        that can be filled now is ahead of its share by more than that."""
        sizes = [k for k in self.sizes if k <= fillable and self._share[k] > 0]
        slack = self.settings.size_slack / 100 * self._seen
        behind = [k for k in self.sizes if fillable < k <= entrants and self._credit[k] > slack]
        most = max((self._credit[k] for k in sizes), default=-math.inf)
        if playing and ((behind and max(self._credit[k] for k in behind) > most) or -slack > most > -math.inf):
            return None
        if not sizes:
            if playing and any(k <= entrants for k in self.sizes):
                return None  # a size the ladder plays needs seats that are playing now: never a size it does not
            return min(max(self.sizes), fillable)  # a field smaller than every size: as many as can sit
        return max(sizes, key=lambda k: (self._credit[k], self.rng.random()))

    def _count(self, size: int, entrants: int) -> None:
        """A table of ``size`` was chosen: every size the field's ``entrants`` can fill earns its share of a block
        (among those sizes), the chosen one spends a block (the past fading with ``FADE`` a block)."""
        open_ = [k for k in self.sizes if k <= entrants]
        total = sum(self._share[k] for k in open_)
        if size not in self._credit or total <= 0:
            return
        self._seen = self.FADE * self._seen + 1
        for k in self._credit:
            earned = self._share[k] / total if k <= entrants else 0.0
            self._credit[k] = self.FADE * self._credit[k] + earned - (k == size)

    def _window(self, seed: Candidate, pool: Sequence[Candidate], wanted: int) -> list[Candidate]:
        if self.rng.random() < self.settings.wide_share:
            return list(pool)
        width = self.settings.window
        while True:
            inside = [c for c in pool if abs(c.mu - seed.mu) <= width * math.hypot(seed.sigma, c.sigma)]
            if len({c.entrant for c in inside}) >= wanted or len(inside) == len(pool):
                return inside
            width *= 2

    def _part(self, field: Sequence[Candidate], met: Mapping[tuple[int, int], int]) -> frozenset[int] | None:
        """The smallest part of the field whose versions never shared a block with the rest (None: connected)."""
        ids = frozenset(c.id for c in field)
        if ids == self._joined or len(ids) < 2:
            return None
        parent = {v: v for v in ids}

        def root(v: int) -> int:
            while parent[v] != v:
                parent[v] = parent[parent[v]]
                v = parent[v]
            return v

        for (a, b), n in met.items():
            if n > 0 and a in parent and b in parent:
                parent[root(a)] = root(b)
        parts: dict[int, set[int]] = {}
        for v in ids:
            parts.setdefault(root(v), set()).add(v)
        if len(parts) == 1:
            self._joined = ids
            return None
        smallest: set[int] = min(parts.values(), key=lambda p: (len(p), min(p)))
        return frozenset(smallest)

    @staticmethod
    def _meetings(c: Candidate, table: Sequence[Candidate], met: Mapping[tuple[int, int], int]) -> int:
        return sum(met.get(_pair(c.id, t.id), 0) for t in table)


def _pair(a: int, b: int) -> tuple[int, int]:
    return (a, b) if a < b else (b, a)
