"""The sequential tests of `referee compare` on simulated blocks: their error rates and the blocks they use,
against a fixed-size test of the same power.

``--test betting`` (the default, ``--metric matchpoints``'s test): matchpoint gains in [-1, 1] of every shape of
``simulate.bounded_blocks`` (normal, heavy-tailed, skewed both ways, sparse), optionally resampled from a real
comparison's blocks, each run stopped at its verdict or at the cap sized from power as ``referee compare`` sizes it
without ``--max-games`` (so "stronger at d1" is the power within the printed cap). ``--test gsprt`` (``--metric
points``): the GSPRT on normal, game-like, right-skewed and mostly identical block differences at several spreads
(the sd of the mostly identical ones is that of the blocks that differ); "stronger at d1" is its power, and the
runs that end inconclusive (no verdict while the blocks are far from normal) are counted apart.

For each it runs the test many times with the true mean gain at d0 (how often does it wrongly say "stronger"?
target: at most alpha) and at d1 (how often does it rightly say so? target: at least 1 - beta), and prints the mean
number of blocks used next to the number a fixed-size one-sided z-test needs for the same alpha and power (with the
standard deviation known in advance, which favours the fixed test). Run from the project root:

    python bench/bench_compare.py                      # the betting test, d1 0.05, 2000 runs per figure
    python bench/bench_compare.py --from compare/20261130-210000
    python bench/bench_compare.py --test gsprt --d1 1  # the points test
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import numpy.typing as npt

from referee.compare import (
    BOUNDED_SHAPES,
    Design,
    block_result,
    bounded_blocks,
    fixed_sample_size,
    game_like_blocks,
    normal_blocks,
    rates,
    resampled_blocks,
    skewed_blocks,
    sparse_blocks,
)
from referee.compare.betting import CAP_FACTOR
from referee.compare.simulate import BoundedSource, Rates, betting_rates
from referee.tournament import ResultsStore


def stored_blocks(folder: Path, metric: str) -> list[float]:
    """The block differences of a stored comparison, in order."""
    with ResultsStore(folder, create=False) as store:
        params = store.params()
        if params is None:
            raise SystemExit(f"{folder} holds no comparison")
        seats = {g.ordinal: g.seats for g in store.games()}
    out: list[float] = []
    while (r := block_result(len(out), params.table_size, seats)) is not None:
        out.append(r.gain(metric))
    return out


def resampled_gains(observed: list[float]) -> BoundedSource:
    """Gains drawn with replacement from ``observed`` (in [-1, 1]), shifted by the amount that brings the mean of the
    shifted and clipped gains to the wanted one (found by bisection), then clipped: a real comparison's shape."""
    values = np.asarray(observed, dtype=float)

    def shift_for(mean: float) -> float:
        low, high = -2.0, 2.0
        for _ in range(60):
            mid = (low + high) / 2
            low, high = (mid, high) if np.clip(values + mid, -1, 1).mean() < mean else (low, mid)
        return (low + high) / 2

    shifts: dict[float, float] = {}

    def draw(rng: np.random.Generator, mean: float, size: int) -> npt.NDArray[np.float64]:
        shift = shifts.setdefault(mean, shift_for(mean))
        out: npt.NDArray[np.float64] = np.clip(rng.choice(values, size) + shift, -1, 1)
        return out

    return draw


def share(p: float, runs: int) -> str:
    return f"{100 * p:5.1f}% ± {196 * math.sqrt(max(p * (1 - p), 1e-12) / runs):3.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--test", choices=["betting", "gsprt"], default="betting")
    parser.add_argument("--runs", type=int, default=2000, help="simulated tests per figure (default 2000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--d0", type=float, default=0.0)
    parser.add_argument("--d1", type=float, help="default: 0.05 (betting, matchpoints), 1.0 (gsprt, points)")
    parser.add_argument("--from", dest="folder", type=Path, help="also resample the blocks of this comparison")
    parser.add_argument("--metric", choices=["matchpoints", "points", "ranks"], help="of --from's blocks")
    args = parser.parse_args()
    betting = args.test == "betting"
    d1 = args.d1 if args.d1 is not None else 0.05 if betting else 1.0
    design = Design(alpha=args.alpha, beta=args.beta, d0=args.d0, d1=d1)
    width = design.d1 - design.d0
    cases: list[tuple[str, float, Any]] = []
    if betting:
        for shape in BOUNDED_SHAPES:
            source = bounded_blocks(shape)
            sample = source(np.random.default_rng(0), design.d1, 200_000)
            cases.append((f"{shape}, sd {sample.std():.2f}", float(sample.std()), source))
    else:
        cases += [(f"normal, sd {k:g} x (d1-d0)", k * width, normal_blocks(k * width)) for k in (1, 3, 6)]
        cases += [
            (f"game-like, {side} tail, sd 3 x (d1-d0)", 3 * width, game_like_blocks(3 * width, tail=tail))
            for side, tail in (("right", 1), ("left", -1))
        ]
        cases += [
            (f"right-skewed (rare jump), sd {k:g} x (d1-d0)", k * width, skewed_blocks(k * width)) for k in (3, 6)
        ]
        cases += [
            (f"90% identical, sd {k:g} x (d1-d0) else", k * width, sparse_blocks(k * width, identical=0.9))
            for k in (1, 3)
        ]
    if args.folder is not None:
        metric = args.metric or ("matchpoints" if betting else "points")
        observed = stored_blocks(args.folder, metric)
        sd = statistics.stdev(observed)
        resampled = resampled_gains(observed) if betting else resampled_blocks(observed)
        cases.append((f"resampled from {args.folder.name} ({len(observed)} blocks)", sd, resampled))
    print(
        f"{args.test}: alpha {design.alpha}, beta {design.beta}, d0 {design.d0}, d1 {design.d1}"
        + (", cap sized from power" if betting else f", at least {design.min_blocks} blocks")
        + f"; {args.runs} runs per figure (± is a 95% interval)"
    )
    header = (
        f"{'blocks':<44} {'stronger at d0':>16} {'stronger at d1':>16} {'blocks at d0':>14} "
        f"{'blocks at d1':>14} {'fixed n':>8} {'ratio':>6}"
        + ("" if betting else f" {'d1: not stronger':>17} {'inconclusive':>13}")
    )
    print(header)
    print("-" * len(header))
    worst_alpha = worst_power = 0.0
    worst_ratio = 0.0
    started = time.perf_counter()
    for i, (label, sd, source) in enumerate(cases):
        cap = max(design.min_blocks, math.ceil(CAP_FACTOR * fixed_sample_size(design, sd)))  # as compare sizes it
        runs: list[Rates] = []
        for j, mean in enumerate((design.d0, design.d1)):
            seed = args.seed + 2 * i + j
            if betting:
                runs.append(betting_rates(source, mean, design, runs=args.runs, seed=seed))
            else:
                runs.append(rates(source, mean, design, runs=args.runs, seed=seed, max_blocks=cap))
        h0, h1 = runs
        fixed = fixed_sample_size(design, sd)
        ratio = max(h0.mean_blocks, h1.mean_blocks) / fixed
        worst_alpha = max(worst_alpha, h0.stronger)
        worst_power = max(worst_power, 1 - h1.stronger - (0 if betting else h1.inconclusive))
        worst_ratio = max(worst_ratio, ratio)
        se0, se1 = (r.sd_blocks / math.sqrt(r.runs) for r in (h0, h1))
        print(
            f"{label:<44} {share(h0.stronger, args.runs):>16} {share(h1.stronger, args.runs):>16} "
            f"{h0.mean_blocks:7.1f} ± {1.96 * se0:4.1f} {h1.mean_blocks:7.1f} ± {1.96 * se1:4.1f} {fixed:>8} "
            f"{ratio:6.2f}"
            + (
                ""
                if betting
                else f" {share(1 - h1.stronger - h1.inconclusive, args.runs):>17} "
                f"{share(h1.inconclusive, args.runs):>13}"
            ),
            flush=True,
        )
    print(f"({time.perf_counter() - started:.0f} s)")
    print(
        f"worst false 'stronger': {100 * worst_alpha:.1f}% (alpha {100 * design.alpha:g}%); worst missed 'stronger': "
        f"{100 * worst_power:.1f}% (beta {100 * design.beta:g}%"
        + ("" if betting else "; the GSPRT's inconclusive runs, which say why, not counted")
        + "); the sequential test's mean blocks are at most "
        f"{worst_ratio:.2f} of the fixed test's"
    )


if __name__ == "__main__":
    main()
