"""Matchmaker fairness benchmark, simulated: the issue-31 trial's field (8 entrants, one of them N times slower,
table weights 1:1:2) played for a stretch of simulated time, beside the same field with the slow entrant as fast as
the rest.

Not a test (``tests/ladder/test_fairness.py`` checks the same bounds on one seed). ``referee.ladder.simulate``
plays the ladder with its real store, field, matchmaker, ratings and settling on ``--jobs`` simulated lanes: a game
takes ``--game-seconds`` (the referee) plus each seated bot's thinking, ``--bot-seconds`` a game for a fast bot and
``--slow`` times that for the slow one. Strengths are spread like the sample bots' (0 to ``--spread`` points a game
apart), so the rating windows do pull strong versions together. Printed for each run and each seed: blocks, games,
simulated games/s, the share of blocks at each table size against the weights' shares, the largest pair ratio (a
version's blocks against its most-met opponent over its fair share; ``referee.ladder.fairness``), whether the
field stayed connected, and the slow entrant's share of the blocks; then games/s with the slow entrant over games/s
without it.

``--store DIR`` prints the same figures from a real ladder's store (its done blocks, as ``referee ladder serve``
played them, less those begun in the first ``--skip`` minutes; games/s over the wall time from the first block
counted to the last), with each entrant's blocks, games and
mean seconds a game, and the blocks and games of each 5-minute stretch.

Run: ``python bench/bench_matchmaker.py`` (20 simulated minutes, 5 seeds: about a minute of CPU), ``python
bench/bench_matchmaker.py --store contest``. Figures in bench/README.md, "Matchmaker fairness".
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import tempfile
import time
from collections import Counter
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.ladder import Ladder  # noqa: E402
from referee.ladder.fairness import Fairness, fairness  # noqa: E402
from referee.ladder.model import BlockState  # noqa: E402
from referee.ladder.simulate import SimulatedLadder, SimVersion  # noqa: E402

WEIGHTS = (1.0, 1.0, 2.0)
SIZES = (2, 3, 4)


def field(entrants: int, slow: float, bot_seconds: float, spread: float, seed: int) -> list[SimVersion]:
    """``entrants`` versions of strengths spread over 0 .. ``spread``; the last one's bot ``slow`` times slower."""
    rng = random.Random(seed)
    strengths = sorted(rng.uniform(0, spread) for _ in range(entrants))
    rng.shuffle(strengths)
    return [
        SimVersion(f"e{i}", s, bot_seconds=bot_seconds * (slow if i == entrants - 1 else 1.0))
        for i, s in enumerate(strengths)
    ]


def run(versions: list[SimVersion], args: argparse.Namespace, seed: int, folder: Path) -> tuple[Fairness, float, int]:
    """Play ``versions`` for ``--minutes``: the figures, simulated games/s, and the slow entrant's blocks."""
    weights = ", ".join(f"{w:g}" for w in WEIGHTS)
    config = f"[games]\ntable_sizes = [2, 3, 4]\ntable_weights = [{weights}]\n"
    sim = SimulatedLadder(folder, config, versions, jobs=args.jobs, game_seconds=args.game_seconds, seed=seed)
    try:
        trace = sim.run(until=args.minutes * 60)
        blocks = sim.store.blocks(states=[BlockState.DONE], limit=None)
        entrant_of = {v.id: v.entrant_id for v in sim.store.versions()}
        slow = max(sim.truth, key=lambda v: sim.truth[v].bot_seconds)
        figures = fairness([b.seats for b in blocks], entrant_of)
        return figures, trace.games / (args.minutes * 60), sum(slow in b.seats for b in blocks)
    finally:
        sim.close()


def stored(directory: Path, skip: float) -> None:
    """The figures of a real ladder's done blocks, those that started ``skip`` minutes after its first or later."""
    with Ladder.open(directory) as ladder:
        games_section = ladder.config.games
        blocks = sorted(ladder.store.blocks(states=[BlockState.DONE], limit=None), key=lambda b: b.id)
        versions = {v.id: v for v in ladder.store.versions()}
    if blocks:
        first = datetime.fromisoformat(blocks[0].created_at).timestamp()
        blocks = [b for b in blocks if datetime.fromisoformat(b.created_at).timestamp() >= first + 60 * skip]
    db = sqlite3.connect(f"file:{directory / 'ladder.sqlite'}?mode=ro", uri=True)
    seconds = dict(db.execute("SELECT block_id, sum(duration) FROM games GROUP BY block_id").fetchall())
    db.close()
    if not blocks:
        print("no block played yet")
        return
    figures = fairness([b.seats for b in blocks], {v: versions[v].entrant_id for v in versions})
    start = datetime.fromisoformat(blocks[0].created_at).timestamp()
    ends = [datetime.fromisoformat(b.finished_at or b.created_at).timestamp() for b in blocks]
    span = max(ends) - start
    sizes = "/".join(f"{100 * figures.sizes.get(k, 0):.1f}" for k in games_section.table_sizes)
    weights = "/".join(f"{w:g}" for w in games_section.table_weights)
    print(f"{figures.blocks:,} blocks, {figures.games:,} games in {span / 60:.1f} minutes: {figures.games / span:.2f} "
          f"games/s; sizes {sizes} % (weights {weights}, largest gap "
          f"{figures.size_gap(games_section.table_sizes, games_section.table_weights):.1f} points); largest pair "
          f"ratio {figures.worst_pair:.2f}; connected {figures.connected}")  # fmt: skip
    per_blocks: Counter[str] = Counter()
    per_games: Counter[str] = Counter()
    per_seconds: Counter[str] = Counter()
    for b in blocks:
        for v in b.seats:
            name = versions[v].entrant
            per_blocks[name] += 1
            per_games[name] += len(b.seats)
            per_seconds[name] += seconds.get(b.id, 0.0)
    print(f"{'entrant':<16} {'blocks':>7} {'share':>6} {'s a game of its tables':>23}")
    for name, n in per_blocks.most_common():
        print(f"{name:<16} {n:>7,} {n / len(blocks):>6.1%} {per_seconds[name] / per_games[name]:>23.3f}")
    print(f"{'minutes':<9} {'blocks':>7} {'games':>7} {'games/s':>8} {'sizes':>6}")
    stretch = 300.0
    for i in range(int(span // stretch) + 1):
        lo = start + i * stretch
        inside = [b for b, end in zip(blocks, ends, strict=True) if lo <= end < lo + stretch]
        games = sum(len(b.seats) for b in inside)
        mix = Counter(len(b.seats) for b in inside)
        print(f"{i * 5:>3}-{i * 5 + 5:<5} {len(inside):>7,} {games:>7,} {games / stretch:>8.2f} "
              f"{'/'.join(str(mix[k]) for k in games_section.table_sizes):>6}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, default=8)
    parser.add_argument("--slow", type=float, default=10.0, help="how many times slower the slow entrant's bot is")
    parser.add_argument("--minutes", type=float, default=20.0, help="simulated minutes a run")
    parser.add_argument("--jobs", type=int, default=2, help="simulated lanes")
    parser.add_argument("--game-seconds", type=float, default=0.05, help="the referee's simulated seconds a game")
    parser.add_argument("--bot-seconds", type=float, default=0.1, help="a fast bot's simulated seconds a game")
    parser.add_argument("--spread", type=float, default=8.0, help="strengths spread over 0 .. this (points a game)")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--store", type=Path, metavar="DIR", help="print the figures of a real ladder's store instead")
    parser.add_argument("--skip", type=float, default=0.0, help="--store: leave out the first minutes (the gates)")
    args = parser.parse_args()
    if args.store is not None:
        stored(args.store, args.skip)
        return
    print(
        f"{args.entrants} entrants, one {args.slow:g}x slower ({args.bot_seconds * args.slow:g} s a game against "
        f"{args.bot_seconds:g}), table weights {WEIGHTS}, {args.jobs} lanes, {args.minutes:g} simulated minutes"
    )
    print(f"{'seed':>4} {'field':<10} {'blocks':>7} {'games':>7} {'games/s':>8} {'sizes 2/3/4 (%)':>18} "
          f"{'gap':>5} {'pair ratio':>10} {'connected':>9} {'slow share':>10}")  # fmt: skip
    ratios, gaps, pairs = [], [], []
    started = time.process_time()
    with tempfile.TemporaryDirectory(prefix="bench-matchmaker-") as tmp:
        for seed in range(1, args.seeds + 1):
            rates = {}
            for name, slow in (("slow", args.slow), ("all fast", 1.0)):
                versions = field(args.entrants, slow, args.bot_seconds, args.spread, seed)
                figures, rate, slow_blocks = run(versions, args, seed, Path(tmp) / f"{seed}-{name}")
                rates[name] = rate
                gap = figures.size_gap(SIZES, WEIGHTS)
                gaps.append(gap)
                pairs.append(figures.worst_pair)
                sizes = "/".join(f"{100 * figures.sizes.get(k, 0):.1f}" for k in SIZES)
                print(
                    f"{seed:>4} {name:<10} {figures.blocks:>7,} {figures.games:>7,} {rate:>8.2f} {sizes:>18} "
                    f"{gap:>5.1f} {figures.worst_pair:>10.2f} {figures.connected!s:>9} "
                    f"{slow_blocks / figures.blocks:>10.1%}"
                )
            ratios.append(rates["slow"] / rates["all fast"])
    print()
    print(f"games/s with the slow entrant / without: {', '.join(f'{r:.3f}' for r in ratios)} "
          f"(mean {statistics.fmean(ratios):.3f}, worst {min(ratios):.3f}; target >= 0.8)")  # fmt: skip
    print(f"largest table-size gap {max(gaps):.1f} points (target <= 5); largest pair ratio {max(pairs):.2f} "
          f"(target <= 3); {time.process_time() - started:.0f} s of CPU")  # fmt: skip


if __name__ == "__main__":
    main()
