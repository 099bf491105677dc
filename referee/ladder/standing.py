"""The official standing: a pure function of the stored blocks of the active versions, the deal as the unit.

Each block gives each of its versions a matchpoint share (the share of the block's other versions whose total it
beat, ties half, a version that forfeited in the block below every one that did not) and a relative score
(``referee.tournament.dealstats.block_outcomes``). A version's figure is its mean matchpoints over its blocks with
a 95% Student t interval over blocks. The order is by mean matchpoints (version id breaks exact ties), so the
standing does not depend on the order in which the blocks were played or stored (sums are ``math.fsum``: exact).

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
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from referee.tournament.dealstats import SEPARATION_ALPHA, holm, mean_ci95, share_variance, two_sided_p

__all__ = ["OfficialRow", "block_outcome_shares", "official_standing"]


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


def block_outcome_shares(totals: Sequence[int], forfeits: Sequence[int], games: int) -> list[tuple[float, float]]:
    """(matchpoints, relative score per game) of each seat of a block, from its totals and forfeits."""
    n = len(totals)
    keys = [(f > 0, t) for t, f in zip(totals, forfeits, strict=True)]
    table_mean = math.fsum(totals) / n / games
    out = []
    for i, mine in enumerate(keys):
        beaten = sum(1.0 if mine < o else 0.5 if mine == o else 0.0 for j, o in enumerate(keys) if j != i)
        out.append((beaten / (n - 1), totals[i] / games - table_mean))
    return out


@dataclass(slots=True)
class _Figures:
    blocks: dict[int, float]
    relative: list[float]
    mean: float = 0.0
    var: float = 0.0


def _pair_p(a: _Figures, b: _Figures, cross: float, shared: int) -> tuple[float, float]:
    """Difference of mean matchpoints of ``a`` and ``b`` and its two-sided p-value (``DealTally.difference_p``)."""
    na, nb = len(a.blocks), len(b.blocks)
    diff = a.mean - b.mean
    if na < 2 or nb < 2:
        return diff, 1.0
    cov = cross / (shared - 1) * shared / (na * nb) if shared >= 2 else cross / (na * nb)
    var = a.var / na + b.var / nb - 2 * cov
    if var <= 0:
        return diff, 0.0 if diff != 0 else 1.0
    return diff, two_sided_p(diff / math.sqrt(var), min(na, nb) - 1)


def official_standing(outcomes: Iterable[tuple[int, int, float, float]], versions: Sequence[int]) -> list[OfficialRow]:
    """The standing of ``versions`` from ``(block, version, matchpoints, relative)`` of their done blocks (any
    order; others' rows are ignored), best first."""
    wanted = set(versions)
    figs = {v: _Figures({}, []) for v in wanted}
    by_block: dict[int, list[int]] = defaultdict(list)
    for block, vid, share, relative in outcomes:
        if vid in wanted:
            figs[vid].blocks[block] = share
            figs[vid].relative.append(relative)
            by_block[block].append(vid)
    for f in figs.values():
        if f.blocks:
            f.mean = math.fsum(f.blocks.values()) / len(f.blocks)
            f.var = share_variance(f.blocks.values(), f.mean)
    cross: dict[tuple[int, int], list[float]] = defaultdict(list)
    for block, present in by_block.items():
        present.sort()
        for i, a in enumerate(present):
            for b in present[i + 1 :]:
                cross[(a, b)].append((figs[a].blocks[block] - figs[a].mean) * (figs[b].blocks[block] - figs[b].mean))
    order = sorted(wanted, key=lambda v: (not figs[v].blocks, -figs[v].mean, v))
    n = len(order)

    def test(a: int, b: int) -> tuple[float, float]:
        key = (a, b) if a < b else (b, a)
        terms = cross.get(key, [])
        return _pair_p(figs[a], figs[b], math.fsum(terms), len(terms))

    pairs = [(order[i], order[j]) for i in range(n) for j in range(i + 1, n)]
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
        mp, mp_ci = mean_ci95(list(f.blocks.values()), share=True)
        rel, rel_ci = mean_ci95(sorted(f.relative))
        q: float | None = None
        separated = False
        if place < n:
            q = adjusted_next[place - 1]
            separated = bool(f.blocks) and neighbours[place - 1][0] > 0 and q < SEPARATION_ALPHA
        rows.append(
            OfficialRow(
                vid, place, len(f.blocks), mp, mp_ci, rel, rel_ci, (1 + above[vid], n - below[vid]), separated, q
            )
        )
    return rows
