"""The official standing: a pure function of the stored blocks of the active versions, the deal as the unit.

Each block gives each of its versions a matchpoint share (the share of the block's other versions whose total it
beat, ties half, a version that forfeited in the block below every one that did not: duplicate bridge's
matchpoints) and a relative score (its mean score per game on the block minus the table's). A version's figure is
its mean matchpoints over its blocks with a 95% Student t interval over blocks (the variance regularised as
``referee.tournament.dealstats.share_variance`` does). The order is by mean matchpoints, version id breaking exact
ties.

Both figures are rationals with small denominators (matchpoints are multiples of 1/12 at tables of 2 to 4, relative
scores of 1/144), so the ladder keeps them as integers (``MP_UNIT``, ``REL_UNIT``) and adds them up exactly:
``StandingSums`` holds, per version, its blocks and the sums of its figures and their squares, and per pair of
versions the blocks they shared with the sums of the products of their matchpoints. The store keeps these sums
up to date as each block is committed, so the standing costs arithmetic on the active versions and their pairs,
not a pass over every block; and because integer sums do not depend on the order of their terms, neither does
the standing (``StandingSums.of`` rebuilds them from the blocks themselves, in any order, to the same values).

Every pair of versions is compared by the difference of their mean matchpoints, with the covariance of the blocks
they shared (the test of ``DealTally.difference_p``). The *rank interval* of a version is
``[1 + #versions significantly above it, n - #versions significantly below it]``, with Holm's (1979) step-down
correction over all pairs, so that all the intervals hold together with 95% confidence (the construction of Klein,
Wright & Wieczorek, 2020, "A joint confidence region for an overall ranking of populations", JRSS C 69(3), with
Holm in place of Bonferroni). Neighbouring places are *separated* when their difference is significant at 5% after
Holm's correction over the n - 1 neighbouring pairs, as in ``referee run``'s standings.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction

from referee.tournament.dealstats import SEPARATION_ALPHA, holm, t_quantile_975, two_sided_p

__all__ = [
    "MP_UNIT",
    "REL_UNIT",
    "OfficialRow",
    "PairSums",
    "StandingSums",
    "VersionSums",
    "block_outcome_shares",
    "block_outcome_units",
    "official_standing",
]

#: Matchpoints are kept as multiples of 1/MP_UNIT (shares of 1, 2 or 3 others, in halves), relative scores of
#: 1/REL_UNIT (a total over k rotations minus the table's, over k², for k = 2, 3, 4).
MP_UNIT = 12
REL_UNIT = 144


@dataclass(frozen=True, slots=True)
class OfficialRow:
    """One version's place: its blocks, mean matchpoints with a 95% interval, mean relative score per game with
    its interval, its place, its 95% rank interval (joint over the standing), and whether it is separated at 95%
    from the next place (with the Holm-adjusted p-value)."""

    version_id: int
    place: int
    deals: int
    matchpoints: float | None
    matchpoints_ci95: tuple[float, float] | None
    relative: float | None
    relative_ci95: tuple[float, float] | None
    rank_interval: tuple[int, int]
    separated_from_next: bool
    p_next: float | None


def block_outcome_units(totals: Sequence[int], forfeits: Sequence[int]) -> list[tuple[int, int]]:
    """(matchpoints x MP_UNIT, relative score per game x REL_UNIT) of each seat of a block, exactly, from its
    totals over the block's k rotations and its forfeits."""
    k = len(totals)
    keys = [(f > 0, t) for t, f in zip(totals, forfeits, strict=True)]
    table = sum(totals)
    out = []
    for i, mine in enumerate(keys):
        halves = sum(2 if mine < o else 1 if mine == o else 0 for j, o in enumerate(keys) if j != i)
        mp = MP_UNIT * halves // (2 * (k - 1))
        rel = REL_UNIT // (k * k) * (k * totals[i] - table)
        out.append((mp, rel))
    return out


def block_outcome_shares(totals: Sequence[int], forfeits: Sequence[int], games: int) -> list[tuple[float, float]]:
    """(matchpoints, relative score per game) of each seat of a block (``games``: its rotations, one per seat)."""
    if games != len(totals):
        raise ValueError("a block has one game per seat rotation")
    return [(mp / MP_UNIT, rel / REL_UNIT) for mp, rel in block_outcome_units(totals, forfeits)]


@dataclass(slots=True)
class VersionSums:
    """A version's blocks and the exact sums of its figures (in units) and of their squares."""

    n: int = 0
    mp: int = 0
    mp2: int = 0
    rel: int = 0
    rel2: int = 0


@dataclass(slots=True)
class PairSums:
    """Two versions ``a < b``: the blocks they shared, and over those the sums of a's and b's matchpoints (units)
    and of their products."""

    n: int = 0
    ab: int = 0
    a: int = 0
    b: int = 0


@dataclass(slots=True)
class StandingSums:
    """What the standing is computed from: per version and per pair (keys ``(a, b)`` with ``a < b``)."""

    versions: dict[int, VersionSums] = field(default_factory=dict)
    pairs: dict[tuple[int, int], PairSums] = field(default_factory=dict)

    def add_block(self, outcomes: Iterable[tuple[int, int, int]]) -> None:
        """Count one block: ``(version, matchpoints units, relative units)`` of each of its seats."""
        seats = sorted(outcomes)
        for v, mp, rel in seats:
            s = self.versions.setdefault(v, VersionSums())
            s.n += 1
            s.mp += mp
            s.mp2 += mp * mp
            s.rel += rel
            s.rel2 += rel * rel
        for (a, mpa, _), (b, mpb, _) in itertools.combinations(seats, 2):
            p = self.pairs.setdefault((a, b), PairSums())
            p.n += 1
            p.ab += mpa * mpb
            p.a += mpa
            p.b += mpb

    @classmethod
    def of(cls, rows: Iterable[tuple[int, int, int, int]]) -> StandingSums:
        """The sums of ``(block, version, matchpoints units, relative units)`` rows, in any order."""
        blocks: dict[int, list[tuple[int, int, int]]] = {}
        for block, v, mp, rel in rows:
            blocks.setdefault(block, []).append((v, mp, rel))
        sums = cls()
        for seats in blocks.values():
            sums.add_block(seats)
        return sums


def _mean_ci(
    total: int, squares: int, n: int, unit: int, *, share: bool
) -> tuple[float | None, tuple[float, float] | None]:
    """The mean of n values (kept in ``unit``ths) and its 95% t interval; shares regularised and clipped to [0, 1]."""
    if n == 0:
        return None, None
    mean = total / unit / n
    if n < 2:
        return mean, None
    deviations = (squares * n - total * total) / (unit * unit * n)  # the sum of squared deviations, exactly
    var = (0.25 + deviations) / n if share else deviations / (n - 1)
    half = t_quantile_975(n - 1) * math.sqrt(max(var, 0.0) / n)
    if share:
        return mean, (max(0.0, mean - half), min(1.0, mean + half))
    return mean, (mean - half, mean + half)


def _pair_p(a: VersionSums, b: VersionSums, pair: PairSums | None, flipped: bool) -> tuple[float, float]:
    """Difference of mean matchpoints of ``a`` and ``b`` and its two-sided p-value (``DealTally.difference_p``).
    ``pair`` holds their shared blocks with ``a`` as its first version unless ``flipped``."""
    na, nb = a.n, b.n
    diff = a.mp / MP_UNIT / na - b.mp / MP_UNIT / nb if na and nb else 0.0
    if na < 2 or nb < 2:
        return diff, 1.0
    va = (0.25 + (a.mp2 * na - a.mp * a.mp) / (MP_UNIT**2 * na)) / na
    vb = (0.25 + (b.mp2 * nb - b.mp * b.mp) / (MP_UNIT**2 * nb)) / nb
    cov = 0.0
    shared = 0
    if pair is not None and pair.n:
        shared = pair.n
        sa, sb = (pair.b, pair.a) if flipped else (pair.a, pair.b)
        # sum over shared blocks of (xa - ma)(xb - mb), times na * nb, exactly in units squared
        cross = pair.ab * na * nb - a.mp * sb * nb - b.mp * sa * na + shared * a.mp * b.mp
        cov = cross / (MP_UNIT**2 * na * nb)
    cov = cov / (shared - 1) * shared / (na * nb) if shared >= 2 else cov / (na * nb)
    var = va / na + vb / nb - 2 * cov
    if var <= 0:
        return diff, 0.0 if diff != 0 else 1.0
    return diff, two_sided_p(diff / math.sqrt(var), min(na, nb) - 1)


def official_standing(sums: StandingSums, versions: Sequence[int]) -> list[OfficialRow]:
    """The standing of ``versions`` from their ``sums`` (see the module's docstring), best first."""
    empty = VersionSums()
    figs: Mapping[int, VersionSums] = {v: sums.versions.get(v, empty) for v in set(versions)}
    order = sorted(figs, key=lambda v: (figs[v].n == 0, -Fraction(figs[v].mp, figs[v].n or 1), v))
    n = len(order)

    def test(a: int, b: int) -> tuple[float, float]:
        key, flipped = ((a, b), False) if a < b else ((b, a), True)
        return _pair_p(figs[a], figs[b], sums.pairs.get(key), flipped)

    pairs = list(itertools.combinations(order, 2))
    tests = [test(a, b) for a, b in pairs]
    adjusted = holm([p for _, p in tests])
    above = dict.fromkeys(order, 0)
    below = dict.fromkeys(order, 0)
    for (a, b), (diff, _), adj in zip(pairs, tests, adjusted, strict=True):
        if adj < SEPARATION_ALPHA and diff != 0:
            hi, lo = (a, b) if diff > 0 else (b, a)
            below[hi] += 1
            above[lo] += 1
    neighbours = [test(a, b) for a, b in itertools.pairwise(order)]
    adjusted_next = holm([p for _, p in neighbours])
    rows = []
    for place, vid in enumerate(order, start=1):
        f = figs[vid]
        mp, mp_ci = _mean_ci(f.mp, f.mp2, f.n, MP_UNIT, share=True)
        rel, rel_ci = _mean_ci(f.rel, f.rel2, f.n, REL_UNIT, share=False)
        q: float | None = None
        separated = False
        if place < n:
            q = adjusted_next[place - 1]
            separated = f.n > 0 and neighbours[place - 1][0] > 0 and q < SEPARATION_ALPHA
        rows.append(
            OfficialRow(vid, place, f.n, mp, mp_ci, rel, rel_ci, (1 + above[vid], n - below[vid]), separated, q)
        )
    return rows
