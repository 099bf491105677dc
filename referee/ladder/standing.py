"""The official standing: a pure function of the stored blocks of the active versions, the deal as the unit.

*The figure* is the project's one estimand (docs/statistics.md), as the race states it: a version's **expected
matchpoints against the whole field** (the ranked versions) at a table of the ladder's sizes, the size drawn with
``table_weights``: the expected share of a table's other versions whose block total it beats (ties half, a forfeit
below every seat that did not forfeit), its table drawn uniformly from the field. The ladder's matchmaker does not
draw tables uniformly (rating windows make strong versions meet strong ones), so a version's mean matchpoints over
its own blocks measure it against the opponents it happened to meet. The figure is instead *predicted* from
strengths fitted to every stored block that holds a version of the field (``strengths``: a Bradley-Terry model on
the pairs of each block, its sharpness per table size), which knows who met whom: for a version i,
``sum over sizes k of w_k x mean over the field's other versions j of sigmoid(c_k (s_i - s_j))``. The order is by
fitted strength (the same order as the figure's), version id breaking exact ties.

*Its uncertainty* comes from the fit's sandwich covariance with the block as the cluster (``strengths``), so it
holds whatever the dependence inside a block and whatever a version's luck looks like. A figure's 95% interval is
the delta method's over that covariance, with Student's t on the version's blocks - 1 degrees of freedom.

*Rank intervals*. Every pair of versions is compared by the difference of their strengths over its sandwich
standard error (t with the smaller block count - 1 degrees of freedom). The *rank interval* of a version is
``[1 + #versions significantly above it, n - #versions significantly below it]``, with Holm's (1979) step-down
correction over all pairs, so that all the intervals hold together with 95% confidence (the construction of Klein,
Wright & Wieczorek, 2020, "A joint confidence region for an overall ranking of populations", JRSS C 69(3), with
Holm in place of Bonferroni). Neighbouring places are *separated* when their difference is significant at 5% after
Holm's correction over the n - 1 neighbouring pairs, as in ``referee run``'s standings. Beside the figure each row
keeps the version's mean relative score per game over its own blocks with its t interval over blocks.

Matchpoints and relative scores of one block are rationals with small denominators (multiples of 1/12 at tables of 2
to 4, relative scores of 1/144), so the ladder also keeps them as integers (``MP_UNIT``, ``REL_UNIT``) and their
sums per version and per pair (``StandingSums``, kept by the store block by block): a cache for the live views
and the audit, no longer the standing's input.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from referee.contest.block_stats import SEPARATION_ALPHA, holm, t_quantile_975, two_sided_p
from referee.ladder.strengths import BlockSeat, fit_strengths

__all__ = [
    "METHOD",
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

#: How the official figure is made, in one line (``referee ladder status``, the leaderboard page and the API).
METHOD = (
    "expected matchpoints against the whole field at the ladder's table sizes, predicted from a Bradley-Terry fit "
    "to every stored block (so who met whom counts); 95% intervals over blocks, rank intervals joint"
)

#: Matchpoints are kept as multiples of 1/MP_UNIT (shares of 1, 2 or 3 others, in halves), relative scores of
#: 1/REL_UNIT (a total over k rotations minus the table's, over k², for k = 2, 3, 4).
MP_UNIT = 12
REL_UNIT = 144


@dataclass(frozen=True, slots=True)
class OfficialRow:
    """One version's place: its blocks, its official figure (``matchpoints``: expected matchpoints against the
    field, predicted from the fit) with a 95% interval, its mean relative score per game with its interval, its
    place, its 95% rank interval (joint over the standing), whether it is separated at 95% from the next place (with
    the Holm-adjusted p-value), the distinct versions it met, and its fitted strength."""

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
    opponents: int = 0
    strength: float | None = None


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


def official_standing(
    blocks: Mapping[int, Sequence[BlockSeat]], versions: Sequence[int], table_weights: Mapping[int, float]
) -> list[OfficialRow]:
    """The standing of ``versions`` (the field) from ``blocks`` (block id -> its seats: every stored block that
    holds one of them), best first; ``table_weights``: table size -> how often the ladder chooses it. See the
    module's docstring. Raises ``ValueError`` on a malformed block (``strengths.fit_strengths``)."""
    fit = fit_strengths(blocks)
    known = set(fit.versions)
    field_ids = sorted(set(versions))
    played = [v for v in field_ids if v in known]
    figure, grad = fit.expected(played, table_weights) if played else (None, None)
    cov = fit.cov
    where = {v: i for i, v in enumerate(fit.versions)}
    strength = {v: float(fit.s[where[v]]) for v in played}
    order = sorted(field_ids, key=lambda v: (v not in strength, -strength.get(v, 0.0), v))
    n = len(order)
    deals = {v: fit.blocks.get(v, 0) for v in field_ids}
    relative = _relative_units(blocks, set(field_ids))

    def test(a: int, b: int) -> tuple[float, float]:
        if deals[a] < 2 or deals[b] < 2:
            return strength.get(a, 0.0) - strength.get(b, 0.0), 1.0
        i, j = where[a], where[b]
        diff = strength[a] - strength[b]
        var = float(cov[i, i] + cov[j, j] - 2 * cov[i, j])
        if var <= 0:
            return diff, 0.0 if diff != 0 else 1.0
        return diff, two_sided_p(diff / math.sqrt(var), min(deals[a], deals[b]) - 1)

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
    row_of = {v: r for r, v in enumerate(played)}
    rows = []
    for place, vid in enumerate(order, start=1):
        d = deals[vid]
        mp: float | None = None
        mp_ci: tuple[float, float] | None = None
        if vid in strength and figure is not None and grad is not None:
            r = row_of[vid]
            mp = float(figure[r])
            if d >= 2:
                g = grad[r]
                half = t_quantile_975(d - 1) * math.sqrt(max(float(g @ cov @ g), 0.0))
                mp_ci = (max(0.0, mp - half), min(1.0, mp + half))
        units = relative.get(vid, [])
        rel, rel_ci = _mean_ci(sum(units), sum(u * u for u in units), len(units), REL_UNIT, share=False)
        q: float | None = None
        separated = False
        if place < n:
            q = adjusted_next[place - 1]
            separated = d > 0 and neighbours[place - 1][0] > 0 and q < SEPARATION_ALPHA
        rows.append(
            OfficialRow(
                vid,
                place,
                d,
                mp,
                mp_ci,
                rel,
                rel_ci,
                (1 + above[vid], n - below[vid]),
                separated,
                q,
                len(fit.opponents.get(vid, ())),
                strength.get(vid),
            )
        )
    return rows


def _relative_units(blocks: Mapping[int, Sequence[BlockSeat]], wanted: set[int]) -> dict[int, list[int]]:
    """Each wanted version's relative score per game (in 1/REL_UNIT, as ``block_outcome_units``) on each of its
    blocks, in block order."""
    out: dict[int, list[int]] = {}
    for bid in sorted(blocks):
        seats = blocks[bid]
        k = len(seats)
        table = sum(t for _, t, _ in seats)
        for v, t, _ in seats:
            if v in wanted:
                out.setdefault(v, []).append(REL_UNIT // (k * k) * (k * t - table))
    return out
