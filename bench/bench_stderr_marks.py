"""What marking the stderr logs (``RunnerConfig.stderr_marks``, on in ``serve``) costs the referee: its CPU time for
the same games with and without the marks, for a silent bot (tests/bots/honest.py) and one that writes a line on
stderr before each move and discard (tests/bots/thinker.py), three of a kind at a table, and the cost of one mark
alone (``Player.mark_stderr`` on a live process, nothing in its pipe).

Not a test. Runs alternate (plain, marked) ``--runs`` times per bot. Figures in bench/README.md, "Stderr marks".

Run: ``python bench/bench_stderr_marks.py --games 300 --runs 3``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.runner import BotSpec, RunnerConfig  # noqa: E402
from referee.runner.game import play_game  # noqa: E402
from referee.runner.player import Player  # noqa: E402

BOTS = ROOT / "tests" / "bots"


def _players(bot: str, marks: bool, folder: Path) -> list[Player]:
    config = RunnerConfig(sandbox="none", stderr_marks=marks)
    spec = BotSpec(bot, (sys.executable, str(BOTS / f"{bot}.py")), BOTS)
    return [Player(spec, config, folder / f"{bot}.{seat}.log") for seat in range(3)]


def referee_cpu(bot: str, marks: bool, games: int) -> float:
    """The referee's CPU seconds for ``games`` games of three ``bot`` processes (started once)."""
    with tempfile.TemporaryDirectory() as folder:
        players = _players(bot, marks, Path(folder))

        async def main() -> None:
            for g in range(games):
                await play_game(players, game_id=f"g{g}", seed=g)
            for p in players:
                await p.aclose()

        start = time.process_time()
        trio.run(main)
        return time.process_time() - start


def one_mark(count: int = 100_000) -> float:
    """Microseconds of one ``mark_stderr`` on a live silent bot."""
    with tempfile.TemporaryDirectory() as folder:
        player = _players("honest", True, Path(folder))[0]

        async def main() -> float:
            await player.ensure_started()
            start = time.perf_counter()
            for i in range(count):
                player.mark_stderr(("g", 0, 1, i, "turn"))
            took = time.perf_counter() - start
            await player.aclose()
            return took / count * 1e6

        return trio.run(main)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    print(f"one mark: {one_mark():.2f} us")
    for bot in ("honest", "thinker"):
        seen: dict[bool, list[float]] = {False: [], True: []}
        for _ in range(args.runs):
            for marks in (False, True):
                seen[marks].append(referee_cpu(bot, marks, args.games))
        for marks, cpu in seen.items():
            figures = ", ".join(f"{c:.2f}" for c in cpu)
            label = "marked" if marks else "plain "
            median = statistics.median(cpu)
            print(f"{bot:8} {label}: referee CPU {figures} s (median {median:.2f}) / {args.games} games")


if __name__ == "__main__":
    main()
