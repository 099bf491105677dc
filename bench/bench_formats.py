"""Games each format needs to find the top K of a large field: race against balanced against round robin.

Simulated fields, no processes: an entrant's total on a block (one deal, every seat rotation at a table of 4) is
``-strength + deal noise`` (lower is better). Strengths are drawn from a normal distribution with the spread of the
sample bots' strengths, and the noise has the per-deal spread of their real games (see bench/README.md for the
measurement and its command). For each field size and K:

- race: ``referee.tournament.Race`` itself (the code behind ``--format race``, capped at ``--max-games``), one run
  per seed: the games it used, whether it settled, and whether its settled top K is exactly the true top K;
- balanced: every entrant at T tables per round-robin-free "round" (a random partition into tables of 4, so every
  entrant sits at exactly T tables after T rounds); the top K by mean matchpoints after T rounds, and the share of
  seeds on which that order is exactly right, for T = 1, 2, 3, ...; the games balanced needs is N·T for the smallest
  T whose share reaches the target (95% by default, and the race's own share);
- round robin: C(N, 4) · 4 games (one deal per table).

The target (issue 12): race reaches at least 95% exactly right with at least 3x fewer games than balanced needs
for the same share. Usage::

    python bench/bench_formats.py                               # 20, 200 and 1,000 entrants; top 3 and 10; 200 seeds
    python bench/bench_formats.py --fields 20 200 --seeds 50     # quicker
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.tournament import Race

#: Spread (sd) of the strengths: the sample bots greedy, heuristic and montecarlo, mean relative score per game
#: over the same deals (bench/README.md: measured 0.0, -8.6, -10.3 points per game).
STRENGTH_SD = 4.6
#: Per-deal noise (sd) of one entrant's mean score per game on a block: the residual of the same measurement,
#: 2.5 points of relative score, is the noise of an entrant minus its table's mean: x sqrt(4/3) for the entrant's own.
NOISE_SD = 2.9
TABLE = 4


def field(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).normal(0.0, STRENGTH_SD, n)


def run_race(strength: np.ndarray, top: int, seed: int, max_games: int) -> tuple[int, bool, bool]:
    """(games used, settled, settled top K exactly right) of one race."""
    names = [f"e{i:04d}" for i in range(len(strength))]
    level = dict(zip(names, strength.tolist(), strict=True))
    rng = random.Random(seed * 7919 + 1)
    race = Race(names, table_size=TABLE, seed=seed, top=top, confidence=0.95, max_games=max_games)
    gauss = rng.gauss
    while (tables := race.next_tables()) is not None:
        race.record([{e: -level[e] + gauss(0.0, NOISE_SD) for e in t} for t in tables])
    outcome = race.outcome()
    truth = [names[i] for i in np.argsort(-strength)[:top]]
    return outcome.games, outcome.settled, outcome.settled and list(outcome.order[:top]) == truth


def balanced_right(strength: np.ndarray, top: int, rounds: int, seed: int) -> np.ndarray:
    """For T = 1..rounds: whether the top K by mean matchpoints after T rounds is exactly the true top K."""
    n = len(strength)
    rng = np.random.default_rng(seed + 10_000_019)
    order = np.argsort(rng.random((rounds, n)), axis=1)  # each round a random partition into tables
    tables = order.reshape(rounds, n // TABLE, TABLE)
    totals = -strength[tables] + rng.normal(0.0, NOISE_SD, tables.shape)
    beaten = (totals[..., :, None] < totals[..., None, :]).sum(-1) + 0.5 * (
        (totals[..., :, None] == totals[..., None, :]).sum(-1) - 1
    )
    share = beaten / (TABLE - 1)
    points = np.zeros((rounds, n))
    np.put_along_axis(points, order, share.reshape(rounds, n), axis=1)
    mean = np.cumsum(points, axis=0)  # equal counts per entrant, so sums order like means
    truth = np.argsort(-strength)[:top]
    best = np.argsort(-mean, axis=1, kind="stable")[:, :top]
    return (best == truth).all(axis=1)


def games_needed(right: np.ndarray, n: int, target: float) -> tuple[int | None, float]:
    """The balanced games (N·T) of the smallest T whose share of right seeds reaches ``target``, and that share."""
    shares = right.mean(axis=0)
    hit = np.nonzero(shares >= target)[0]
    if not len(hit):
        return None, float(shares.max())
    t = int(hit[0]) + 1
    return n * t, float(shares[t - 1])


def _shown(need: int | None, share: float, n: int, rounds: int) -> str:
    return f"{need:,} (T={need // n}, {share:.0%})" if need else f"> {n * rounds:,} (best {share:.0%})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fields", type=int, nargs="+", default=[20, 200, 1000])
    parser.add_argument("--tops", type=int, nargs="+", default=[3, 10])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--max-games", type=int, default=100_000, help="the race's cap (its --max-games)")
    parser.add_argument("--rounds", type=int, default=2000, help="balanced: the largest T tried")
    parser.add_argument("--target", type=float, default=0.95)
    args = parser.parse_args()
    print(f"strengths ~ N(0, {STRENGTH_SD}), per-deal noise sd {NOISE_SD}, tables of {TABLE}, {args.seeds} seeds")
    header = (
        "entrants top | race games: median  mean  p90 | settled  right | balanced games for 95% (T) | "
        "balanced for race's share | round robin | balanced/race (mean)"
    )
    print(header)
    verdicts = []
    for n in args.fields:
        for top in args.tops:
            if top >= n:
                continue
            start = time.perf_counter()
            races = [run_race(field(n, s), top, s, args.max_games) for s in range(args.seeds)]
            games = [g for g, _, _ in races]
            settled = sum(s for _, s, _ in races) / args.seeds
            right = sum(r for _, _, r in races) / args.seeds
            rounds = min(args.rounds, max(1, 4 * args.max_games // n))
            table = np.array([balanced_right(field(n, s), top, rounds, s) for s in range(args.seeds)])
            need95, share95 = games_needed(table, n, args.target)
            need_same, share_same = games_needed(table, n, max(args.target, right))
            rr = math.comb(n, TABLE) * TABLE
            mean = statistics.fmean(games)
            ratio = need95 / mean if need95 else float("inf")
            p90 = sorted(games)[int(0.9 * (len(games) - 1))]

            a, b = _shown(need95, share95, n, rounds), _shown(need_same, share_same, n, rounds)
            print(
                f"{n:8d} {top:3d} | {statistics.median(games):12,.0f} {mean:7,.0f} {p90:7,} | {settled:7.1%} "
                f"{right:6.1%} | {a:>26} | {b:>25} | {rr:11,} | {ratio:5.1f}x   ({time.perf_counter() - start:.0f} s)",
                flush=True,
            )
            verdicts.append(right >= args.target and ratio >= 3)
    met = all(verdicts)
    print(
        f"target (race >= {args.target:.0%} exactly right with >= 3x fewer games than balanced): "
        f"{'met' if met else 'not met'} in {sum(verdicts)} of {len(verdicts)} cases"
    )


if __name__ == "__main__":
    main()
