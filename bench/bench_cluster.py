"""Cluster benchmark: games/s of one tournament on ``--cluster local:2`` against the embedded runner (``--jobs 2``).

Not a test. In one run, with the same bots, seed and schedule, it plays the whole tournament in a fresh folder
with the embedded runner (two lanes of persistent bots in this process) and on a Dask ``LocalCluster`` of two
worker processes (one lane of persistent bots each), alternating the two ``--rounds`` times. Each run goes
through ``referee.tournament.run_tournament`` (the code behind ``referee run``) and its time includes
everything a user waits for: for the cluster, starting and stopping the cluster and its workers, probing the
entrants, shipping game logs back and writing them.

It prints each run's games/s (end to end, and "steady" from the first finished game to the last) and this
process's CPU a game over the same span (``getrusage``: the coordinator's, with ``local:N`` the scheduler's too,
never the workers' or the bots'), checks that every executor produced the same standings, and compares the best
run of each: the target is the cluster taking at most 1.5x the embedded runner's time (on one machine the cluster
only adds overhead; it pays off across machines). With ``--dask-scheduler`` it also plays on a ``dask scheduler``
and ``--workers`` single-threaded ``dask worker`` processes started here, where this process is the coordinator
alone: the target there is at most 1 ms of CPU a game (issue 33).

Run: ``python bench/bench_cluster.py`` (``--help`` for options; ``--quick`` for a short smoke run).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

from referee.runner import parse_bot_spec
from referee.tournament import (
    DaskExecutor,
    DealSecret,
    EntrantInfo,
    LocalExecutor,
    PlayedGame,
    Progress,
    Requested,
    ResultsStore,
    Tally,
    TournamentParams,
    resolve_params,
    run_tournament,
    standings_from_store,
    with_unique_names,
)

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))
BOT = ROOT / "tests" / "bots" / "steady_bot.py"  # deterministic: same games, same standings
PLAYERS = 4
TARGET_SLOWDOWN = 1.5  # cluster wall time / embedded wall time, --cluster local:2 against --jobs 2
TARGET_COORDINATOR_MS = 1.0  # the coordinator's CPU a game on a real scheduler (issue 33, item 3)


def cpu() -> float:
    """Seconds of CPU of this process so far (every thread: the coordinator's own, the Dask client's, and with
    ``local:N`` the scheduler's, which runs in this process; never the workers' or the bots')."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


class Clock(Progress):
    """The times, and this process's CPU, at the first and the last finished game."""

    def __init__(self) -> None:
        self.done = 0
        self.first = self.last = 0.0
        self.cpu_first = self.cpu_last = 0.0

    def game_done(self, played: PlayedGame, tally: Tally) -> None:
        self.done += 1
        self.last, self.cpu_last = time.perf_counter(), cpu()
        if not self.first:
            self.first, self.cpu_first = self.last, self.cpu_last


def make_params(bot: Path, games: int, seed: int, sandbox: str) -> TournamentParams:
    entrants = tuple(EntrantInfo.from_spec(s) for s in with_unique_names([parse_bot_spec(str(bot))] * PLAYERS))
    requested = Requested(
        entrants, table_size=PLAYERS, repeats=max(1, games // PLAYERS), seed=seed, move_time=2.0, sandbox=sandbox
    )
    return resolve_params(None, requested)


def play(
    params: TournamentParams, secret: DealSecret, cluster: str | None, jobs: int
) -> tuple[int, float, float, float, dict[str, Any]]:
    """One whole tournament in a fresh folder: (games, wall seconds, steady games/s, this process's steady CPU
    milliseconds a game, standings as a dict)."""
    with tempfile.TemporaryDirectory(prefix="bench-cluster-") as folder, ResultsStore(folder) as store:
        store.initialise(params, secret)  # the same deals in every run
        clock = Clock()
        start = time.perf_counter()
        executor = LocalExecutor(jobs) if cluster is None else DaskExecutor(cluster)
        outcome = run_tournament(store, params, executor, progress=clock)
        wall = time.perf_counter() - start
        if outcome.interrupted:
            sys.exit("interrupted")
        steady = (clock.done - 1) / (clock.last - clock.first) if clock.done > 1 else 0.0
        ms = 1000 * (clock.cpu_last - clock.cpu_first) / (clock.done - 1) if clock.done > 1 else 0.0
        return clock.done, wall, steady, ms, standings_from_store(store).to_dict()


@contextmanager
def scheduler(workers: int) -> Iterator[str]:
    """The address of a ``dask scheduler`` with ``workers`` single-threaded ``dask worker`` processes."""
    from bench_ladder_lanes import dask_cluster

    with tempfile.TemporaryDirectory(prefix="bench-cluster-dask-") as folder, dask_cluster(Path(folder), workers) as a:
        yield a


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--bot", type=Path, default=BOT, help="bot file, played by four entrants (default: the deterministic test bot)"
    )
    parser.add_argument("--games", type=int, default=600, help="games per tournament (default 600)")
    parser.add_argument("--workers", type=int, default=2, help="--cluster local:N and --jobs N (default 2)")
    parser.add_argument("--rounds", type=int, default=3, help="runs of each executor, alternating (default 3)")
    parser.add_argument("--sandbox", choices=["auto", "bwrap", "none"], default="auto")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="a short smoke run: 80 games, one round")
    parser.add_argument(
        "--dask-scheduler",
        action="store_true",
        help="also on a `dask scheduler` with --workers `dask worker` processes (the coordinator's CPU alone)",
    )
    args = parser.parse_args()
    games, rounds = (80, 1) if args.quick else (args.games, args.rounds)
    params = make_params(args.bot, games, args.seed, args.sandbox)
    executors = {"embedded": None, "cluster": f"local:{args.workers}"}
    flags = {"embedded": f"--jobs {args.workers}", "cluster": f"--cluster local:{args.workers}"}
    with scheduler(args.workers) if args.dask_scheduler else nullcontext("") as address:
        if address:
            executors["dask"], flags["dask"] = address, f"--cluster {args.workers} workers"
        compare(params, executors, flags, rounds, games, args)


def compare(
    params: TournamentParams,
    executors: dict[str, str | None],
    flags: dict[str, str],
    rounds: int,
    games: int,
    args: Any,
) -> None:
    """Play each executor ``rounds`` times in turn and print each run, the best runs and the coordinator's CPU."""
    secret = DealSecret.new()
    shown = args.bot.relative_to(ROOT) if args.bot.is_relative_to(ROOT) else args.bot
    print(f"bot {shown} x {PLAYERS} at one table of {PLAYERS}, {games} games per run, sandbox {args.sandbox}")
    print(f"{os.cpu_count()} cores, Python {sys.version.split()[0]}, load average {os.getloadavg()[0]:.1f}")
    best: dict[str, float] = {}
    cpu_ms: dict[str, list[float]] = {label: [] for label in executors}
    standings: dict[str, dict[str, Any]] = {}
    for r in range(rounds):
        for label, cluster in executors.items():
            n, wall, steady, ms, standings[label] = play(params, secret, cluster, args.workers)
            best[label] = min(best.get(label, wall), wall)
            cpu_ms[label].append(ms)
            print(
                f"round {r + 1} {label:>8} ({flags[label]:>17}): {n} games in {wall:6.2f} s = "
                f"{n / wall:6.1f} games/s (steady {steady:6.1f} games/s); this process's CPU {ms:5.2f} ms a game",
                flush=True,
            )
    same = "yes" if all(s == standings["embedded"] for s in standings.values()) else "NO"
    print(f"same standings from every executor: {same}")
    slowdown = best["cluster"] / best["embedded"]
    print(
        f"best runs: embedded {games / best['embedded']:.1f} games/s, cluster {games / best['cluster']:.1f} games/s; "
        f"cluster takes {slowdown:.2f}x the embedded runner's time"
    )
    verdict = "met" if slowdown <= TARGET_SLOWDOWN else "NOT met"
    print(f"target: cluster within {TARGET_SLOWDOWN}x of the embedded runner: {verdict}")
    for label, figures in cpu_ms.items():
        shown_ms = ", ".join(f"{m:.2f}" for m in figures)
        print(f"this process's CPU a game, steady, {label:>8} ({flags[label]}): {shown_ms} ms")
    if "dask" in cpu_ms:
        met = "met" if min(cpu_ms["dask"]) <= TARGET_COORDINATOR_MS else "NOT met"
        print(f"target: the coordinator at most {TARGET_COORDINATOR_MS:g} ms of CPU a game on Dask: {met} (best run)")


if __name__ == "__main__":
    main()
