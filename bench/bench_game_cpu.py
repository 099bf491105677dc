"""The referee's own CPU per game of ``play_game``, in-process, with the benchmark's stdlib-only bots.

Not a test. Four copies of ``bench/bots/stdlib_random.py`` (the bots of ``bench_hotpaths.py``) are started once,
bare (``--sandbox none``), and play ``--games`` four-player games with game logs written, as a tournament's lane
does; the figure is this process's CPU time (``time.process_time``: user and system, not the bots') per game,
bot starts excluded, median and least over ``--blocks`` blocks (the least is the one a loaded machine
disturbed least). ``--profile FILE`` writes a cProfile of one more block.
The defaults are the RunnerConfig's (a move time, so every request has a deadline).

Run: ``python bench/bench_game_cpu.py [--games 60 --blocks 5]``.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import resource
import statistics
import tempfile
import time
from pathlib import Path

import trio

from referee.runner import Player, RunnerConfig, parse_bot_spec, play_game

BOT = Path(__file__).resolve().parent / "bots" / "stdlib_random.py"


async def block(players: list[Player], games: int, folder: Path | None, first: int) -> tuple[float, int]:
    """(CPU seconds of this process, messages sent) for ``games`` games starting at seed ``first``."""
    messages = 0
    start = time.process_time()
    for g in range(first, first + games):
        log = None if folder is None else folder / f"g{g}.jsonl"
        result = await play_game(players, game_id=f"g{g}", seed=g, log_path=log)
        assert not result.faults, result.faults
    cpu = time.process_time() - start
    if folder is None:
        return cpu, 0
    for g in range(first, first + games):
        log = folder / f"g{g}.jsonl"
        messages += log.read_bytes().count(b'{"event":"send"')
        log.unlink()
    return cpu, messages


async def main_async(args: argparse.Namespace) -> None:
    spec = parse_bot_spec(str(BOT))
    config = RunnerConfig(sandbox="none")
    players = [Player(spec, config) for _ in range(4)]
    per_game: list[float] = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = None if args.no_log else Path(tmp)
        try:
            for p in players:
                await p.ensure_started()
                assert p.ready, p.startup_fault
            await block(players, 5, folder, 10**6)  # warm-up
            sent = 0
            before = resource.getrusage(resource.RUSAGE_SELF)
            for b in range(args.blocks):
                cpu, sent = await block(players, args.games, folder, b * args.games)
                per_game.append(cpu / args.games)
            print(
                f"play_game, referee CPU per game: median {1000 * statistics.median(per_game):.3f} ms, "
                f"least {1000 * min(per_game):.3f} ms "
                f"(blocks: {', '.join(f'{1000 * x:.3f}' for x in per_game)}; {sent / args.games:.0f} messages a game)"
            )
            after, n = resource.getrusage(resource.RUSAGE_SELF), args.games * args.blocks
            user, system = (after.ru_utime - before.ru_utime) / n, (after.ru_stime - before.ru_stime) / n
            print(f"all blocks: user {1000 * user:.3f} ms + system {1000 * system:.3f} ms a game")
            if args.profile:
                profiler = cProfile.Profile(time.process_time)
                profiler.enable()
                await block(players, args.games, folder, 10**7)
                profiler.disable()
                profiler.dump_stats(args.profile)
        finally:
            for p in players:
                await p.aclose()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=60, help="games per block (default 60)")
    ap.add_argument("--blocks", type=int, default=5, help="measured blocks (default 5)")
    ap.add_argument("--no-log", action="store_true", help="play without game logs (to see what the log costs)")
    ap.add_argument("--profile", metavar="FILE", help="write a cProfile of one more block to FILE")
    args = ap.parse_args()
    print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    trio.run(main_async, args)


if __name__ == "__main__":
    main()
