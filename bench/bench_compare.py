"""The sequential test of `referee compare` on simulated blocks: its error rates and the blocks it uses,
against a fixed-size test of the same power.

For each kind of block difference (normal, and game-like with a long tail on the right or on the left, at
several standard deviations; optionally resampled from a real comparison's blocks) it runs the test many times
with the true mean difference at d0 (how often does it wrongly say "stronger"? target: at most alpha) and at d1
(how often does it rightly say so? target: at least 1 - beta), and prints the mean number of blocks used next to
the number a fixed-size one-sided z-test needs for the same alpha and power (with the standard deviation known
in advance, which favours the fixed test). Run from the project root:

    python bench/bench_compare.py                      # the default design, 2000 runs per figure
    python bench/bench_compare.py --runs 5000 --from compare/20261130-210000
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from referee.compare import (
    Design,
    block_result,
    fixed_sample_size,
    game_like_blocks,
    normal_blocks,
    rates,
    resampled_blocks,
)
from referee.compare.simulate import BlockSource
from referee.tournament import ResultsStore


def stored_blocks(folder: Path, metric: str) -> list[float]:
    """The block differences of a stored comparison, in order."""
    with ResultsStore(folder, create=False) as store:
        params = store.params()
        if params is None:
            raise SystemExit(f"{folder} holds no comparison")
        seats = {g.ordinal: g.seats for g in store.games()}
    out = []
    while (r := block_result(len(out), params.table_size, seats)) is not None:
        out.append(r.points if metric == "points" else r.ranks)
    return out


def share(p: float, runs: int) -> str:
    return f"{100 * p:5.1f}% ± {196 * math.sqrt(max(p * (1 - p), 1e-12) / runs):3.1f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=2000, help="simulated tests per figure (default 2000)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--alpha", type=float, default=0.05)
    parser.add_argument("--beta", type=float, default=0.05)
    parser.add_argument("--d0", type=float, default=0.0)
    parser.add_argument("--d1", type=float, default=1.0)
    parser.add_argument("--from", dest="folder", type=Path, help="also resample the blocks of this comparison")
    parser.add_argument("--metric", choices=["points", "ranks"], default="points")
    args = parser.parse_args()
    design = Design(alpha=args.alpha, beta=args.beta, d0=args.d0, d1=args.d1)
    width = design.d1 - design.d0
    cases: list[tuple[str, float, BlockSource]] = [
        (f"normal, sd {k:g} x (d1-d0)", k * width, normal_blocks(k * width)) for k in (1, 3, 6)
    ]
    cases += [
        (f"game-like, {side} tail, sd 3 x (d1-d0)", 3 * width, game_like_blocks(3 * width, tail=tail))
        for side, tail in (("right", 1), ("left", -1))
    ]
    if args.folder is not None:
        observed = stored_blocks(args.folder, args.metric)
        sd = statistics.stdev(observed)
        cases.append((f"resampled from {args.folder.name} ({len(observed)} blocks)", sd, resampled_blocks(observed)))
    print(
        f"design: alpha {design.alpha}, beta {design.beta}, d0 {design.d0}, d1 {design.d1}, at least "
        f"{design.min_blocks} blocks; {args.runs} runs per figure (± is a 95% interval)"
    )
    header = (
        f"{'blocks':<44} {'stronger at d0':>16} {'stronger at d1':>16} {'blocks at d0':>14} "
        f"{'blocks at d1':>14} {'fixed n':>8} {'ratio':>6}"
    )
    print(header)
    print("-" * len(header))
    worst_alpha = worst_power = 0.0
    worst_ratio = 0.0
    started = time.perf_counter()
    for i, (label, sd, source) in enumerate(cases):
        h0 = rates(source, design.d0, design, runs=args.runs, seed=args.seed + 2 * i)
        h1 = rates(source, design.d1, design, runs=args.runs, seed=args.seed + 2 * i + 1)
        fixed = fixed_sample_size(design, sd)
        ratio = max(h0.mean_blocks, h1.mean_blocks) / fixed
        worst_alpha = max(worst_alpha, h0.stronger)
        worst_power = max(worst_power, 1 - h1.stronger)
        worst_ratio = max(worst_ratio, ratio)
        se0, se1 = (r.sd_blocks / math.sqrt(r.runs) for r in (h0, h1))
        print(
            f"{label:<44} {share(h0.stronger, args.runs):>16} {share(h1.stronger, args.runs):>16} "
            f"{h0.mean_blocks:7.1f} ± {1.96 * se0:4.1f} {h1.mean_blocks:7.1f} ± {1.96 * se1:4.1f} {fixed:>8} "
            f"{ratio:6.2f}"
        )
    print(f"({time.perf_counter() - started:.0f} s)")
    print(
        f"worst false 'stronger': {100 * worst_alpha:.1f}% (alpha {100 * design.alpha:g}%); worst missed 'stronger': "
        f"{100 * worst_power:.1f}% (beta {100 * design.beta:g}%); the sequential test's mean blocks are at most "
        f"{worst_ratio:.2f} of the fixed test's"
    )


if __name__ == "__main__":
    main()
