"""Games each format needs to find the top K of a large field: race against balanced against round robin.

Simulated fields, no processes: an entrant's total on a block (one deal, every seat rotation at a table of 4, so 4
games) is ``4 · (-strength + deal noise)`` points (lower is better). Strengths are drawn from a normal distribution
with the spread of the sample bots' strengths, and the noise has the per-deal spread of their real games (see
bench/README.md for the measurement and its command). For each field size N and K, over the same seeds:

- race: ``referee.tournament.Race`` itself (the code behind ``--format race``, capped at ``--max-games``), one run
  per seed and per head-to-head statistic (``--stats``): ``sign`` (the sign test), ``difference`` (the paired
  difference clipped at twice the spread of the earlier ones, the race's default), ``rules`` (the paired difference
  scaled by the largest difference the rules allow, ``rules_bound``). For each: the games it used, whether it
  settled, and whether its settled top K is exactly the true top K;
- balanced: every entrant at T tables (T rounds of a random partition into tables of 4), the top K by mean
  matchpoints and by mean relative score (the better of the two is compared); the share of seeds on which that order
  is exactly right, for T on a geometric grid; the games balanced needs is N·T for the smallest T of the grid whose
  share reaches the target (95% by default) or the race's own share. Balanced is judged by an oracle that knows the
  truth; it certifies nothing;
- round robin: C(N, 4) · 4 games (one deal per table).

The target (issue 12): race reaches at least 95% exactly right with at least 3x fewer games than balanced needs
for the same share. Usage::

    python bench/bench_formats.py                               # 20, 200 and 1,000 entrants; top 3 and 10; 200 seeds
    python bench/bench_formats.py --fields 20 200 --seeds 50     # quicker
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.engine import Ruleset
from referee.tournament import Race

#: Spread (sd) of the strengths: the sample bots greedy, heuristic and montecarlo, mean relative score per game
#: over the same deals (bench/README.md: measured 0.0, -8.6, -10.3 points per game).
STRENGTH_SD = 4.6
#: Per-deal noise (sd) of one entrant's mean score per game on a block: the residual of the same measurement,
#: 2.5 points of relative score, is the noise of an entrant minus its table's mean: x sqrt(4/3) for the entrant's own.
NOISE_SD = 2.9
TABLE = 4
STATS = ("sign", "difference", "rules")


def rules_bound(ruleset: Ruleset, table_size: int) -> float:
    """The largest difference two block totals can have under ``ruleset`` (RULES.md, Scoring), for the ``rules``
    statistic. Per game a score is at least −finish_refund·rounds − bonus_refund·start_bonus (every round finished,
    every bonus chip kept) and at most, per round, 21 chips for each card kept (the largest skip: a 23 on the 1) plus
    2 for each of the round's turns (pass and force) plus a drop of every card kept. A block is table_size games."""
    kept = ruleset.hand_size - ruleset.discard
    lowest = -ruleset.finish_refund * ruleset.rounds - ruleset.bonus_refund * ruleset.start_bonus
    highest = ruleset.rounds * (21 * kept + 2 * ruleset.max_turns_per_round + kept)
    return float(table_size * (highest - lowest))


def field(n: int, seed: int) -> npt.NDArray[np.float64]:
    return np.random.default_rng(seed).normal(0.0, STRENGTH_SD, n)


def run_race(job: tuple[int, int, int, int, str]) -> tuple[int, bool, bool]:
    """(games used, settled, settled top K exactly right) of one race."""
    n, top, seed, max_games, stat = job
    strength = field(n, seed)
    names = [f"e{i:04d}" for i in range(n)]
    level = dict(zip(names, (-TABLE * strength).tolist(), strict=True))
    rng = random.Random(seed * 7919 + 1)
    statistic = "sign" if stat == "sign" else "difference"
    bound = rules_bound(Ruleset(), TABLE) if stat == "rules" else None
    race = Race(
        names,
        table_size=TABLE,
        seed=seed,
        top=top,
        confidence=0.95,
        max_games=max_games,
        pair_statistic=statistic,
        pair_bound=bound,
    )
    gauss, noise = rng.gauss, TABLE * NOISE_SD
    while (tables := race.next_tables()) is not None:
        race.record([{e: level[e] + gauss(0.0, noise) for e in t} for t in tables])
    outcome = race.outcome()
    truth = [names[i] for i in np.argsort(-strength)[:top]]
    return outcome.games, outcome.settled, outcome.settled and list(outcome.order[:top]) == truth


def grid(largest: int) -> list[int]:
    """T = 1, 2, 3, ... growing by about 12% a step, up to ``largest``."""
    ts = [1]
    while ts[-1] < largest:
        ts.append(max(ts[-1] + 1, round(ts[-1] * 1.12)))
    return ts


def balanced_right(job: tuple[int, int, int, list[int]]) -> npt.NDArray[np.bool_]:
    """For each T of ``ts``: whether the top K after T rounds is exactly the true top K, by mean matchpoints (row 0)
    and by mean relative score (row 1)."""
    n, top, seed, ts = job
    strength = field(n, seed)
    rng = np.random.default_rng(seed + 10_000_019)
    truth = np.argsort(-strength)[:top]
    points = np.zeros(n)
    relative = np.zeros(n)
    right = np.zeros((2, len(ts)), dtype=bool)
    done = 0
    chunk = max(1, 200_000 // n)
    for i, t in enumerate(ts):
        while done < t:
            rounds = min(chunk, t - done)
            order = np.argsort(rng.random((rounds, n)), axis=1)  # each round a random partition into tables
            tables = order[:, : n - n % TABLE].reshape(rounds, -1, TABLE)
            totals = TABLE * (-strength[tables] + rng.normal(0.0, NOISE_SD, tables.shape))
            beaten = (totals[..., :, None] < totals[..., None, :]).sum(-1) + 0.5 * (
                (totals[..., :, None] == totals[..., None, :]).sum(-1) - 1
            )
            np.add.at(points, tables, beaten / (TABLE - 1))
            np.add.at(relative, tables, (totals - totals.mean(axis=-1, keepdims=True)) / TABLE)
            done += rounds
        # equal counts per entrant (N divisible by 4), so sums order like means; relative score: lower is better
        right[0, i] = (np.argsort(-points, kind="stable")[:top] == truth).all()
        right[1, i] = (np.argsort(relative, kind="stable")[:top] == truth).all()
    return right


def games_needed(shares: npt.NDArray[np.float64], ts: list[int], n: int, target: float) -> tuple[int | None, float]:
    """The balanced games (N·T) of the smallest T whose share of right seeds reaches ``target``, and that share."""
    hit = np.nonzero(shares >= target - 1e-12)[0]
    if not len(hit):
        return None, float(shares.max())
    return n * ts[int(hit[0])], float(shares[hit[0]])


def _shown(need: int | None, share: float, n: int, most: int) -> str:
    return f"{need:,} ({share:.0%})" if need else f"> {n * most:,} (best {share:.0%})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fields", type=int, nargs="+", default=[20, 200, 1000])
    parser.add_argument("--tops", type=int, nargs="+", default=[3, 10])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument("--stats", nargs="+", choices=STATS, default=["sign", "difference"])
    parser.add_argument("--max-games", type=int, default=100_000, help="the race's cap (its --max-games)")
    parser.add_argument("--balanced-max-games", type=int, default=1_000_000, help="balanced: the most games tried")
    parser.add_argument("--target", type=float, default=0.95)
    parser.add_argument("--jobs", type=int, default=2, help="processes (seeds run in parallel)")
    args = parser.parse_args()
    print(
        f"strengths ~ N(0, {STRENGTH_SD}), per-deal noise sd {NOISE_SD} points per game, tables of {TABLE}, "
        f"{args.seeds} seeds, race capped at {args.max_games:,} games, balanced at {args.balanced_max_games:,}"
    )
    print(
        "entrants top race-statistic | race games: median  mean  p90 | settled  right | "
        "balanced for 95%: matchpoints, relative score | balanced for race's share | round robin | that / race mean"
    )
    verdicts = []
    with multiprocessing.Pool(args.jobs) as pool:
        for n in args.fields:
            for top in args.tops:
                if top >= n:
                    continue
                start = time.perf_counter()
                ts = grid(max(1, args.balanced_max_games // n))
                table = np.array(pool.map(balanced_right, [(n, top, s, ts) for s in range(args.seeds)]))
                shares = table.mean(axis=0)  # (method, T)
                rr = math.comb(n, TABLE) * TABLE
                for stat in args.stats:
                    races = pool.map(run_race, [(n, top, s, args.max_games, stat) for s in range(args.seeds)])
                    games = [g for g, _, _ in races]
                    settled = sum(s for _, s, _ in races) / args.seeds
                    right = sum(r for _, _, r in races) / args.seeds
                    by_method = [games_needed(shares[m], ts, n, args.target) for m in (0, 1)]
                    same = [games_needed(shares[m], ts, n, right) for m in (0, 1)]
                    need_same = min((g for g, _ in same if g), default=None)
                    mean = statistics.fmean(games)
                    ratio = need_same / mean if need_same else float("inf")
                    p90 = sorted(games)[int(0.9 * (len(games) - 1))]
                    a, b = (_shown(g, s, n, ts[-1]) for g, s in by_method)
                    c = f"{need_same:,}" if need_same else f"> {n * ts[-1]:,}"
                    print(
                        f"{n:8d} {top:3d} {stat:>10} | {statistics.median(games):12,.0f} {mean:7,.0f} {p90:7,} | "
                        f"{settled:7.1%} {right:6.1%} | {a:>20}, {b:>20} | {c:>12} | {rr:11,} | {ratio:5.1f}x"
                        f"   ({time.perf_counter() - start:.0f} s)",
                        flush=True,
                    )
                    verdicts.append(right >= args.target and ratio >= 3)
    print(
        f"target (race >= {args.target:.0%} exactly right with >= 3x fewer games than balanced): "
        f"met in {sum(verdicts)} of {len(verdicts)} cases"
    )


if __name__ == "__main__":
    main()
