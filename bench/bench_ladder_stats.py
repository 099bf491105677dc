"""Ladder statistics, simulated: the official standing against a plain Bradley-Terry fit on the same blocks.

Not a test. Each scenario plays simulated ladders (``referee.ladder.simulate``: the real store, field, matchmaker
with its rating windows, and settling; duplicate blocks, the card luck staying with the seat) and at the end
compares, over the ranked versions, two standings of the same stored blocks with the truth:

- ``official``: the ladder's (``referee.ladder.standing.official_standing``): a Bradley-Terry fit to the pairs of
  every block with a sharpness per table size, the sandwich covariance clustered by block, Holm's joint rank
  intervals;
- ``plain BT``: one Bradley-Terry fit to the same pairs, every pair of every block counted as an independent
  comparison (the inverse Fisher information as its covariance), the same Holm construction.

The truth is the estimand itself: each version's expected matchpoints against the ranked field at a table drawn
with the ladder's ``table_weights`` (2, 3, 4 seats: 1, 1, 2), computed from the simulation's model (a block total
is k games of ``20 + luck - strength + noise``, the luck cancelling between versions; a skewed version adds 25 to
a game with its skew's chance). Printed per scenario: Spearman's correlation with the true order, how many of the
true top 10 are in the top 10, the share of runs in which *every* 95% rank interval held its true rank (joint
coverage, with its Clopper-Pearson 95% interval), the median width of the rank intervals (in places), and the
time the official standing took (reading the blocks from the store and fitting).

Scenarios: ``base20``, ``base50``, ``base200`` (entrants of strength N(0, 2) points a game, 500 games an entrant);
``late`` (20 entrants, one 1.5 points stronger than the best submitted half way); ``clusters`` (60 entrants in two
clusters, N(-3, 1) and N(3, 1)); ``retire`` (20 entrants, 8 of them replaced half way by a new version, strength
+N(0.3, 0.5)); ``skew`` (20 entrants, 6 of them with a 10-25% chance of a +25 game: their estimand is below what
their strength says); ``cycle`` (21 entrants of strength N(0, 1) in three groups, each beating the next by 1.5
points a game per opponent of that group at its table: strength that is not one number).

Run: ``python bench/bench_ladder_stats.py --runs 20`` (``--scenarios base20,late`` for a part; base200 takes
minutes a run). Figures in bench/README.md, "Ladder statistics, simulated".
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import math
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.contest.block_stats import SEPARATION_ALPHA, holm  # noqa: E402
from referee.ladder import strengths as st  # noqa: E402
from referee.ladder.model import Block, VersionState  # noqa: E402
from referee.ladder.simulate import SimulatedLadder, SimVersion  # noqa: E402
from referee.ladder.standing import official_standing  # noqa: E402
from referee.ladder.store import GameRow  # noqa: E402
from referee.ladder.strengths import BlockSeat, seats_of  # noqa: E402

WEIGHTS = {2: 1.0, 3: 1.0, 4: 2.0}
JOBS = 8
GAME_SECONDS = 3.0
NOISE = 3.0


@dataclass(frozen=True)
class Scenario:
    name: str
    entrants: int
    games: int
    field: Callable[[random.Random, float], list[SimVersion]]  # (rng, span in simulated seconds) -> versions
    cycle: float = 0.0  # non-transitive strength: points a game against each opponent of the group it beats


def _group(entrant: str) -> int:
    """An entrant's group in the non-transitive scenario: g0 beats g1 beats g2 beats g0."""
    return int(entrant[1:]) % 3


def _versus(a: str, b: str, cycle: float) -> float:
    """Points a game that entrant a gains (a lower score) from sitting at a table with b."""
    ga, gb = _group(a), _group(b)
    return cycle if gb == (ga + 1) % 3 else -cycle if ga == (gb + 1) % 3 else 0.0


class CycleLadder(SimulatedLadder):
    """The simulated ladder with non-transitive strength: each game, a version scores ``cycle`` points less for
    each opponent at the table of the group it beats, and more for each of the group that beats it."""

    cycle = 0.0

    def _games(self, block: Block) -> list[GameRow]:
        rows = super()._games(block)
        names = {v: self.truth[v].entrant for v in block.seats}
        shift = {v: round(-sum(_versus(names[v], names[o], self.cycle) for o in block.seats if o != v)) for v in names}
        out = []
        for row in rows:
            scores = tuple(s + shift[v] for v, s in zip(row.seats, row.scores, strict=True))
            keys = list(zip(row.forfeits, scores, strict=True))
            ranks = tuple(1 + sum(o < keys[i] for o in keys) for i in range(len(keys)))
            out.append(dataclasses.replace(row, scores=scores, ranks=ranks))
        return out


def _plain(rng: random.Random, n: int) -> list[SimVersion]:
    return [SimVersion(f"e{i}", rng.gauss(0, 2)) for i in range(n)]


def _late(rng: random.Random, span: float) -> list[SimVersion]:
    field = _plain(rng, 19)
    best = max(v.strength for v in field)
    return [*field, SimVersion("late", best + 1.5, at=span / 2)]


def _clusters(rng: random.Random, span: float) -> list[SimVersion]:
    return [SimVersion(f"e{i}", rng.gauss(-3 if i % 2 else 3, 1)) for i in range(60)]


def _retire(rng: random.Random, span: float) -> list[SimVersion]:
    field = _plain(rng, 20)
    return [*field, *(SimVersion(v.entrant, v.strength + rng.gauss(0.3, 0.5), at=span / 2) for v in field[:8])]


def _cyclic(rng: random.Random, span: float) -> list[SimVersion]:
    return [SimVersion(f"c{i}", rng.gauss(0, 1)) for i in range(21)]


def _skew(rng: random.Random, span: float) -> list[SimVersion]:
    return [SimVersion(f"e{i}", rng.gauss(0, 2), skew=rng.uniform(0.1, 0.25) if i < 6 else 0.0) for i in range(20)]


SCENARIOS = {
    s.name: s
    for s in [
        Scenario("base20", 20, 10_000, lambda r, _: _plain(r, 20)),
        Scenario("base50", 50, 25_000, lambda r, _: _plain(r, 50)),
        Scenario("base200", 200, 100_000, lambda r, _: _plain(r, 200)),
        Scenario("late", 20, 10_000, _late),
        Scenario("clusters", 60, 30_000, _clusters),
        Scenario("retire", 20, 10_000, _retire),
        Scenario("skew", 20, 10_000, _skew),
        Scenario("cycle", 21, 10_000, _cyclic, cycle=1.5),
    ]
}


def _phi(x: np.ndarray) -> np.ndarray:
    return np.asarray(0.5 * (1 + np.vectorize(math.erf)(x / math.sqrt(2))))


def estimand(versions: Sequence[SimVersion]) -> list[float]:
    """Each version's expected matchpoints against the others at a table drawn with WEIGHTS (normal noise, the
    rounding of each game's score taken as uniform noise, a skewed game +25)."""
    n = len(versions)
    s = np.array([v.strength for v in versions])
    skew = np.array([v.skew for v in versions])
    total = sum(WEIGHTS.values())
    out = np.zeros(n)
    for k, w in WEIGHTS.items():
        sd = math.sqrt(2 * k * (NOISE**2 + 1 / 12))
        p = np.zeros((n, n))
        for a in range(k + 1):  # skewed games of i and of j
            for b in range(k + 1):
                pa = np.array([math.comb(k, a) * q**a * (1 - q) ** (k - a) for q in skew])
                pb = pa if a == b else np.array([math.comb(k, b) * q**b * (1 - q) ** (k - b) for q in skew])
                # i beats j when its total is lower: -k s_i + 25 a < -k s_j + 25 b
                gap = k * (s[:, None] - s[None, :]) + 25 * (b - a)
                p += pa[:, None] * pb[None, :] * _phi(gap / sd)
        np.fill_diagonal(p, 0.0)
        out += w / total * p.sum(axis=1) / (n - 1)
    return [float(x) for x in out]


def estimand_tables(versions: Sequence[SimVersion], cycle: float) -> list[float]:
    """The estimand by enumerating every table of each size (normal noise, rounding as uniform noise), with the
    non-transitive shifts of ``CycleLadder``."""
    n = len(versions)
    total = sum(WEIGHTS.values())
    out = [0.0] * n
    for k, w in WEIGHTS.items():
        sd = math.sqrt(2 * k * (NOISE**2 + 1 / 12))
        for i in range(n):
            others = [j for j in range(n) if j != i]
            acc = 0.0
            tables = list(itertools.combinations(others, k - 1))
            for rest in tables:
                table = (i, *rest)

                def mean(v: int, table: tuple[int, ...] = table, k: int = k) -> float:
                    a = versions[v]
                    shift = sum(_versus(a.entrant, versions[o].entrant, cycle) for o in table if o != v)
                    return -k * (a.strength + round(shift))

                mi = mean(i)
                acc += sum(0.5 * math.erfc((mi - mean(j)) / sd / math.sqrt(2)) for j in rest) / (k - 1)
            out[i] += w / total * acc / len(tables)
    return out


def plain_bt(blocks: dict[int, list[BlockSeat]], field: Sequence[int]) -> list[tuple[int, tuple[int, int]]]:
    """(version, rank interval) of ``field`` from one Bradley-Terry fit, every pair an independent comparison."""
    # every block's pairs pooled as one size (one sharpness), the model-based covariance
    versions = sorted({v for seats in blocks.values() for v, _, _ in seats})
    where = {v: i for i, v in enumerate(versions)}
    m = len(versions)
    n = np.zeros((m, m), dtype=np.int64)
    w = np.zeros((m, m), dtype=np.int64)
    for seats in blocks.values():
        for (va, ta, fa), (vc, tc, fc) in itertools.permutations(seats, 2):
            n[where[va], where[vc]] += 1
            ka, kc = (fa > 0, ta), (fc > 0, tc)
            w[where[va], where[vc]] += 2 if ka < kc else 1 if ka == kc else 0
    s = np.zeros(m)
    scale = np.ones(1)
    for _ in range(200):
        s_new, _ = st._step(s, scale, [(n, w)])
        done = float(np.max(np.abs(s_new - s))) < 1e-10
        s = s_new
        if done:
            break
    _, info = st._gradient(s, scale, [(n, w)])
    cov = np.linalg.inv(info)
    order = sorted(field, key=lambda v: -s[where[v]])
    pairs = list(itertools.combinations(order, 2))
    ps = []
    for a, b in pairs:
        i, j = where[a], where[b]
        z = (s[i] - s[j]) / math.sqrt(max(cov[i, i] + cov[j, j] - 2 * cov[i, j], 1e-300))
        ps.append(math.erfc(abs(z) / math.sqrt(2)))
    adj = holm(ps)
    above = dict.fromkeys(order, 0)
    below = dict.fromkeys(order, 0)
    for (a, b), q in zip(pairs, adj, strict=True):
        if q < SEPARATION_ALPHA:
            below[a] += 1
            above[b] += 1
    k = len(order)
    return [(v, (1 + above[v], k - below[v])) for v in order]


@dataclass
class Figures:
    spearman: float
    top10: int
    held: bool
    width: float


def figures(order: Sequence[tuple[int, tuple[int, int]]], true_rank: dict[int, int]) -> Figures:
    n = len(order)
    d2 = sum((i + 1 - true_rank[v]) ** 2 for i, (v, _) in enumerate(order))
    return Figures(
        1 - 6 * d2 / (n * (n * n - 1)),
        sum(true_rank[v] <= 10 for v, _ in order[:10]),
        all(lo <= true_rank[v] <= hi for v, (lo, hi) in order),
        statistics.median(hi - lo + 1 for _, (lo, hi) in order),
    )


def clopper_pearson(k: int, n: int) -> tuple[float, float]:
    """The exact 95% interval of a binomial share k/n (by bisection on the binomial tail)."""

    def tail_ge(p: float) -> float:
        return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k, n + 1))

    def tail_le(p: float) -> float:
        return sum(math.comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(0, k + 1))

    def solve(f: Callable[[float], float], increasing: bool) -> float:
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = (lo + hi) / 2
            if (f(mid) < 0.025) == increasing:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2

    low = 0.0 if k == 0 else solve(tail_ge, True)
    high = 1.0 if k == n else solve(tail_le, False)
    return low, high


def run_once(sc: Scenario, seed: int, folder: Path) -> tuple[Figures, Figures, float, int]:
    rng = random.Random(seed)
    span = sc.games * GAME_SECONDS / JOBS
    versions = sc.field(rng, span)
    kind = CycleLadder if sc.cycle else SimulatedLadder
    CycleLadder.cycle = sc.cycle
    sim = kind(folder, "", versions, jobs=JOBS, game_seconds=GAME_SECONDS, noise=NOISE, seed=seed)
    try:
        sim.run(games=sc.games)
        ranked = [v.id for v in sim.store.versions(states=[VersionState.RANKED])]
        t = time.perf_counter()
        blocks = seats_of(sim.store.standing_blocks(ranked))
        official = official_standing(blocks, ranked, WEIGHTS)
        took = time.perf_counter() - t
        field = [sim.truth[v] for v in ranked]
        truth = estimand_tables(field, sc.cycle) if sc.cycle else estimand(field)
        by_truth = sorted(range(len(ranked)), key=lambda i: -truth[i])
        true_rank = {ranked[i]: r for r, i in enumerate(by_truth, start=1)}
        mine = figures([(r.version_id, r.rank_interval) for r in official], true_rank)
        plain = figures(plain_bt(blocks, ranked), true_rank)
        return mine, plain, took, sim.trace.games
    finally:
        sim.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=20, help="simulated ladders per scenario")
    ap.add_argument("--runs200", type=int, default=5, help="runs of base200 (minutes each)")
    ap.add_argument(
        "--scenarios",
        default=",".join(SCENARIOS),
        help="comma-separated, each NAME or NAME:RUNS, of: " + ", ".join(SCENARIOS),
    )
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(
        f"{'scenario':<9} {'runs':>4} {'games':>7}  {'Spearman':>15}  {'top 10':>11}  "
        f"{'joint coverage [95%]':>33}  {'median width':>13}  {'fit s':>5}"
    )
    print(f"{'':<24}  {'offic.  BT':>15}  {'offic. BT':>11}  {'official':>16} {'plain BT':>16}  {'offic.  BT':>13}")
    for item in args.scenarios.split(","):
        name, _, count = item.partition(":")
        sc = SCENARIOS[name]
        runs = int(count) if count else args.runs200 if name == "base200" else args.runs
        res = []
        with tempfile.TemporaryDirectory() as tmp:
            for r in range(runs):
                res.append(run_once(sc, args.seed * 1000 + r, Path(tmp) / f"r{r}"))
                m, p, took, _ = res[-1]
                print(f"  {name} run {r + 1}: official {m}, plain {p}, fit {took:.2f} s", file=sys.stderr, flush=True)
        mine = [m for m, _, _, _ in res]
        plain = [p for _, p, _, _ in res]

        def cov(fs: list[Figures]) -> str:
            k = sum(f.held for f in fs)
            lo, hi = clopper_pearson(k, len(fs))
            return f"{k}/{len(fs)} [{lo:.2f},{hi:.2f}]"

        print(
            f"{name:<9} {runs:>4} {statistics.mean(g for *_, g in res):>7.0f}  "
            f"{statistics.mean(f.spearman for f in mine):>7.3f} {statistics.mean(f.spearman for f in plain):>7.3f}  "
            f"{statistics.mean(f.top10 for f in mine):>5.1f} {statistics.mean(f.top10 for f in plain):>5.1f}  "
            f"{cov(mine):>16} {cov(plain):>16}  "
            f"{statistics.median(f.width for f in mine):>6.1f} {statistics.median(f.width for f in plain):>6.1f}  "
            f"{max(t for _, _, t, _ in res):>5.2f}",
            flush=True,
        )


if __name__ == "__main__":
    main()
