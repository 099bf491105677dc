"""Games each format needs to find the top K of a large field: race against balanced against round robin.

Simulated fields, no processes: an entrant's total on a block (one deal, every seat rotation at a table of 4, so 4
games) is ``4 · (-strength + deal noise)`` points (lower is better). Strengths are drawn from a normal distribution
with the spread of the sample bots' strengths, and the noise has the per-deal spread of their real games (see
bench/README.md for the measurement and its command). For each field size N and K, over the same seeds:

- race: ``referee.tournament.Race`` itself (the code behind ``--format race``, capped at ``--max-games``), one run
  per seed and per tie margin (``--margins``, in matchpoints, the race's unit; 0 is the exact race). For each: the
  games it used, whether it settled, whether its settled top K is exactly the true top K, whether it is right up to
  the margin (no entrant of its top K weaker by the margin or more, in expected matchpoints, than one it reports
  below it: what the race guarantees at 95%), the pairs it settled only up to the margin; and, as a *budgeted* race
  (F-race/irace: the answer a race capped at B games reports, settled or not), the smallest budget B of a geometric
  grid at which that answer is exactly right on 95% of the seeds (exact races only: a race with a margin stops once
  settled up to it). In this model (one shape of luck for everyone) the order of strengths is the order of expected
  matchpoints, so the truth is the same for every method;
- balanced: every entrant at T tables (T rounds of a random partition into tables of 4), the top K by mean
  matchpoints and by mean relative score (the better of the two is compared); the share of seeds on which that order
  is exactly right, for T on a geometric grid; the games balanced needs is N·T for the smallest T of the grid whose
  share reaches the target (95% by default) or the race's own share. Balanced is judged by an oracle that knows the
  truth; it certifies nothing;
- round robin: C(N, 4) · 4 games (one deal per table).

The target (issue 12): race reaches at least 95% exactly right with at least 3x fewer games than balanced needs
for the same share. The closing line counts the cases that meet it three ways: the exact settled race; the race
with a tie margin (right up to the margin >= 95%, and 3x fewer games than balanced needs for its exact share); the
budgeted race (exactly right on 95% of seeds within a budget a third of balanced's games for 95%). Usage::

    python bench/bench_formats.py                               # 20, 200 and 1,000 entrants; top 3 and 10; 200 seeds
    python bench/bench_formats.py --fields 20 200 --seeds 50     # quicker

Outside this model (erratic, skewed, opponent-dependent entrants) see bench/bench_estimand.py.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import numpy.typing as npt

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.tournament import Race

#: Spread (sd) of the strengths: the sample bots greedy, heuristic and montecarlo, mean relative score per game
#: over the same deals (bench/README.md: measured 0.0, -8.6, -10.3 points per game).
STRENGTH_SD = 4.6
#: Per-deal noise (sd) of one entrant's mean score per game on a block: the residual of the same measurement,
#: 2.5 points of relative score, is the noise of an entrant minus its table's mean: x sqrt(4/3) for the entrant's own.
NOISE_SD = 2.9
TABLE = 4


def field(n: int, seed: int) -> npt.NDArray[np.float64]:
    return np.random.default_rng(seed).normal(0.0, STRENGTH_SD, n)


def expected_matchpoints(strength: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Each entrant's expected matchpoints against the field (a round robin): in this model the chance of beating
    another on a deal depends on the two alone, Φ((s_i - s_j) / (sqrt(2) NOISE_SD))."""
    from statistics import NormalDist

    cdf = np.vectorize(NormalDist().cdf)
    diff = (strength[:, None] - strength[None, :]) / (np.sqrt(2) * NOISE_SD)
    beat = cdf(diff)
    np.fill_diagonal(beat, 0.0)
    out: npt.NDArray[np.float64] = beat.sum(axis=1) / (len(strength) - 1)
    return out


def budget_grid(cap: int) -> list[int]:
    """Budgets (games) for the budgeted race: 1,000 growing by about 12% a step, up to ``cap``."""
    budgets = [1000]
    while budgets[-1] < cap:
        budgets.append(min(cap, round(budgets[-1] * 1.12)))
    return budgets


def run_race(job: tuple[int, int, int, int, float]) -> dict[str, object]:
    """One race: games used, settled, its top K exactly right, right up to the tie margin (every entrant of the
    reported top K at most the margin weaker, in expected matchpoints, than any entrant reported below it), the
    within-margin pairs, and (budgeted) whether its answer after the last round within each budget of
    ``budget_grid`` is exactly right."""
    n, top, seed, max_games, margin = job
    strength = field(n, seed)
    names = [f"e{i:04d}" for i in range(n)]
    index = {name: i for i, name in enumerate(names)}
    level = -TABLE * strength
    rng = np.random.default_rng(seed * 7919 + 1)
    race = Race(names, table_size=TABLE, seed=seed, top=top, confidence=0.95, max_games=max_games, tie_margin=margin)
    truth = [names[i] for i in np.argsort(-strength)[:top]]
    budgets = budget_grid(max_games)
    by_budget = np.zeros(len(budgets), dtype=bool)
    b = 0
    noise = TABLE * NOISE_SD
    while (tables := race.next_tables()) is not None:
        if race.games + len(tables) * TABLE > budgets[b]:  # the answer a race capped at budgets[b] gives
            right = race.leaders() == truth
            while b < len(budgets) and race.games + len(tables) * TABLE > budgets[b]:
                by_budget[b] = right
                b += 1
        seats = np.array([[index[e] for e in t] for t in tables])
        totals = (level[seats] + rng.normal(0.0, noise, seats.shape)).tolist()
        race.record([dict(zip(t, row, strict=True)) for t, row in zip(tables, totals, strict=True)])
    outcome = race.outcome()
    by_budget[b:] = race.leaders() == truth  # settled (or at the cap: the cap's own answer)
    m_of = dict(zip(names, expected_matchpoints(strength).tolist(), strict=True))
    order = [m_of[e] for e in outcome.order]
    below = np.maximum.accumulate(order[::-1])[::-1]  # the strongest entrant at or below each place
    up_to_margin = all(order[i] > below[i + 1] - margin for i in range(top))
    return {
        "games": outcome.games,
        "settled": outcome.settled,
        "right": outcome.settled and list(outcome.order[:top]) == truth,
        "right_margin": outcome.settled and up_to_margin,
        "within": len(outcome.within_margin),
        "budget": by_budget,
    }


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


def _budget_needed(shares: npt.NDArray[np.float64], budgets: list[int], target: float) -> int | None:
    hit = np.nonzero(shares >= target - 1e-12)[0]
    return budgets[int(hit[0])] if len(hit) else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--fields", type=int, nargs="+", default=[20, 200, 1000])
    parser.add_argument("--tops", type=int, nargs="+", default=[3, 10])
    parser.add_argument("--seeds", type=int, default=200)
    parser.add_argument(
        "--margins", type=float, nargs="+", default=[0.0, 0.02], help="the race's --tie-margin, in matchpoints"
    )
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
        "N K E | race games: median mean p90 | settled exact right-up-to-E within | balanced for "
        "95%: matchpoints, relative score | balanced for race's exact share (x race mean) | budgeted race for 95% "
        "exact (balanced / it) | round robin"
    )
    verdicts: dict[str, list[bool]] = {"settled": [], "margin": [], "budgeted": []}
    budgets = budget_grid(args.max_games)
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
                by_method = [games_needed(shares[m], ts, n, args.target) for m in (0, 1)]
                need95 = min((g for g, _ in by_method if g), default=None)
                for margin in args.margins:
                    jobs = [(n, top, s, args.max_games, margin) for s in range(args.seeds)]
                    races = pool.map(run_race, jobs)
                    games = [int(r["games"]) for r in races]  # type: ignore[call-overload]
                    settled = statistics.fmean(bool(r["settled"]) for r in races)
                    right = statistics.fmean(bool(r["right"]) for r in races)
                    right_margin = statistics.fmean(bool(r["right_margin"]) for r in races)
                    within = statistics.fmean(int(r["within"]) for r in races)  # type: ignore[call-overload]
                    same = [games_needed(shares[m], ts, n, right) for m in (0, 1)]
                    need_same = min((g for g, _ in same if g), default=None)
                    mean = statistics.fmean(games)
                    # balanced never reaching the share within its cap: a lower bound, cap / race mean
                    ratio = (need_same or n * ts[-1]) / mean
                    p90 = sorted(games)[int(0.9 * (len(games) - 1))]
                    a, b = (_shown(g, s, n, ts[-1]) for g, s in by_method)
                    c = f"{need_same:,} ({ratio:.1f}x)" if need_same else f"> {n * ts[-1]:,} (> {ratio:.1f}x)"
                    curve = np.array([r["budget"] for r in races]).mean(axis=0)
                    budget = _budget_needed(curve, budgets, args.target) if margin == 0 else None
                    if margin:  # a margin race stops once settled up to the margin: no budget curve
                        d = "-"
                    elif budget is None:
                        d = f"> {args.max_games:,} (best {curve.max():.0%})"
                    elif need95:
                        d = f"{budget:,} ({need95 / budget:.1f}x)"
                    else:
                        d = f"{budget:,} (> {n * ts[-1] / budget:.1f}x)"
                    print(
                        f"{n} {top} {margin:.3f} | {statistics.median(games):,.0f} {mean:,.0f} {p90:,} | "
                        f"{settled:.1%} {right:.1%} {right_margin:.1%} {within:.2f} | {a}, {b} | {c} | {d} | "
                        f"{rr:,}   ({time.perf_counter() - start:.0f} s)",
                        flush=True,
                    )
                    if margin == 0:
                        verdicts["settled"].append(right >= args.target and ratio >= 3)
                    else:
                        verdicts["margin"].append(right_margin >= args.target and ratio >= 3)
                    best_balanced = need95 or n * ts[-1] + 1
                    if margin == 0:
                        verdicts["budgeted"].append(budget is not None and best_balanced >= 3 * budget)
    print(
        f"target (>= {args.target:.0%} right with >= 3x fewer games than balanced for the same exact share): "
        f"exact settled {sum(verdicts['settled'])} of {len(verdicts['settled'])}; up to the tie margin "
        f"{sum(verdicts['margin'])} of {len(verdicts['margin'])}; budgeted (exact at a fixed budget) "
        f"{sum(verdicts['budgeted'])} of {len(verdicts['budgeted'])}"
    )


if __name__ == "__main__":
    main()
