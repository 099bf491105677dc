"""Tournament benchmark: games/s of four random bots at four-player tables, and the referee's memory over a long run.

Not a test. In one run it measures, with the same bots, seed and ``--jobs``:

1. throughput with persistent bot processes (the default of ``referee run``) and with one process per game
   (``referee run --fresh-bots``), and their ratio;
2. the referee's resident memory (RSS, from /proc/self/status) after 1,000 and after 10,000 finished games of one
   tournament with persistent bots, and the growth between the two.

Everything runs in this process through ``referee.tournament.run_tournament`` (the code behind ``referee run``),
with results, game logs and bot logs written to a temporary folder, as in a real tournament.
Run: ``python bench/bench_tournament.py`` (``--help`` for options; ``--quick`` for a short smoke run).
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

from referee.runner import parse_bot_spec
from referee.tournament import (
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
    with_unique_names,
)

ROOT = Path(__file__).resolve().parents[1]
BOTS = (ROOT / "sample_bots" / "random_bot.py", ROOT / "tests" / "bots" / "random_bot.py")
PLAYERS = 4
TARGET_GAMES_PER_S = 50.0  # four-player games/s with persistent bots, --jobs 2, on a 2-core machine
TARGET_RSS_GROWTH_MB = 20.0  # from 1,000 to 10,000 games


def rss_mb() -> float:
    """This process's resident set size in MB (VmRSS)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmRSS in /proc/self/status")


def cpu_seconds() -> tuple[float, float]:
    """CPU seconds (user + system) of this process, and of its ended and reaped descendants (the bots)."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


class Recorder(Progress):
    """Counts finished games; records the time of the first and last, and RSS at the requested game counts."""

    def __init__(self, marks: tuple[int, ...] = ()) -> None:
        self.marks = set(marks)
        self.rss: dict[int, float] = {}
        self.done = 0
        self.first: float | None = None
        self.last: float | None = None

    def game_done(self, played: PlayedGame, tally: Tally) -> None:
        self.done += 1
        now = time.perf_counter()
        self.first = self.first or now
        self.last = now
        if self.done in self.marks:
            self.rss[self.done] = rss_mb()


def params_for(bot: Path, games: int, seed: int, sandbox: str, move_time: float) -> TournamentParams:
    specs = with_unique_names([parse_bot_spec(str(bot))] * PLAYERS)
    entrants = tuple(EntrantInfo.from_spec(s) for s in specs)
    repeats = max(1, games // PLAYERS)  # one table of four, four rotations per deal
    requested = Requested(
        entrants, table_size=PLAYERS, repeats=repeats, seed=seed, move_time=move_time, sandbox=sandbox
    )
    return resolve_params(None, requested)


def tournament(
    params: TournamentParams, *, jobs: int, fresh: bool, marks: tuple[int, ...] = ()
) -> tuple[int, float, float, tuple[float, float], Recorder]:
    """Play a whole tournament in a fresh folder.

    Returns (games, wall seconds, steady games/s, (referee CPU s, bots CPU s), recorder). Steady games/s counts
    from the first finished game to the last, leaving out the bots' start-up. Bot CPU is known once every bot
    has ended, which ``run_tournament`` guarantees when it returns.
    """
    with tempfile.TemporaryDirectory(prefix="bench-tournament-") as folder, ResultsStore(folder) as store:
        store.initialise(params, DealSecret.new())
        recorder = Recorder(marks)
        cpu_before = cpu_seconds()
        start = time.perf_counter()
        outcome = run_tournament(store, params, LocalExecutor(jobs, fresh=fresh), progress=recorder)
        wall = time.perf_counter() - start
        cpu_after = cpu_seconds()
        if outcome.interrupted:
            sys.exit("interrupted")
        steady = (recorder.done - 1) / (recorder.last - recorder.first) if recorder.done > 1 else 0.0  # type: ignore[operator]
        cpu = (cpu_after[0] - cpu_before[0], cpu_after[1] - cpu_before[1])
        return recorder.done, wall, steady, cpu, recorder


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--bot", type=Path, default=next((b for b in BOTS if b.exists()), BOTS[-1]))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--games", type=int, default=400, help="games of the persistent-process run (default 400)")
    parser.add_argument("--fresh-games", type=int, default=100, help="games of the process-per-game run (default 100)")
    parser.add_argument("--rss-games", type=int, default=10_000, help="games of the memory run (default 10000)")
    parser.add_argument("--sandbox", choices=["auto", "bwrap", "none"], default="auto")
    parser.add_argument("--move-time", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="a short smoke run: 80 games, memory at 100/400")
    args = parser.parse_args()
    games, fresh_games, rss_games = (80, 20, 400) if args.quick else (args.games, args.fresh_games, args.rss_games)
    first_mark = 100 if args.quick else 1_000

    print(f"bot {args.bot.relative_to(ROOT) if args.bot.is_relative_to(ROOT) else args.bot}, {PLAYERS} players")
    print(f"--jobs {args.jobs}, sandbox {args.sandbox}, {os.cpu_count()} cores, Python {sys.version.split()[0]}")
    rates = {}
    for label, fresh, count in (("persistent processes", False, games), ("one process per game", True, fresh_games)):
        params = params_for(args.bot, count, args.seed, args.sandbox, args.move_time)
        n, wall, steady, (referee_cpu, bots_cpu), _ = tournament(params, jobs=args.jobs, fresh=fresh)
        rates[fresh] = n / wall
        print(f"{label:>22}: {n} games in {wall:6.2f} s = {n / wall:6.1f} games/s (steady {steady:6.1f} games/s)")
        if args.sandbox == "none":
            per_game = (referee_cpu + bots_cpu) / n
            print(
                f"{'':>22}  CPU per game: referee {1000 * referee_cpu / n:.1f} ms + bots {1000 * bots_cpu / n:.1f} ms;"
                f" {os.cpu_count()} idle cores could do at most {(os.cpu_count() or 1) / per_game:.0f} games/s"
            )
        else:  # sandboxed bots are not our own children: their CPU time does not reach RUSAGE_CHILDREN
            referee_ms = 1000 * referee_cpu / n
            print(f"{'':>22}  CPU per game: referee {referee_ms:.1f} ms (bots: measure with --sandbox none)")
    print(f"{'ratio':>22}: persistent / per-game = {rates[False] / rates[True]:.2f}x")
    verdict = "met" if rates[False] >= TARGET_GAMES_PER_S else "NOT met"
    print(f"{'target':>22}: >= {TARGET_GAMES_PER_S:.0f} games/s with persistent bots: {verdict}")

    if rss_games:
        params = params_for(args.bot, rss_games, args.seed, args.sandbox, args.move_time)
        before = rss_mb()
        n, wall, _, _, rec = tournament(params, jobs=args.jobs, fresh=False, marks=(first_mark, rss_games))
        low, high = rec.rss.get(first_mark), rec.rss.get(n)
        print(f"{'memory run':>22}: {n} games in {wall:6.1f} s = {n / wall:6.1f} games/s; RSS before {before:.1f} MB")
        if low is not None and high is not None:
            print(f"{'referee RSS':>22}: {low:.1f} MB at {first_mark} games, {high:.1f} MB at {n} games, "
                  f"growth {high - low:+.1f} MB")  # fmt: skip
            verdict = "met" if high - low < TARGET_RSS_GROWTH_MB else "NOT met"
            limit = f"RSS growth < {TARGET_RSS_GROWTH_MB:.0f} MB from {first_mark} to {n} games"
            print(f"{'target':>22}: {limit}: {verdict}")


if __name__ == "__main__":
    main()
