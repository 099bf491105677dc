"""The referee's own CPU per game of ``play_game``, in-process, with the benchmark's stdlib-only bots.

Not a test. Four copies of ``bench/bots/stdlib_random.py`` (the bots of ``bench_hotpaths.py``) are started once,
bare (``--sandbox none``), and play ``--games`` four-player games with game logs written, as a tournament's lane
does; the figure is this process's CPU time (``time.process_time``: user and system, not the bots') per game,
bot starts excluded, median and least over ``--blocks`` blocks (the least is the one a loaded machine
disturbed least). ``--profile FILE`` writes a cProfile of one more block.
The defaults are the RunnerConfig's (a move time, so every request has a deadline).

``--replay`` splits that figure in two: after the blocks with the bots, the same games are played again in this
process by stand-ins that hand ``play_game`` each bot's recorded reply lines in order (read as the runner reads them,
each distinct line parsed once), without pipes, processes or waiting. What the referee does with each message (the
engine, the lines sent, the log, the checks of each reply) is the same; what the replay leaves out is the exchange
with the bots: the pipes' system calls, trio's wait for each reply, and what each wait costs the code that runs
after it (the bot ran in between, on the same core or not). The replayed blocks are timed the same way.

Run: ``python bench/bench_game_cpu.py [--games 60 --blocks 5] [--replay] [--no-log]``.
"""

from __future__ import annotations

import argparse
import cProfile
import os
import resource
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import trio

from protocol.replies import Expect, Reply, read_reply
from referee.runner import Player, RunnerConfig, parse_bot_spec, play_game

BOT = Path(__file__).resolve().parent / "bots" / "stdlib_random.py"


class Recorder:
    """A seat's ``Player``, keeping every reply line it returns (``lines``) for a ``Replayer``."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self.lines: list[bytes] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.player, name)

    async def request(self, line: bytes, expect: Expect, deadline: float) -> tuple[Reply, bytes]:
        reply, raw = await self.player.request(line, expect, deadline)
        self.lines.append(raw)
        return reply, raw


class Replayer:
    """A seat that answers each request with the next recorded reply line of its bot, at once (no process, no pipe),
    read as the runner reads a line (``read_reply``, each distinct line once, as its parse cache does)."""

    def __init__(self, player: Player, lines: list[bytes]) -> None:
        self.name, self.hello, self.startup_fault = player.name, player.hello, None
        self.ready, self.wants_legal_moves = True, player.wants_legal_moves
        self.move_time, self.time_bank = player.move_time, player.time_bank
        self.lines, self.next = lines, 0
        self.parsed: dict[tuple[bytes, Expect], Reply] = {}

    async def ensure_started(self) -> None:
        pass

    async def request(self, line: bytes, expect: Expect, deadline: float) -> tuple[Reply, bytes]:
        raw = self.lines[self.next]
        self.next += 1
        reply = self.parsed.get((raw, expect))
        if reply is None:
            reply = self.parsed[raw, expect] = read_reply(raw, expect)
        return reply, raw

    async def notify(self, line: bytes, deadline: float) -> None:
        pass

    async def end(self, message: str | None = None) -> None:
        pass

    async def aclose(self) -> None:
        pass

    def exited(self) -> None:
        return None


async def block(players: Sequence[Any], games: int, folder: Path | None, first: int) -> tuple[float, int]:
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
            if args.replay:
                await replayed(players, args, folder, statistics.median(per_game))
            if args.profile:
                profiler = cProfile.Profile(time.process_time)
                profiler.enable()
                await block(players, args.games, folder, 10**7)
                profiler.disable()
                profiler.dump_stats(args.profile)
        finally:
            for p in players:
                await p.aclose()


async def replayed(players: list[Player], args: argparse.Namespace, folder: Path | None, real: float) -> None:
    """Record a block of the bots' replies, then replay it ``args.blocks`` times in process; print the CPU per game
    of the replays next to ``real`` (the median of the blocks with the bots)."""
    recorders = [Recorder(p) for p in players]
    first = 2 * 10**6
    await block(recorders, args.games, folder, first)
    per_game: list[float] = []
    for _ in range(args.blocks):
        stand_ins = [Replayer(p, r.lines) for p, r in zip(players, recorders, strict=True)]
        cpu, _ = await block(stand_ins, args.games, folder, first)
        assert all(s.next == len(s.lines) for s in stand_ins), "a replay asked for other replies than the bots gave"
        per_game.append(cpu / args.games)
    median = statistics.median(per_game)
    print(
        f"replayed in process (no pipes, no waiting): median {1000 * median:.3f} ms, least {1000 * min(per_game):.3f}"
        f" ms a game; the exchange with the bots: {1000 * (real - median):.3f} ms a game (the median with them less"
        " this)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=60, help="games per block (default 60)")
    ap.add_argument("--blocks", type=int, default=5, help="measured blocks (default 5)")
    ap.add_argument("--no-log", action="store_true", help="play without game logs (to see what the log costs)")
    ap.add_argument("--profile", metavar="FILE", help="write a cProfile of one more block to FILE")
    ap.add_argument("--replay", action="store_true", help="also replay the bots' recorded replies in process")
    args = ap.parse_args()
    print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    trio.run(main_async, args)


if __name__ == "__main__":
    main()
