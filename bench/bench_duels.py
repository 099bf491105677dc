"""The race's head-to-head duels and cycles against a round robin's, on simulated fields (issue 31).

Not a test. No bots, no processes: block totals come from ``tests/tournament/fields.py``. A duel claim "a beats b"
is *false* when, at a table drawn uniformly from every table of the field that holds both (as a round robin seats
them, ``fields.head_to_head``), a beats b on at most half of the deals. Each race runs at 95% confidence; the duels
are one family at that level, so at most 5% of races may make any false claim.

- ``cycle-4``: e00 beats e01 beats e02 beats e00 head to head (an edge of 2 luck units), two weaker entrants, 4 seats,
  top 1; equal in a round robin, so the race runs to its cap, and should report the three as a cycle;
- ``farmer-6``: two equal strong entrants e00 and e01, three weak ones, and e05, weak itself but crushing the weak
  (it gains 3.2 luck units on each weak entrant at its table); 4 seats, top 2 (the two equal ones never settle, so
  the race runs to its cap). Head to head in a round robin e05 beats each strong entrant on 52% of the deals (a
  table of theirs holds two weak entrants half the time); at a table of the race whose remaining seat is a
  contender (the other strong one) it holds one weak entrant only, and loses;
- ``farmer-48``: the same at 48 entrants: two equal strong ones, 45 weak ones 0.01 apart, and a farmer of the weak
  half; 4 seats, top 2.

Run: ``python bench/bench_duels.py [--seeds 30] [--field cycle-4]``.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parents[1]
sys.path.append(str(HERE))

import numpy as np  # noqa: E402
from bench_estimand import _fields  # noqa: E402  (tests/tournament/fields.py, loaded by its path)


def fields() -> dict[str, tuple[Any, int, int, int]]:
    """name -> (field, table size, top, max games)."""
    f = _fields()
    farm6 = np.zeros((6, 6))
    farm6[5, 2:5] = 3.2
    farm48 = np.zeros((48, 48))
    farm48[47, 2:25] = 3.2
    return {
        "cycle-4": (f.Field(strength=[0.0, 0.0, 0.0, -1.5, -1.5], edge=f.cycle_edges(5, [0, 1, 2], 2.0)), 4, 1, 8_000),
        "farmer-6": (f.Field(strength=[2.0, 2.0, 0.0, 0.0, 0.0, -2.67], edge=farm6), 4, 2, 20_000),
        "farmer-48": (
            f.Field(strength=[2.0, 2.0] + [0.01 * i for i in range(45)] + [-2.67], edge=farm48),
            4,
            2,
            40_000,
        ),
    }


def proven_duels(race: Any) -> list[tuple[str, str]]:
    """``Race.duels``, or for a checkout before it (run with that checkout first on PYTHONPATH to measure the old
    duel rule) the same read from the race's duel tests."""
    if hasattr(race, "duels"):
        return list(race.duels())
    if race.pool is None:
        return []
    m = len(race.pool)
    beats = race._duels.above.reshape(m, m) | race._duels.below.reshape(m, m).T
    return [(race.names[race.pool[a]], race.names[race.pool[b]]) for a, b in zip(*np.nonzero(beats), strict=True)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=30)
    parser.add_argument("--field", choices=["cycle-4", "farmer-6", "farmer-48"], action="append")
    args = parser.parse_args()
    f = _fields()
    for name, (fld, k, top, cap) in fields().items():
        if args.field and name not in args.field:
            continue
        started = time.perf_counter()
        h2h = f.head_to_head(fld, k)
        false_races = claims = false_claims = cycles = settled = games = 0
        for seed in range(args.seeds):
            race = f.run(fld, k=k, top=top, seed=seed, confidence=0.95, max_games=cap)
            index = {n: i for i, n in enumerate(fld.names)}
            duels = proven_duels(race)
            wrong = [(a, b) for a, b in duels if h2h[index[a], index[b]] <= 0.5]
            claims += len(duels)
            false_claims += len(wrong)
            false_races += bool(wrong)
            outcome = race.outcome()
            settled += outcome.settled
            games += outcome.games
            cycles += any(set(c) >= {"e00", "e01", "e02"} for c in outcome.cycles)
        p = false_races / args.seeds
        print(
            f"{name}: {args.seeds} races, {games / args.seeds:,.0f} games each on average, {settled} settled; "
            f"duel claims {claims}, false {false_claims}; races with a false claim {false_races} "
            f"({100 * p:.1f}% ± {196 * math.sqrt(max(p * (1 - p), 1e-9) / args.seeds):.1f})"
            + (f"; the 3-cycle reported in {cycles}" if name.startswith("cycle") else "")
            + f" ({time.perf_counter() - started:.0f} s)",
            flush=True,
        )


if __name__ == "__main__":
    main()
