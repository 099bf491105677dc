"""Ladder benchmark with real bots: games/s and bot starts per game of ``referee ladder serve`` against ``referee
run --format balanced`` on the same 20 entrants, side by side in one run; and a long run with versions submitted
while it plays.

Not a test. The 20 entrants are sample bots (heuristic, greedy and random_bot) at 20 noise levels (``--noise P``,
the sample bots' strength knob), each a folder with a bot.toml, submitted to a fresh ladder and taken through its
real gate (``referee check`` in the sandbox). Bot processes are counted where they are made (a counting wrapper
around the runner's ``Player``, one per process start), in both.

``--compare`` (the default): once every version is ranked, the ladder plays for ``--seconds`` (blocks at tables of
4, the table size of the balanced run); then, in the same process, ``referee run``'s own code (``run_tournament``,
``LocalExecutor`` with the same ``--jobs``) plays a balanced tournament of the same 20 bots with as many tables per
entrant as the ladder played blocks per version. Printed: games/s and bot starts per game of each, and their ratios
(the issue's target: within 20%).

``--minutes M``: the ladder alone for M minutes at mixed table sizes (2, 3, 4), a new version submitted every
``--submit-every`` seconds (a random entrant's bot at another noise level), then stopped as Ctrl-C would; printed:
blocks, games, games/s, starts per game, gate passes, the longest wait, the most blocks an entrant played against the
mean, the process's peak memory, the store's size and the leaderboard's top. Figures in bench/README.md, "Ladder,
real bots".

Run: ``python bench/bench_ladder_real.py --seconds 300`` and ``python bench/bench_ladder_real.py --minutes 30``.
"""

from __future__ import annotations

import argparse
import random
import resource
import shutil
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

import trio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.ladder import BlockState, Ladder, VersionState  # noqa: E402
from referee.ladder.intake import discard  # noqa: E402
from referee.ladder.serve import ServeOptions, serve  # noqa: E402
from referee.runner import Player  # noqa: E402
from referee.tournament import DealSecret, LocalExecutor, Requested, ResultsStore, resolve_params, run_tournament  # noqa: E402
from referee.tournament.params import EntrantInfo  # noqa: E402

BOTS = ("heuristic", "greedy", "random_bot")


class Counting:
    """A ``Player`` factory that counts the processes it makes."""

    def __init__(self) -> None:
        self.starts = 0

    def __call__(self, spec: Any, config: Any, stderr_path: Path) -> Player:
        self.starts += 1
        return Player(spec, config, stderr_path)


def bot_folder(dest: Path, bot: str, noise: float) -> Path:
    folder = dest / f"{bot}-{noise:.2f}"
    folder.mkdir(parents=True)
    shutil.copy(ROOT / "sample_bots" / f"{bot}.py", folder / f"{bot}.py")
    (folder / "bot.toml").write_text(f'command = "python {bot}.py --noise {noise:.2f}"\n')
    return folder


def field() -> list[tuple[str, str, float]]:
    """20 (entrant, bot, noise): the three sample bots at noise levels spread over 0 .. 0.6."""
    out = []
    for i in range(20):
        bot = BOTS[i % 3]
        out.append((f"{bot}-{i:02d}", bot, round(0.03 * i, 2)))
    return out


def make_ladder(folder: Path, settings: str, sources: Path) -> Path:
    lad = folder / "ladder"
    made, _ = Ladder.init(lad)
    made.layout.config.write_text(settings)
    made.close()
    with Ladder.open(lad) as ladder:
        for name, bot, noise in field():
            ladder.add_entrant(name)
            ladder.submit(name, bot_folder(sources, bot, noise))
    return lad


def peak_mib() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def ladder_window(lad: Path, jobs: int, seconds: float, counting: Counting) -> dict[str, float]:
    """Serve until every version is ranked, then measure ``seconds`` of play."""
    options = ServeOptions(jobs=jobs, announce=lambda line: print(f"  ladder: {line}", flush=True), factory=counting)
    async with trio.open_nursery() as nursery:
        ladder = await nursery.start(serve, lad, options)
        while True:
            versions = ladder.store.versions()
            if all(v.state in (VersionState.RANKED, VersionState.FAILED) for v in versions):
                break
            await trio.sleep(0.5)
        games0, starts0, t0 = ladder.store.game_count(), counting.starts, time.perf_counter()
        blocks0 = ladder.store.block_count()
        await trio.sleep(seconds)
        games, starts, wall = ladder.store.game_count() - games0, counting.starts - starts0, time.perf_counter() - t0
        blocks = ladder.store.block_count() - blocks0
        ranked = len(ladder.store.versions(states=[VersionState.RANKED]))
        nursery.cancel_scope.cancel()
    return {"games": games, "starts": starts, "wall": wall, "blocks": blocks, "ranked": ranked}


def balanced(lad: Path, folder: Path, jobs: int, tables: int, counting: Counting) -> dict[str, float]:
    """``referee run --format balanced`` of the ladder's ranked versions, in this process."""
    from referee.ladder.botmanifest import BotManifest, version_spec

    with Ladder.open(lad) as ladder:
        versions = ladder.store.versions(states=[VersionState.RANKED])
        specs = [version_spec(v.key.replace("#", "-v"), BotManifest(v.command, v.build), ladder.version_folder(v))
                 for v in versions]  # fmt: skip
        settings = ladder.config.bot_settings()
    entrants = tuple(EntrantInfo.from_spec(s) for s in specs)
    params = resolve_params(
        None,
        Requested(
            entrants=entrants,
            table_size=4,
            format="balanced",
            tables_per_entrant=tables,
            sandbox=settings.sandbox.value,
            move_time=settings.move_time,
        ),
    )
    out = folder / "balanced"
    with ResultsStore(out) as store:
        store.initialise(params, DealSecret.new())
        start, starts0 = time.perf_counter(), counting.starts
        outcome = run_tournament(store, params, LocalExecutor(jobs, factory=counting))
        wall = time.perf_counter() - start
    return {"games": outcome.played, "starts": counting.starts - starts0, "wall": wall}


def compare(args: argparse.Namespace, folder: Path) -> None:
    settings = (
        f'[games]\ntable_sizes = [4]\ntable_weights = [1]\nsandbox = "{args.sandbox}"\n'
        f"[serve]\njobs = {args.jobs}\nmax_processes = {args.max_processes}\n"
        f"[submissions]\ngate_games = {args.gate_games}\n"
    )
    lad = make_ladder(folder, settings, folder / "src")
    counting = Counting()
    print(f"ladder: gate, placement, then {args.seconds:g} s of play (jobs {args.jobs}) ...", flush=True)
    lad_fig = trio.run(ladder_window, lad, args.jobs, args.seconds, counting)
    tables = max(1, round(lad_fig["blocks"] * 4 / max(1, lad_fig["ranked"])))
    print(f"balanced: the same {lad_fig['ranked']:.0f} bots, {tables} tables per entrant ...", flush=True)
    bal_fig = balanced(lad, folder, args.jobs, tables, counting)
    rows = [("ladder serve", lad_fig), ("run --format balanced", bal_fig)]
    print(f"\n{'':<22} {'games':>7} {'wall s':>7} {'games/s':>8} {'bot starts':>11} {'starts/game':>12}")
    for label, f in rows:
        print(f"{label:<22} {f['games']:>7.0f} {f['wall']:>7.1f} {f['games'] / f['wall']:>8.2f} {f['starts']:>11.0f} "
              f"{f['starts'] / max(1, f['games']):>12.3f}")  # fmt: skip
    gps = (lad_fig["games"] / lad_fig["wall"]) / (bal_fig["games"] / bal_fig["wall"])
    spg_l = lad_fig["starts"] / max(1, lad_fig["games"])
    spg_b = bal_fig["starts"] / max(1, bal_fig["games"])
    print(f"ladder / balanced: games/s {gps:.2f}x, bot starts per game {spg_l:.3f} against {spg_b:.3f}")


async def long_run(lad: Path, args: argparse.Namespace, counting: Counting, folder: Path) -> dict[str, Any]:
    rng = random.Random(args.seed)
    lines: list[str] = []

    def say(line: str) -> None:
        lines.append(line)
        print(f"  [{time.strftime('%H:%M:%S')}] ladder: {line}", flush=True)

    options = ServeOptions(jobs=args.jobs, announce=say, factory=counting)
    submitted = 0
    start = time.perf_counter()
    async with trio.open_nursery() as nursery:
        ladder = await nursery.start(serve, lad, options)
        deadline = start + args.minutes * 60
        next_submit = start + args.submit_every
        while time.perf_counter() < deadline:
            await trio.sleep(1)
            if time.perf_counter() >= next_submit:
                next_submit += args.submit_every
                name, bot, _ = rng.choice(field())
                noise = round(rng.uniform(0, 0.6), 3)
                source = bot_folder(folder / "src" / f"new{submitted}", bot, noise)
                v = await trio.to_thread.run_sync(ladder.submit, name, source)
                submitted += 1
                say(f"submitted {v.key} ({bot} at noise {noise})")
        wall = time.perf_counter() - start
        nursery.cancel_scope.cancel()
    return {"wall": wall, "submitted": submitted, "lines": lines}


def minutes(args: argparse.Namespace, folder: Path) -> None:
    settings = (
        f'[games]\nsandbox = "{args.sandbox}"\n[serve]\njobs = {args.jobs}\nmax_processes = {args.max_processes}\n'
        f"[submissions]\ngate_games = {args.gate_games}\nper_day = 50\n"
    )
    lad = make_ladder(folder, settings, folder / "src")
    counting = Counting()
    run = trio.run(long_run, lad, args, counting, folder)
    with Ladder.open(lad) as ladder:
        store = ladder.store
        games, blocks = store.game_count(), store.block_count()
        voids = len(store.blocks(states=[BlockState.VOID], limit=None))
        passed = sum(1 for line in run["lines"] if "passed its gate" in line)
        failed = sum(1 for line in run["lines"] if "failed its gate" in line)
        per_entrant = Counter()
        for b in store.blocks(states=[BlockState.DONE], limit=None):
            for vid in b.seats:
                v = store.version(vid)
                if v is not None:
                    per_entrant[v.entrant_id] += 1
        mean = sum(per_entrant.values()) / max(1, len(per_entrant))
        size = sum(p.stat().st_size for p in lad.glob("ladder.sqlite*")) / 2**20
        logs = sum(p.stat().st_size for p in (lad / "games").rglob("*") if p.is_file()) / 2**20
        board = ladder.leaderboard()
    print(f"\n{args.minutes:g} minutes, {args.jobs} lanes: {blocks:,} blocks, {games:,} games, "
          f"{games / run['wall']:.2f} games/s; {counting.starts:,} bot starts ({counting.starts / max(1, games):.3f} "
          f"a game); {run['submitted']} versions submitted while it ran, {passed} gates passed, {failed} failed; "
          f"{voids} blocks void at the stop (played again at the next start)")  # fmt: skip
    print(f"most blocks of an entrant {max(per_entrant.values())} against the mean {mean:.1f} (the daily bound is on "
          f"bot time: bench/bench_matchmaker.py --store); peak memory of this process {peak_mib():.0f} MiB; "
          f"store {size:.1f} MiB "
          f"({size * 2**20 / max(1, games):,.0f} B/game), game logs {logs:.0f} MiB")  # fmt: skip
    print("official top 5:")
    for r in board.rows[:5]:
        o = r.official
        assert o is not None
        print(f"  {o.place}. {r.version.key:<18} rank {o.rank_interval[0]}-{o.rank_interval[1]}  matchpoints "
              f"{o.matchpoints:.3f}  deals {o.deals}  live {r.live[0] if r.live else float('nan'):.1f}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=300.0, help="--compare: seconds of ladder play measured")
    parser.add_argument("--minutes", type=float, help="a long run of this many minutes instead of the comparison")
    parser.add_argument("--submit-every", type=float, default=120.0, help="--minutes: seconds between submissions")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--max-processes", type=int, default=0, help="[serve] max_processes (0: by memory)")
    parser.add_argument("--gate-games", type=int, default=8)
    parser.add_argument("--sandbox", default="auto")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the folders (printed)")
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="bench-ladder-real-"))
    print(f"folder: {folder}")
    try:
        if args.minutes:
            minutes(args, folder)
        else:
            compare(args, folder)
    finally:
        if not args.keep:
            discard(folder)  # the versions' copies are read-only


if __name__ == "__main__":
    main()
