"""Web benchmark: the scheduler's games per second with the web server busy, against without it, side by side.

Not a test. ``referee ladder serve`` runs the scheduler (matchmaker, lanes, store commits) and the web server in one
trio process, so every page served takes time from the scheduler. This runs a ladder of ``--entrants`` in-process
entrants (the ladder tests' fakes: a game is a draw of scores, so the scheduler itself is what is measured, not bot
processes) for ``--seconds`` each way, alternating ``--rounds`` times from the same starting ladder:

- without the web: ``serve`` alone;
- web busy: ``serve`` with its web server (``serve_with_web``), while a second process on this machine requests, as
  fast as ``--clients`` threads can (loopback only; bounded by the same seconds), the leaderboard page and API, an
  entrant's page, the blocks page and a block (``--mix pages``), or the leaderboard API only (``--mix pollers``,
  what open leaderboards ask for).

It prints each run's games/s and the load's requests/s, then the medians and their ratio.

Run: ``python bench/bench_web_serve.py`` (``--help`` for options).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from functools import partial
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.ladder import Ladder  # noqa: E402
from referee.ladder.serve import ServeOptions, serve  # noqa: E402
from referee.web import WebSettings, serve_with_web  # noqa: E402
from tests.ladder.fakes import Fakes, bot_text  # noqa: E402

LOAD = r"""
import sys, threading, time
import httpx2
base, seconds, clients, mix = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
paths = ["/api/leaderboard"] if mix == "pollers" else ["/", "/api/leaderboard", "/entrants/e03", "/blocks", "/blocks/1"]
done = [0] * clients
def run(k):
    end = time.monotonic() + seconds
    with httpx2.Client(base_url=base, timeout=30) as c:
        i = k
        while time.monotonic() < end:
            c.get(paths[i % len(paths)]).raise_for_status()
            done[k] += 1
            i += 1
threads = [threading.Thread(target=run, args=(k,)) for k in range(clients)]
[t.start() for t in threads]
[t.join() for t in threads]
print(sum(done))
"""


def make_ladder(root: Path, entrants: int) -> None:
    ladder, _ = Ladder.init(root)
    ladder.layout.config.write_text("[matchmaking]\nplacement_blocks = 3\n[serve]\njobs = 2\n", encoding="utf-8")
    source = root.parent / "bots"
    source.mkdir()
    for i in range(entrants):
        name = f"e{i:02d}"
        ladder.add_entrant(name)
        path = source / f"{name}.py"
        path.write_text(bot_text(strength=i * 0.5, tag=name), encoding="utf-8")
        ladder.submit(name, path)
    ladder.close()


async def run_for(directory: Path, seconds: float, web: bool, clients: int, mix: str) -> tuple[float, float | None]:
    """(games/s of the scheduler, requests/s served or None) over ``seconds`` after the field is placed."""
    fakes = Fakes()
    options = ServeOptions(announce=lambda line: None, poll=0.05, play=fakes.play, factory=fakes.factory,
                           check=fakes.check, seed=7)  # fmt: skip
    async with trio.open_nursery() as nursery:
        if web:
            settings = WebSettings(rate=10**9, poll_seconds=1.0)
            url = await nursery.start(partial(serve_with_web, directory, options, "127.0.0.1:0", settings=settings))
        else:
            await nursery.start(serve, directory, options)
        while fakes.games < 200:  # past the gates and the first placement blocks
            await trio.sleep(0.05)
        start_games, started = fakes.games, trio.current_time()
        served = None
        if web:
            done = await trio.run_process(
                [sys.executable, "-c", LOAD, url, str(seconds), str(clients), mix], capture_stdout=True, check=True
            )
            served = int(done.stdout.decode().strip())
        else:
            await trio.sleep(seconds)
        elapsed = trio.current_time() - started
        rate = (fakes.games - start_games) / elapsed
        nursery.cancel_scope.cancel()
    return rate, None if served is None else served / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=4, help="threads of the load process")
    parser.add_argument(
        "--mix",
        choices=["pages", "pollers"],
        default="pages",
        help="what the load asks for: pages (leaderboard, entrant, blocks, block pages and the API) or pollers (the "
        "leaderboard API only, as open leaderboards do)",
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench-web-serve-"))
    base = work / "base" / "ladder"
    make_ladder(base, args.entrants)
    without, busy, load = [], [], []
    for r in range(args.rounds):
        for web in (False, True) if r % 2 == 0 else (True, False):
            folder = work / f"run{r}-{'web' if web else 'alone'}"
            shutil.copytree(base.parent, folder)
            t = time.perf_counter()
            rate, served = trio.run(run_for, folder / "ladder", args.seconds, web, args.clients, args.mix)
            (busy if web else without).append(rate)
            if served is not None:
                load.append(served)
            shown = f", web served {served:.0f} requests/s" if served is not None else ""
            print(f"round {r + 1} {'web busy' if web else 'without web'}: {rate:.0f} games/s{shown} "
                  f"({time.perf_counter() - t:.0f} s)", flush=True)  # fmt: skip
            shutil.rmtree(folder, ignore_errors=True)
    a, b = statistics.median(without), statistics.median(busy)
    print(
        f"scheduler games/s, median of {args.rounds}: without the web {a:.0f}, with the web busy {b:.0f} "
        f"({statistics.median(load):.0f} requests/s) -> {b / a:.2f}x"
    )
    shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
