"""A real race's throughput and bot starts: pools kept across rounds against pools per round.

Not a test. On one field of real bot processes (``examples/race/make_field.py``: greedy copies with ``--noise``),
with the same seed, deal secret and ``--jobs``, it plays the same capped race (``--format race --max-games M``)
in two ways, alternately:

- **across rounds**: ``referee.tournament.run_tournament``, the code behind ``referee run --format race``: every
  lane keeps its bots up from round to round (one process per seat rotation and entrant, since every round
  brings new deals);
- **per round**: the way races ran before, each round on new lanes (an executor run per round, one process per
  entrant and lane), so every round starts its bots again.

For each it reports games, seconds, games/s and bot starts (processes started, from each ``Player``'s count),
and the ratio of the two rates. Both play exactly the same games (same deals, same seats, same moves).
Run: ``python bench/bench_race_real.py`` (``--help`` for options).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import tempfile
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from referee.runner import Player
from referee.tournament import (
    DealSecret,
    EntrantInfo,
    LocalExecutor,
    PlayedGame,
    PlaySetup,
    Requested,
    ResultsStore,
    load_manifest,
    race_of,
    replay_race,
    resolve_params,
    run_tournament,
    seat_rows,
)

ROOT = Path(__file__).resolve().parents[1]


def _make_field() -> Any:
    spec = importlib.util.spec_from_file_location("make_field", ROOT / "examples" / "race" / "make_field.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.make_field


def counting_factory(players: list[Player]) -> Any:
    def factory(spec: Any, config: Any, path: Path) -> Player:
        player = Player(spec, config, path)
        players.append(player)
        return player

    return factory


def per_round(store: ResultsStore, params: Any, jobs: int, factory: Any) -> int:
    """The race played as before: each round on new lanes with new bots, one process per entrant and lane.
    Returns the games played."""
    race = race_of(params, store.deal_secret())
    results: dict[str, Any] = {}

    def on_game(p: PlayedGame) -> None:
        store.record_game(p.game, p.result, duration=p.duration, declared=p.declared)
        results[p.game.game_id] = seat_rows(p.game.seats, p.result)

    setup = replace(PlaySetup.of(params, store.directory, set(), on_game), keep=1)
    while batches := replay_race(race, results):
        LocalExecutor(jobs, factory=factory).run(setup, _once(batches))
    return len(results)


def _once(batches: list[Any]) -> Any:
    """Rounds that give ``batches`` once."""
    left = [batches]
    return lambda: left.pop() if left else []


def one(mode: str, folder: Path, manifest: Path, args: argparse.Namespace) -> dict[str, float]:
    entrants = tuple(EntrantInfo.from_spec(s) for s in load_manifest(manifest))
    requested = Requested(
        entrants=entrants,
        seed=args.seed,
        sandbox=args.sandbox,
        move_time=args.move_time,
        format="race",
        top=3,
        max_games=args.max_games,
    )
    params = resolve_params(None, requested)
    store = ResultsStore(folder)
    store.initialise(params, DealSecret(bytes(32)))
    players: list[Player] = []
    factory = counting_factory(players)
    start = time.perf_counter()
    with store:
        if mode == "across rounds":
            outcome = run_tournament(store, params, LocalExecutor(args.jobs, factory=factory))
            games = outcome.played
            if outcome.decided is not None:
                print(f"{mode:>13}: {outcome.decided.banner()}", flush=True)
        else:
            games = per_round(store, params, args.jobs, factory)
    seconds = time.perf_counter() - start
    return {"games": games, "seconds": seconds, "starts": sum(p.starts for p in players)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--entrants", type=int, default=16, help="field size (default 16)")
    parser.add_argument("--max-games", type=int, default=640, help="the race's cap (default 640)")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=12)
    parser.add_argument("--repeats", type=int, default=1, help="alternating runs of each mode (default 1)")
    parser.add_argument("--sandbox", default="auto", choices=["auto", "bwrap", "none"])
    parser.add_argument("--move-time", type=float, default=5.0)
    parser.add_argument(
        "--modes", nargs="+", default=["per round", "across rounds"], choices=["per round", "across rounds"],
        help="which ways to play (default both; 'across rounds' alone for a whole race's bot starts)",
    )  # fmt: skip
    args = parser.parse_args()
    print(f"load average at start: {os.getloadavg()}")
    totals: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="bench-race-") as tmp:
        manifest = _make_field()(Path(tmp) / "field", args.entrants)
        for r in range(args.repeats):
            for mode in args.modes:
                got = one(mode, Path(tmp) / f"{mode.replace(' ', '-')}-{r}", manifest, args)
                print(
                    f"{mode:>13}: {got['games']:.0f} games in {got['seconds']:.1f} s = "
                    f"{got['games'] / got['seconds']:.2f} games/s; {got['starts']:.0f} bot starts "
                    f"({got['starts'] / got['games']:.3f} per game)",
                    flush=True,
                )
                t = totals.setdefault(mode, {"games": 0.0, "seconds": 0.0, "starts": 0.0})
                for k in t:
                    t[k] += got[k]
    if len(totals) < 2:
        return
    before, after = totals["per round"], totals["across rounds"]
    rate = (after["games"] / after["seconds"]) / (before["games"] / before["seconds"])
    print(
        f"across rounds / per round: {rate:.2f}x games/s; bot starts {before['starts']:.0f} -> "
        f"{after['starts']:.0f}; load average at end: {os.getloadavg()}"
    )


if __name__ == "__main__":
    main()
