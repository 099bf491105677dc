"""The referee's CPU per game of ``play_game`` with this checkout's game files against another checkout's, in one
process, alternating blocks of games.

Not a test. On a machine shared with other work, two runs of ``bench_game_cpu.py`` a minute apart differ by more
than most changes to a game's code; here both versions play in the same process, block after block, so both see
the same machine. The files that make a game (``GAME_FILES``: the runner's game, log, process and player modules
and ``protocol/wire.py``) are loaded a second time from ``--base`` under other module names (their imports of
each other rewritten to those names); everything else (the engine, the rest of the protocol and runner) is this
checkout's, shared by both. So the figure is what those five files changed, not the whole tree (for that,
alternate ``bench_game_cpu.py`` from two checkouts).

Four copies of ``bench/bots/stdlib_random.py`` per side (started once, ``--sandbox none``) play four-player games
with game logs written (``--no-log``: without); each block of ``--games`` games is timed with ``process_time``
(this process: user and system), the two sides in turn, the side that goes first alternating. Printed: each side's
median CPU per game, their ratio, and the median and quartiles of the ratios of the blocks played side by side.

Run: ``python bench/bench_game_ab.py --base /path/to/other/checkout [--blocks 60 --games 10]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import types
from pathlib import Path
from typing import Any

import trio

from referee.runner import RunnerConfig, parse_bot_spec

GAME_FILES = ("protocol.wire", "referee.runner.gamelog", "referee.runner.process", "referee.runner.player",
              "referee.runner.game")  # fmt: skip
BOT = Path(__file__).resolve().parent / "bots" / "stdlib_random.py"


def load_other(base: Path) -> tuple[Any, Any]:
    """The player and game modules of ``base`` (its ``GAME_FILES`` loaded under other names, in import order)."""
    alias = {name: "ab_base_" + name.replace(".", "_") for name in GAME_FILES}
    for name in GAME_FILES:
        path = base / (name.replace(".", "/") + ".py")
        source = path.read_text()
        for old, new in alias.items():
            source = source.replace(old, new)
        module = types.ModuleType(alias[name])
        module.__file__ = str(path)
        sys.modules[alias[name]] = module
        exec(compile(source, str(path), "exec"), module.__dict__)
    return sys.modules[alias["referee.runner.player"]], sys.modules[alias["referee.runner.game"]]


async def main_async(args: argparse.Namespace) -> None:
    import referee.runner.game as this_game
    import referee.runner.player as this_player

    other_player, other_game = load_other(Path(args.base).resolve())
    sides = {"base": (other_player, other_game), "this": (this_player, this_game)}
    spec, config = parse_bot_spec(str(BOT)), RunnerConfig(sandbox="none")
    players = {side: [module.Player(spec, config) for _ in range(4)] for side, (module, _) in sides.items()}
    cpu: dict[str, list[float]] = {side: [] for side in sides}
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        try:
            for side in sides:
                for p in players[side]:
                    await p.ensure_started()
                    assert p.ready, p.startup_fault
            number = 0
            for block in range(args.blocks + 1):  # block 0 warms both sides up
                for side in ("base", "this") if block % 2 else ("this", "base"):
                    play = sides[side][1].play_game
                    start = time.process_time()
                    for _ in range(args.games):
                        number += 1
                        log = None if args.no_log else folder / f"g{number}.jsonl"
                        result = await play(players[side], game_id=f"g{number}", seed=number, log_path=log)
                        assert not result.faults, result.faults
                    if block:
                        cpu[side].append((time.process_time() - start) / args.games)
                for log_file in folder.iterdir():
                    log_file.unlink()
        finally:
            for side in sides:
                for p in players[side]:
                    await p.aclose()
    base, this = statistics.median(cpu["base"]), statistics.median(cpu["this"])
    ratios = sorted(t / b for b, t in zip(cpu["base"], cpu["this"], strict=True))
    quartiles = statistics.quantiles(ratios, n=4)
    print(
        f"play_game, referee CPU per game{' (no logs)' if args.no_log else ''}: base {1000 * base:.3f} ms, "
        f"this checkout {1000 * this:.3f} ms, ratio {this / base:.3f}; blocks side by side: median ratio "
        f"{statistics.median(ratios):.3f}, quartiles {quartiles[0]:.3f}-{quartiles[2]:.3f} ({len(ratios)} blocks)"
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--base", required=True, help="the other checkout (a folder holding referee/ and protocol/)")
    ap.add_argument("--blocks", type=int, default=60, help="measured blocks per side (default 60)")
    ap.add_argument("--games", type=int, default=10, help="games per block (default 10)")
    ap.add_argument("--no-log", action="store_true", help="play without game logs")
    args = ap.parse_args()
    if not (Path(args.base) / "referee" / "runner" / "game.py").is_file():
        ap.error(f"--base {args.base}: no referee/runner/game.py there; give the folder of another checkout")
    print(f"load average: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    trio.run(main_async, args)


if __name__ == "__main__":
    main()
