"""Ladder lanes benchmark: games/s and the serve process's own CPU per game with the lanes in the serve process, in
worker processes (``--lane-processes``) and on a real Dask cluster (a ``dask scheduler`` and two ``dask worker``
processes started here), side by side in one run on the same ladder.

Not a test. ``--entrants`` sample bots (heuristic, greedy and random_bot at spread noise levels, as in
``bench_ladder_real``) are submitted to a fresh ladder (``table_sizes = [4]``, ``--jobs`` lanes) and taken through
the real gate by the first serve; then each way of playing serves the same ladder for ``--seconds`` after a warm-up
(its first ``--warm`` blocks). Measured over that window, in this process (which is the serve process): blocks and
games stored, games/s, and this process's CPU (user + system, every thread: the matchmaker, the store, the settle
step, the lanes' referee work when they run here, the Dask client) per game. The lane processes' and the Dask
workers' CPU is theirs, not the serve process's: with lanes elsewhere, the serve process's CPU per game is the
coordinator's serial cost, from which docs/cluster.md derives how many games/s one coordinator can feed. Also
printed, over each serve's whole life (start, warm-up and stop included): the CPU of every process on this side
(the serve process, the lane processes, the bots) per game, the cost of a game to a worker core; on the cluster
that is the workers' and not measured here.

Each way runs ``--rounds`` times, in turn and in alternating order (ABC CBA), so that a load that changes over the
run (a shared machine) weighs on each alike; printed: the totals of each way and each round's figures.

``--fakes``: the entrants are the ladder tests' fakes (``tests/ladder/fakes.py``: a game is a draw of scores, played
in the lane, its log written), so that the games cost next to nothing and the serve process's CPU per game is the
coordinator's alone, at any field size (``--entrants 200``: the issue's field).

Also printed, before and after the runs: what creating a log file costs this process in the ladder's newest games
folder (CPU a file: create, write 3 kB, rename, as serve does for each game a Dask worker sends back). On some
machines that cost depends on where the folder lands on the disk (20 us in one folder, 650-860 us in another of
the same ext4 disk here), and the serve CPU a game on Dask moves with it: read the two together.

Run: ``python bench/bench_ladder_lanes.py --seconds 60`` (``--fakes --entrants 200`` for the coordinator at 200
entrants). Figures in bench/README.md, "Ladder lanes".
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import trio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_ladder_real import BOTS, bot_folder  # noqa: E402

from referee.ladder import Ladder, VersionState  # noqa: E402
from referee.ladder.intake import discard  # noqa: E402
from referee.ladder.lanes_dask import DaskLanes  # noqa: E402
from referee.ladder.lanes_process import ProcessLanes  # noqa: E402
from referee.ladder.serve import ServeOptions, serve  # noqa: E402
from tests.ladder.fakes import Fakes, bot_text  # noqa: E402


def settings(jobs: int, sandbox: str) -> str:
    return (
        f'[games]\ntable_sizes = [4]\ntable_weights = [1]\nsandbox = "{sandbox}"\n[matchmaking]\nplacement_blocks = 2\n'
        f"[submissions]\ngate_games = 2\n[serve]\njobs = {jobs}\n"
    )


def make_ladder(folder: Path, entrants: int, jobs: int, sandbox: str, fakes: bool = False) -> Path:
    lad = folder / "ladder"
    made, _ = Ladder.init(lad)
    made.layout.config.write_text(settings(jobs, sandbox))
    made.close()
    with Ladder.open(lad) as ladder:
        for i in range(entrants):
            bot, noise = BOTS[i % 3], round(0.6 * i / max(1, entrants - 1), 2)
            ladder.add_entrant(f"{bot}-{i:02d}")
            if fakes:
                source = folder / "sources" / f"fake-{i:03d}.py"
                source.parent.mkdir(parents=True, exist_ok=True)
                source.write_text(bot_text(strength=noise * 10))
                ladder.submit(f"{bot}-{i:02d}", source)
            else:
                ladder.submit(f"{bot}-{i:02d}", bot_folder(folder / "sources", bot, noise))
    return lad


def create_cost(games: Path, files: int = 300) -> float:
    """This thread's CPU, in microseconds, to create, write (3 kB) and rename one log file in ``games``, as serve
    does for each game a Dask worker plays (the files are removed after)."""
    folders = sorted(f for f in games.iterdir() if f.is_dir()) if games.is_dir() else []
    scratch = (folders[-1] if folders else games) / "create-cost"  # in the newest of its thousand-block folders
    scratch.mkdir(parents=True, exist_ok=True)
    data = os.urandom(3000)
    start = time.thread_time()
    for i in range(files):
        part = scratch / f"{i}.jsonl.part"
        part.write_bytes(data)
        os.replace(part, scratch / f"{i}.jsonl")
    used = time.thread_time() - start
    for i in range(files):
        (scratch / f"{i}.jsonl").unlink()
    scratch.rmdir()
    return 1e6 * used / files


def cpu(who: int = resource.RUSAGE_SELF) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


async def window(
    lad: Path, lanes: Callable[[Any], Any] | None, seconds: float, warm: int, fakes: bool = False
) -> dict[str, float]:
    """Serve until every version is ranked and ``warm`` more blocks are done, then measure ``seconds`` of play."""
    options = ServeOptions(announce=lambda line: print(f"  ladder: {line}", flush=True), lanes=lanes)
    if fakes:
        fake = Fakes()
        options = replace(options, play=fake.play, factory=fake.factory, check=fake.check)
    children0, all0 = cpu(resource.RUSAGE_CHILDREN), cpu()
    async with trio.open_nursery() as nursery:
        ladder = await nursery.start(serve, lad, options)
        first = ladder.store.game_count()
        while any(v.state not in (VersionState.RANKED, VersionState.FAILED) for v in ladder.store.versions()):
            await trio.sleep(0.5)
        start = ladder.store.block_count()
        while ladder.store.block_count() < start + warm:
            await trio.sleep(0.1)
        games0, blocks0, cpu0, t0 = ladder.store.game_count(), ladder.store.block_count(), cpu(), time.perf_counter()
        await trio.sleep(seconds)
        games, blocks = ladder.store.game_count() - games0, ladder.store.block_count() - blocks0
        used, wall = cpu() - cpu0, time.perf_counter() - t0
        nursery.cancel_scope.cancel()
    # over the serve's whole life (the children's CPU is known once they are reaped): every process here, bots
    # and lane processes included, per game; the Dask workers' is theirs
    with Ladder.open(lad) as after:
        served = after.store.game_count() - first
    whole = cpu(resource.RUSAGE_CHILDREN) - children0 + cpu() - all0
    return {"games": games, "blocks": blocks, "wall": wall, "cpu": used, "whole": whole, "served": served}


@contextmanager
def dask_cluster(folder: Path, workers: int) -> Iterator[str]:
    """A ``dask scheduler`` and ``workers`` single-threaded ``dask worker`` processes on this machine."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False"}
    address_file = folder / "scheduler.json"
    log = open(folder / "dask.log", "wb")  # noqa: SIM115 - closed below
    python = sys.executable
    scheduler = ["distributed.cli.dask_scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard"]
    procs = [
        subprocess.Popen(
            [python, "-m", *scheduler, "--scheduler-file", str(address_file)], env=env, stdout=log, stderr=log
        )
    ]
    try:
        while not address_file.exists():
            time.sleep(0.1)
        for i in range(workers):
            worker = ["distributed.cli.dask_worker", "--scheduler-file", str(address_file), "--nthreads", "1"]
            worker += ["--host", "127.0.0.1", "--no-dashboard", "--name", f"w{i}"]
            cache = {"REFEREE_VERSION_CACHE": str(folder / f"cache{i}")}
            procs.append(subprocess.Popen([python, "-m", *worker], env={**env, **cache}, stdout=log, stderr=log))
        address = None
        while address is None:
            try:
                address = json.loads(address_file.read_text())["address"]
            except (ValueError, KeyError):
                time.sleep(0.1)
        from distributed import Client  # every worker in before serve counts them (its lanes: 8 a worker thread)

        with Client(address, timeout=60) as client:
            client.wait_for_workers(workers, timeout=120)
        yield address
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            p.wait()
        log.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0, help="seconds of play measured for each")
    parser.add_argument("--warm", type=int, default=8, help="blocks played before each measurement")
    parser.add_argument("--rounds", type=int, default=2, help="each way this many times, in turn (ABC CBA ...)")
    parser.add_argument("--entrants", type=int, default=6)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--sandbox", default="auto")
    parser.add_argument("--fakes", action="store_true", help="the tests' fake entrants: the coordinator's cost alone")
    parser.add_argument("--keep", action="store_true", help="keep the folder (printed)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-ladder-lanes-"))
    print(f"folder: {folder}; load {os.getloadavg()[0]:.1f}", flush=True)
    lad = make_ladder(folder, args.entrants, args.jobs, args.sandbox, args.fakes)
    results: dict[str, list[dict[str, float]]] = {}
    try:
        print("the gate, lanes in the serve process", flush=True)
        trio.run(window, lad, None, 0.0, 0, args.fakes)
        created = [create_cost(lad / "games")]
        with dask_cluster(folder, 2) as address:
            made: list[DaskLanes] = []

            def dask_lanes(s: Any) -> DaskLanes:
                made.append(DaskLanes(address, s))
                return made[-1]

            ways: list[tuple[str, Any]] = [
                ("in process", None),
                ("--lane-processes", ProcessLanes),
                ("--cluster (2 workers)", dask_lanes),
            ]
            for r in range(args.rounds):
                for name, lanes in ways if r % 2 == 0 else ways[::-1]:
                    print(f"{name}, round {r + 1}; load {os.getloadavg()[0]:.1f}", flush=True)
                    run = trio.run(window, lad, lanes, args.seconds, args.warm, args.fakes)
                    results.setdefault(name, []).append(run)
        created.append(create_cost(lad / "games"))
        if made:
            tasks, blocks = (
                sum(getattr(d, "tasks_sent", 0) for d in made),
                sum(getattr(d, "blocks_sent", 0) for d in made),
            )
            print(f"Dask: {blocks} blocks in {tasks} tasks ({blocks / max(1, tasks):.2f} blocks a task)")
        print(f"\nload {os.getloadavg()[0]:.1f}; {args.entrants} entrants, table_sizes [4], --jobs {args.jobs}, "
              f"{args.seconds:g} s a window")  # fmt: skip
        print(f"{'lanes':<24} {'blocks':>7} {'games':>7} {'games/s':>8} {'serve CPU ms/game':>18} "
              f"{'machine CPU ms/game':>20}   (each round)")  # fmt: skip
        for name, runs in results.items():
            blocks, games = sum(r["blocks"] for r in runs), sum(r["games"] for r in runs)
            wall, used = sum(r["wall"] for r in runs), sum(r["cpu"] for r in runs)
            each = ", ".join(
                f"{r['games'] / r['wall']:.2f} g/s {1000 * r['cpu'] / max(1, r['games']):.2f} ms" for r in runs
            )
            machine = 1000 * sum(r["whole"] for r in runs) / max(1, sum(r["served"] for r in runs))
            shown = "(workers')" if "cluster" in name else f"{machine:.2f}"
            print(f"{name:<24} {blocks:>7.0f} {games:>7.0f} {games / wall:>8.2f} {1000 * used / max(1, games):>18.2f} "
                  f"{shown:>20}"
                  f"   ({each})")  # fmt: skip
        print(
            f"creating a game's log file in the ladder's games folder: {created[0]:.0f} us of CPU before the runs, "
            f"{created[1]:.0f} us after (serve creates one for each game a Dask worker plays)"
        )
    finally:
        if not args.keep:
            discard(folder)


if __name__ == "__main__":
    main()
