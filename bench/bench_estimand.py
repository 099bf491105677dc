"""Before and after issue 24, side by side on the same simulated fields: what the race and ``referee compare``
decide, how often they are wrong, and the games they need.

Not a test. Each side runs in a process of its own with a checkout first on ``PYTHONPATH`` (this one, and
``--base``, e.g. a worktree of the commit before), on the same fields and seeds; the driver prints the two side by
side. No bots, no processes: block totals come from ``tests/tournament/fields.py`` (an entrant's strength, the spread
and shape of its luck, and what it gains against particular opponents).

Race fields (the truth is what a round robin finds: each entrant's expected matchpoints over every table of the
field, ``Field.truth``; a race is *wrong* when it settles an order in which a reported entrant is below, by more than
0.001, one reported after it):

- ``easy``: 8 entrants, strengths 0.5 apart, luck of one shape (the model the old race was built for); 4 seats;
- ``erratic-leader``: the strongest in points has five times the others' luck, a round robin puts it third; 4 seats;
- ``skewed``: one entrant usually a little better, now and then much worse; 2 seats;
- ``farmer``: one entrant crushes the three weakest and is no match for the rest; 2 seats, top 3;
- ``cycle-2``, ``cycle-4``: three entrants beat each other in a circle, two weaker ones; equal in a round robin, so
  no order of the top one is right (a settled race is wrong); 2 and 4 seats.

Compare fields: NEW and OLD at a table of 4 with three panel opponents, on the same deal (the opponents' luck the
same for both); a block's points gain is OLD's total minus NEW's per game, its matchpoints gain NEW's share of the
opponents beaten minus OLD's. Before: the GSPRT on points (d1 = 1 point per game, the old default; its spread at the
scale of real blocks, 5.7 points); after: the betting test on matchpoints (d1 = 0.05, the new default) with its cap
sized from power. ``no gain``: NEW is OLD; ``gain``: NEW better by 1 point a game on average; ``collapses``: NEW a
point a game better on most deals and 9 worse on one in ten, no mean gain in points; ``near-deterministic``: NEW plays
OLD's game except on one deal in ten, where it gains 10 points a game (1 on average).

Run: ``python bench/bench_estimand.py --base /path/to/checkout-before [--seeds 40]``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]


def _fields() -> Any:
    """tests/tournament/fields.py of this checkout, loaded by its path (the other side's ``tests`` package is first on
    its path, and may not have it); it imports the side's own ``referee``."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_fields", HERE / "tests" / "tournament" / "fields.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["bench_fields"] = module
    spec.loader.exec_module(module)
    return module


def race_fields() -> dict[str, tuple[Any, int, int]]:
    import numpy as np

    fields = _fields()
    Field, cycle_edges = fields.Field, fields.cycle_edges
    farm = np.zeros((6, 6))
    farm[5, :3] = 4.0
    return {
        "easy": (Field(strength=[0.5 * i for i in range(8)]), 4, 2),
        "erratic-leader": (Field(strength=[0.0, 0.5, 1.0, 2.0, 2.6, 3.6], spread=[1, 1, 1, 1, 1, 5]), 4, 2),
        "skewed": (Field(strength=[0.0, 0.6, 1.2, 1.8, 2.4, 3.0], skew=[False] * 4 + [True]), 2, 2),
        "farmer": (Field(strength=[0.0, 0.3, 0.6, 1.6, 2.6, 0.9], edge=farm), 2, 3),
        "cycle-2": (Field(strength=[0.0, 0.0, 0.0, -1.5, -1.5], edge=cycle_edges(5, [0, 1, 2], 2.0)), 2, 1),
        "cycle-4": (Field(strength=[0.0, 0.0, 0.0, -1.5, -1.5], edge=cycle_edges(5, [0, 1, 2], 2.0)), 4, 1),
    }


def side_race(seeds: int, max_games: int) -> dict[str, Any]:
    fields = _fields()
    run, wrong_by = fields.run, fields.wrong_by
    out: dict[str, Any] = {}
    for name, (fld, k, top) in race_fields().items():
        rows = []
        for seed in range(seeds):
            race = run(fld, k=k, top=top, seed=seed, max_games=max_games)
            outcome = race.outcome()
            cycles = len(getattr(outcome, "cycles", ()))
            rows.append([outcome.games, outcome.settled, wrong_by(fld, race, k, 0.0), cycles > 0])
        out[name] = rows
    return out


def _compare_blocks(case: str, rng: Any, n: int) -> tuple[list[float], list[float]]:
    """``n`` blocks of ``case``: (points gains per game, matchpoint gains)."""
    import numpy as np

    k, sd = 4, 5.7 / 2**0.5  # a version's own luck per game: the points gain's spread is about 5.7 a block
    opponents = np.array([-3.0, 0.0, 3.0])
    opp = opponents[None, :] * k + rng.normal(0, sd * 2, (n, 3))  # the same deal for NEW's table and OLD's
    shared = rng.normal(0, sd * 2, n)  # the seat's cards: the same for NEW and OLD
    old = shared + rng.normal(0, sd, n)
    new = shared + rng.normal(0, sd, n)
    if case == "gain":
        new -= 1.0 * k
    elif case == "collapses":
        bad = rng.random(n) < 0.1
        new = np.where(bad, new + 9.0 * k, new - 1.0 * k)
    elif case == "near-deterministic":  # the same game but on one deal in ten, where NEW gains 10 points a game
        new = np.where(rng.random(n) < 0.1, old - 10.0 * k, old)
    points = (old - new) / k

    def share(total: Any) -> Any:
        return ((total[:, None] < opp).sum(1) + 0.5 * (total[:, None] == opp).sum(1)) / 3

    return points.tolist(), (share(new) - share(old)).tolist()


def side_compare(seeds: int) -> dict[str, Any]:
    import numpy as np

    from referee.compare import Design

    out: dict[str, Any] = {}
    for case in ("no gain", "gain", "collapses", "near-deterministic"):
        rng = np.random.default_rng(99)
        points, mp = _compare_blocks(case, rng, 400_000)
        truth = [statistics.fmean(points), statistics.fmean(mp)]
        rows = []
        for seed in range(seeds):
            g = np.random.default_rng(seed + 1)
            pts, mps = _compare_blocks(case, g, 6000)
            rows.append([*_old_test(pts, Design()), *_new_test(mps)])
        out[case] = {"truth": truth, "rows": rows}
    return out


def _old_test(points: list[float], design: Any) -> tuple[str, int]:
    """The GSPRT on points, as ``referee compare --metric points`` runs it (the old default), capped at 250 blocks
    (the old default --max-games 2000 at 4 seats)."""
    from referee.compare import sequential_verdict

    verdict, stats = sequential_verdict(points, design, 250)
    return verdict, stats.n


def _new_test(mp: list[float]) -> tuple[str, int]:
    try:
        import numpy as np

        from referee.compare import BoundedTests, Design
    except ImportError:
        return "-", 0
    test = BoundedTests(Design(d1=0.05), 1.0, sequence=False)
    for g in mp:
        test.add_one(g)
        if (v := test.verdict()) is not None:
            return v, int(test.n[0])
        if int(test.n[0]) >= test.cap():
            return "inconclusive", int(test.n[0])
    _ = np
    return "inconclusive", int(test.n[0])


def run_side(checkout: Path, seeds: int, max_games: int) -> dict[str, Any]:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    command = [sys.executable, __file__, "--side", "--seeds", str(seeds), "--max-games", str(max_games)]
    done = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
    if done.returncode != 0:
        raise SystemExit(f"the side {checkout} failed:\n{done.stderr}")
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", type=Path, help="the checkout before (its referee/ and protocol/)")
    parser.add_argument("--seeds", type=int, default=40)
    parser.add_argument("--max-games", type=int, default=60_000, help="the races' cap")
    parser.add_argument("--side", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.side:
        print(json.dumps({"race": side_race(args.seeds, args.max_games), "compare": side_compare(args.seeds)}))
        return
    if args.base is None:
        parser.error("--base CHECKOUT is needed (the checkout to compare with)")
    sides = {"before": run_side(args.base.resolve(), args.seeds, args.max_games),
             "after": run_side(HERE, args.seeds, args.max_games)}  # fmt: skip
    print(
        f"Race ({args.seeds} seeds, cap {args.max_games:,} games): games mean / median, settled, settled wrong, cycles"
    )
    for name in sides["after"]["race"]:
        cells = []
        for side in ("before", "after"):
            rows = sides[side]["race"][name]
            games = [r[0] for r in rows]
            cells.append(
                f"{side}: {statistics.fmean(games):,.0f} / {statistics.median(games):,.0f}, "
                f"{statistics.fmean(r[1] for r in rows):.0%}, {statistics.fmean(r[2] for r in rows):.0%}, "
                f"{statistics.fmean(r[3] for r in rows):.0%}"
            )
        print(f"  {name:15s} " + "  |  ".join(cells))
    print("Compare (same blocks): truth (points/game, matchpoints); before: GSPRT on points; after: betting on mp")
    for case, data in sides["after"]["compare"].items():
        truth = data["truth"]
        cells = []
        for side, offset in (("before", 0), ("after", 2)):
            rows = sides[side]["compare"][case]["rows"] if side == "before" else data["rows"]
            verdicts = [r[offset] for r in rows]
            blocks = [r[offset + 1] for r in rows]
            share = {v: verdicts.count(v) / len(verdicts) for v in ("stronger", "not stronger", "inconclusive")}
            cells.append(
                f"{side}: stronger {share['stronger']:.0%}, not {share['not stronger']:.0%}, "
                f"inconclusive {share['inconclusive']:.0%}, blocks {statistics.fmean(blocks):,.0f}"
            )
        print(f"  {case:18s} truth {truth[0]:+.2f} pts, {truth[1]:+.3f} mp  " + "  |  ".join(cells))


if __name__ == "__main__":
    main()
