"""Statistics that know the deal: every figure is computed over deals (blocks), never over games that share one.

A *block* is one deal played at one table in every seat rotation (one batch of the schedule). Within a block each
entrant has played every seat's cards once, so its *block total* (the sum of its scores over the block's games)
is directly comparable with the other entrants' totals on the same block:

- **matchpoints**: the share of the other entrants of the block whose total it beat (a tie counts half), in [0, 1];
  the duplicate-bridge idea, robust to one freak deal; an entrant that forfeited a game of the block beats no
  entrant that did not (the forfeit rule, with ``counting``);
- **relative score**: its mean score per game on the block minus the table's mean score per game on that block
  (lower is better, as for scores: 0 is the table's average).

An entrant's figures are means over its blocks with a 95% Student t interval over blocks. A head-to-head gains the
paired score difference of two entrants over the blocks they shared. Adjacent places of the standings are
*separated* when the difference of their mean matchpoints is significant at 5% after Holm's step-down correction
over all adjacent pairs; the variance of the difference treats the blocks as independent units and pairs the
blocks the two shared (see docs/statistics.md). Blocks still missing a rotation (an interrupted run) are left out.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from statistics import NormalDist
from typing import Protocol

from referee.contest.counting import CountedSeat, counted_scores
from referee.contest.seating import games_per_block

__all__ = [
    "BlockOutcome",
    "CountedRow",
    "DealStanding",
    "DealTally",
    "EntrantDeals",
    "PairDeals",
    "block_outcomes",
    "deal_standing",
    "holm",
    "mean_ci95",
    "share_variance",
    "t_quantile_975",
    "two_sided_p",
]

# Two-sided 95% quantiles of Student's t for 1..30 degrees of freedom.
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


class CountedRow(CountedSeat, Protocol):
    """A seat of a stored game as the deal statistics read it (a ``store.SeatRow``)."""

    @property
    def entrant(self) -> str: ...


#: Significance level of the separation of places (after Holm's correction).
SEPARATION_ALPHA = 0.05


def t_quantile_975(df: int) -> float:
    """Student's t 97.5% quantile: exact to 3 decimals up to 30 degrees of freedom, then 1.96 + 2.4/df (< 0.003 off)."""
    if df < 1:
        raise ValueError("degrees of freedom must be at least 1")
    return _T975[df - 1] if df <= len(_T975) else 1.96 + 2.4 / df


def two_sided_p(t: float, df: int) -> float:
    """Two-sided p-value of Student's t statistic ``t`` with ``df`` degrees of freedom, through the normal deviate
    z = (8·df + 1)/(8·df + 3) · sqrt(df · ln(1 + t²/df)) (Wallace 1959; close to the exact p from df = 3 on)."""
    if df < 1:
        return 1.0
    z = math.sqrt(df * math.log1p(t * t / df)) * (8 * df + 1) / (8 * df + 3)
    return min(1.0, 2 * (1 - NormalDist().cdf(z)))


def holm(pvalues: Sequence[float]) -> list[float]:
    """Holm's (1979) step-down adjusted p-values: they control the family-wise error rate for any dependence."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    adjusted = [1.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * pvalues[i]))
        adjusted[i] = running
    return adjusted


def mean_ci95(values: Sequence[float], *, share: bool = False) -> tuple[float | None, tuple[float, float] | None]:
    """The mean and its 95% Student t interval (None with fewer than 2 values). For a ``share`` (values in [0, 1])
    the variance is regularised (``share_variance``) and the interval clipped to [0, 1]."""
    n = len(values)
    if n == 0:
        return None, None
    mean = math.fsum(values) / n
    if n < 2:
        return mean, None
    var = share_variance(values, mean) if share else math.fsum((v - mean) ** 2 for v in values) / (n - 1)
    half = t_quantile_975(n - 1) * math.sqrt(var / n)
    if share:
        return mean, (max(0.0, mean - half), min(1.0, mean + half))
    return mean, (mean - half, mean + half)


def share_variance(values: Iterable[float], mean: float) -> float:
    """The variance of shares in [0, 1], regularised with one extra observation of the largest possible variance,
    1/4: (1/4 + Σ(x − mean)²) / n. A few identical results (0 variance) then claim no false certainty."""
    items = list(values)
    return (0.25 + math.fsum((v - mean) ** 2 for v in items)) / len(items)


@dataclass(frozen=True, slots=True)
class BlockOutcome:
    """One entrant's result on one block: its matchpoint share, its relative score per game and its mean score per
    game."""

    matchpoints: float
    relative: float
    score: float


def block_outcomes(totals: Mapping[str, float], games: int, forfeited: Collection[str] = ()) -> dict[str, BlockOutcome]:
    """Each entrant's outcome on a block, from its total score over the block's ``games`` rotations (lower is
    better; forfeits counted by ``counting.counted_scores``) and the entrants that forfeited a game of it: the share
    of the others it beat, ties half, an entrant in ``forfeited`` below every one that is not (the forfeit rule: a
    forfeit is the worst result at its table), and its mean per game minus the table's mean per game."""
    names = list(totals)
    if len(names) < 2:
        raise ValueError("a block needs at least two entrants")
    table_mean = math.fsum(totals.values()) / len(names) / games
    key = {n: (n in forfeited, totals[n]) for n in names}
    out = {}
    for n in names:
        mine = key[n]
        beaten = sum(1.0 if mine < key[o] else 0.5 if mine == key[o] else 0.0 for o in names if o != n)
        out[n] = BlockOutcome(beaten / (len(names) - 1), totals[n] / games - table_mean, totals[n] / games)
    return out


@dataclass(frozen=True, slots=True)
class EntrantDeals:
    """An entrant's figures over its complete blocks (``deals``); None where there are too few blocks."""

    deals: int
    matchpoints: float | None
    matchpoints_ci95: tuple[float, float] | None
    relative_score: float | None
    relative_score_ci95: tuple[float, float] | None

    def to_dict(self) -> dict[str, object]:
        return {
            "deals": self.deals,
            "matchpoints": self.matchpoints,
            "matchpoints_ci95": None if self.matchpoints_ci95 is None else list(self.matchpoints_ci95),
            "relative_score": self.relative_score,
            "relative_score_ci95": None if self.relative_score_ci95 is None else list(self.relative_score_ci95),
        }


@dataclass(frozen=True, slots=True)
class PairDeals:
    """Two entrants over the blocks they shared: the row's mean score per game minus the column's (negative: the
    row did better), with its 95% interval over the shared blocks."""

    deals: int
    score_diff: float | None
    score_diff_ci95: tuple[float, float] | None

    def to_dict(self) -> dict[str, object]:
        return {
            "deals": self.deals,
            "score_diff": self.score_diff,
            "score_diff_ci95": None if self.score_diff_ci95 is None else list(self.score_diff_ci95),
        }


class DealTally:
    """Collects games into blocks and keeps every complete block's outcome per entrant (in block order)."""

    def __init__(self) -> None:
        # block -> (games seen, entrant -> total, entrants that forfeited a game of it)
        self._open: dict[int, tuple[int, dict[str, float], set[str]]] = {}
        self.outcomes: dict[str, dict[int, BlockOutcome]] = {}  # entrant -> block -> outcome
        self._totals: dict[int, dict[str, float]] = {}  # complete block -> per-game mean score of each entrant

    def add(self, block: int, seats: Sequence[CountedRow]) -> None:
        """Count one game of ``block``: its seats (``entrant``, ``score``, ``forfeit_kind``: a ``SeatRow``). A block
        is complete when it has all its games (``seating.games_per_block`` of its table size: every rotation of its
        seat order); then its outcomes are computed, forfeits counted by the forfeit rule (``block_outcomes``)."""
        seen, totals, forfeited = self._open.get(block, (0, {}, set()))
        for seat, score in zip(seats, counted_scores(seats), strict=True):
            totals[seat.entrant] = totals.get(seat.entrant, 0.0) + score
            if seat.forfeit_kind is not None:
                forfeited.add(seat.entrant)
        seen += 1
        if seen < games_per_block(len(seats)):
            self._open[block] = (seen, totals, forfeited)
            return
        self._open.pop(block, None)
        if len(totals) >= 2:
            self._complete(block, totals, seen, forfeited)

    def add_block(self, block: int, games: Iterable[Sequence[CountedRow]]) -> None:
        """Count a whole block at once: its games (each its seats, as ``add`` takes them), whatever their number.
        Raises ``ValueError`` for a block without games of at least two entrants, or with games of different
        tables."""
        totals: dict[str, float] = {}
        forfeited: set[str] = set()
        count = 0
        table: set[str] | None = None
        for game in games:
            names = {s.entrant for s in game}
            if table is not None and names != table:
                raise ValueError(f"block {block} holds games of different tables")
            table = names
            for seat, score in zip(game, counted_scores(game), strict=True):
                totals[seat.entrant] = totals.get(seat.entrant, 0.0) + score
                if seat.forfeit_kind is not None:
                    forfeited.add(seat.entrant)
            count += 1
        if count == 0 or len(totals) < 2:
            raise ValueError(f"block {block} needs games of at least two entrants")
        self._complete(block, totals, count, forfeited)

    def _complete(self, block: int, totals: dict[str, float], games: int, forfeited: set[str]) -> None:
        for name, outcome in block_outcomes(totals, games, forfeited).items():
            self.outcomes.setdefault(name, {})[block] = outcome
        self._totals[block] = {n: t / games for n, t in totals.items()}

    @property
    def blocks(self) -> int:
        return len(self._totals)

    def entrant(self, name: str) -> EntrantDeals:
        mine = self.outcomes.get(name, {})
        mp, mp_ci = mean_ci95([o.matchpoints for o in mine.values()], share=True)
        rel, rel_ci = mean_ci95([o.relative for o in mine.values()])
        return EntrantDeals(len(mine), mp, mp_ci, rel, rel_ci)

    def score_ci95(self, name: str) -> tuple[float, float] | None:
        """The 95% Student t interval, over ``name``'s complete blocks, of its mean score per game (each block's
        mean per game one observation); None below two blocks."""
        return mean_ci95([o.score for o in self.outcomes.get(name, {}).values()])[1]

    def pair(self, a: str, b: str) -> PairDeals:
        """``a`` against ``b`` over the complete blocks both played."""
        mine, theirs = self.outcomes.get(a, {}), self.outcomes.get(b, {})
        shared = sorted(mine.keys() & theirs.keys())
        diffs = [self._totals[k][a] - self._totals[k][b] for k in shared]
        mean, ci = mean_ci95(diffs)
        return PairDeals(len(shared), mean, ci)

    def pairs(self, names: Sequence[str]) -> dict[str, dict[str, PairDeals]]:
        """Every pair of ``names`` that shared a block, both ways round."""
        shared: dict[tuple[str, str], list[int]] = {}
        for block, totals in self._totals.items():
            present = sorted(totals)
            for i, a in enumerate(present):
                for b in present[i + 1 :]:
                    shared.setdefault((a, b), []).append(block)
        out: dict[str, dict[str, PairDeals]] = {n: {} for n in names}
        for (a, b), blocks in shared.items():
            if a not in out or b not in out:
                continue
            diffs = [self._totals[k][a] - self._totals[k][b] for k in sorted(blocks)]
            mean, ci = mean_ci95(diffs)
            out[a][b] = PairDeals(len(diffs), mean, ci)
            out[b][a] = PairDeals(len(diffs), None if mean is None else -mean, None if ci is None else (-ci[1], -ci[0]))
        return out

    def difference_p(self, a: str, b: str) -> tuple[float | None, float]:
        """The difference of mean matchpoints of ``a`` and ``b`` and its two-sided p-value.

        Var(mean_a − mean_b) = Var(mean_a) + Var(mean_b) − 2·Cov (variances regularised, ``share_variance``), where
        the covariance comes from the blocks the two shared (their outcomes on a shared deal are dependent: one
        beating the other lowers the other's share), each block being an independent unit. Degrees of freedom: the
        smaller block count minus one.
        """
        xa, xb = self.outcomes.get(a, {}), self.outcomes.get(b, {})
        na, nb = len(xa), len(xb)
        if na < 2 or nb < 2:
            return None, 1.0
        ma = math.fsum(o.matchpoints for o in xa.values()) / na
        mb = math.fsum(o.matchpoints for o in xb.values()) / nb
        va = share_variance((o.matchpoints for o in xa.values()), ma)
        vb = share_variance((o.matchpoints for o in xb.values()), mb)
        shared = xa.keys() & xb.keys()
        cov = math.fsum((xa[k].matchpoints - ma) * (xb[k].matchpoints - mb) for k in shared)
        if len(shared) >= 2:
            cov *= 1 / (len(shared) - 1) * len(shared) / (na * nb)
        else:
            cov /= na * nb
        var = va / na + vb / nb - 2 * cov
        diff = ma - mb
        if var <= 0:
            return diff, 0.0 if diff != 0 else 1.0
        return diff, two_sided_p(diff / math.sqrt(var), min(na, nb) - 1)

    def rank_intervals(self, names: Sequence[str]) -> dict[str, tuple[int, int]]:
        """Each entrant's place, best and worst, that the matchpoints allow, jointly at 95%: the difference of mean
        matchpoints of every pair is tested as ``difference_p`` does, the p-values adjusted with Holm's method over
        all N(N - 1)/2 pairs, and an entrant's best place is 1 plus the entrants proven ahead of it, its worst N minus
        the entrants it is proven ahead of. On the event of no false rejection (probability at least 95%, Holm's
        family-wise guarantee) every entrant's true place lies in its interval (the construction of Klein, Wright &
        Wieczorek, "A joint confidence region for an overall ranking of populations", JRSS-C 2020, with Holm's
        step-down in place of Bonferroni)."""
        pairs = list(itertools.combinations(names, 2))
        tests = [self.difference_p(a, b) for a, b in pairs]
        adjusted = holm([p for _, p in tests])
        ahead = dict.fromkeys(names, 0)
        behind = dict.fromkeys(names, 0)
        for (a, b), (diff, _), q in zip(pairs, tests, adjusted, strict=True):
            if diff is None or q >= SEPARATION_ALPHA or diff == 0:
                continue
            winner, loser = (a, b) if diff > 0 else (b, a)
            ahead[winner] += 1
            behind[loser] += 1
        n = len(names)
        return {e: (1 + behind[e], n - ahead[e]) for e in names}

    def separation(self, order: Sequence[str]) -> list[tuple[bool, float | None]]:
        """For each place of ``order`` but the last: (separated from the next place, Holm-adjusted p-value).

        Separated means the entrant's mean matchpoints are higher than the next one's and the Holm-adjusted p-value
        over the ``len(order) - 1`` adjacent comparisons is below 5%.
        """
        tests = [self.difference_p(a, b) for a, b in itertools.pairwise(order)]
        adjusted = holm([p for _, p in tests])
        return [
            (diff is not None and diff > 0 and q < SEPARATION_ALPHA, None if diff is None else q)
            for (diff, _), q in zip(tests, adjusted, strict=True)
        ]


@dataclass(frozen=True, slots=True)
class DealStanding:
    """A standing computed from blocks alone (``deal_standing``): the entrants best first by mean matchpoints over
    their blocks, each entrant's figures with their 95% intervals over blocks, its rank interval (joint, 95%), and
    for each place but the last whether it is separated from the next (Holm over the adjacent pairs) with the
    adjusted p-value."""

    order: tuple[str, ...]
    entrants: Mapping[str, EntrantDeals]
    rank_interval: Mapping[str, tuple[int, int]]
    separated: tuple[tuple[bool, float | None], ...]
    deals: int

    def to_dict(self) -> dict[str, object]:
        return {
            "deals": self.deals,
            "entrants": [
                {
                    "name": name,
                    **self.entrants[name].to_dict(),
                    "rank_interval": list(self.rank_interval[name]),
                    "separated_from_next": None if i == len(self.order) - 1 else self.separated[i][0],
                    "separation_p": None if i == len(self.order) - 1 else self.separated[i][1],
                }
                for i, name in enumerate(self.order)
            ],
        }


def deal_standing(blocks: Iterable[Sequence[Sequence[CountedRow]]], names: Sequence[str] | None = None) -> DealStanding:
    """The standing of ``blocks``: each block a sequence of games (every game of one deal at one table), each game a
    sequence of seats (``entrant``, ``score``, ``forfeit_kind``: a ``SeatRow``), forfeits counted as the worst score
    at their table. ``names`` (default: every entrant met) fixes who is listed; an entrant without a block comes
    last. Ties in matchpoints go by relative score, then name. Raises ``ValueError`` for a malformed block."""
    tally = DealTally()
    for number, block in enumerate(blocks):
        tally.add_block(number, block)
    listed = list(names) if names is not None else sorted(tally.outcomes)
    figures = {n: tally.entrant(n) for n in listed}

    def key(name: str) -> tuple[bool, float, float, str]:
        e = figures[name]
        return (e.matchpoints is None, -(e.matchpoints or 0.0), e.relative_score or 0.0, name)

    order = tuple(sorted(listed, key=key))
    return DealStanding(order, figures, tally.rank_intervals(order), tuple(tally.separation(order)), tally.blocks)
