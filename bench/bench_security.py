"""What issue 25's protections cost (target: within 5% of before), measured as ratios in one run.

Not a test. Three figures, each a median of ratios of pairs measured back to back (which goes first alternates),
so that load from other processes touches both alike:

- per bot start (process start and hello) and per move (``Player.request`` round trip) inside bubblewrap: the
  seccomp filter as the runner loads it against the same filter without the page-cache and memfd rules
  (``syscall_filter.compile_filter(page_cache=False)``), with the same trivial bot as ``bench_runner.py``;
- per stored game: the referee's CPU to play a four-player game (``bench/bots/stdlib_random.py``, bare, with its
  log, as a lane does) and store it (``ResultsStore.record_game``), into a store with the hash chain against one
  without (a store whose tournament was begun without ``chain_scheme``).

Run: ``python bench/bench_security.py`` (about a minute); ``--starts``, ``--moves``, ``--games`` for more.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import os
import shutil
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import trio
from bench_hardening import pairs
from bench_runner import BOT

from referee.runner import Player, RunnerConfig, parse_bot_spec, play_game
from referee.runner import process as process_mod
from referee.runner.syscall_filter import compile_filter
from referee.tournament import DealSecret, EntrantInfo, Requested, ResultsStore, make_schedule, resolve_params

STDLIB_BOT = Path(__file__).resolve().parent / "bots" / "stdlib_random.py"
TARGET = 1.05
_filter_fd = process_mod.filter_fd


@contextlib.contextmanager
def without_cache_rules() -> Iterator[None]:
    """Bots started inside this block get the filter without the page-cache and memfd rules."""
    program = compile_filter(page_cache=False)

    def old_fd() -> int:
        fd = os.memfd_create("referee-seccomp-bench", os.MFD_CLOEXEC)
        os.write(fd, program)
        os.lseek(fd, 0, os.SEEK_SET)
        return fd

    process_mod.filter_fd = old_fd  # type: ignore[assignment]
    try:
        yield
    finally:
        process_mod.filter_fd = _filter_fd


async def sandbox_ratios(folder: Path, starts: int, moves: int, blocks: int) -> dict[str, list[float]]:
    spec = parse_bot_spec(str(folder / "bot.py"))
    return await pairs(
        spec, RunnerConfig(sandbox="bwrap"), starts, moves, blocks, without_cache_rules, new="new", old="old"
    )


async def store_ratios(folder: Path, games: int, blocks: int) -> dict[str, list[float]]:
    """The referee's CPU seconds per game played (four stdlib bots, bare, with a game log, as a lane does) and
    stored, into a store with the chain ("new") and into one without ("old"), in alternating blocks. The game log
    writer's own digest of the bytes it writes is in both: ``log hash`` measures it alone, per game."""
    names = ["a", "b", "c", "d"]
    entrants = tuple(EntrantInfo(n, ("python3", f"{n}.py"), "/bots", {}) for n in names)
    secret = DealSecret(b"\x01" * 32)
    params = resolve_params(None, Requested(entrants=entrants, seed=1, repeats=2 * games))
    stores = {}
    for name in ("new", "old"):
        store = ResultsStore(folder / name)
        store.initialise(params, secret)
        stores[name] = store
        (folder / name / "games").mkdir()
    db = sqlite3.connect(folder / "old" / "results.sqlite")
    with db:
        db.execute("DELETE FROM meta WHERE key = 'chain_scheme'")  # a tournament begun before the chain
    db.close()
    schedule = iter(g for b in make_schedule(names, table_size=4, repeats=2 * games, seed=1, secret=secret)
                    for g in b.games)  # fmt: skip
    spec = parse_bot_spec(str(STDLIB_BOT))
    players = [Player(spec, RunnerConfig(sandbox="none")) for _ in names]
    got: dict[str, list[float]] = {"record new": [], "record old": [], "log hash": []}
    try:
        for p in players:
            await p.ensure_started()
            assert p.ready, p.startup_fault
        per = max(1, games // blocks)
        for b in range(blocks):
            for name in ("new", "old") if b % 2 else ("old", "new"):
                played = [next(schedule) for _ in range(per)]
                start = time.process_time()
                for g in played:
                    log = folder / name / "games" / f"{g.game_id}.jsonl"
                    result = await play_game(players, game_id=g.game_id, seed=g.seed, log_path=log)
                    stores[name].record_game(g, result, duration=0.1)
                got[f"record {name}"].append((time.process_time() - start) / per)
                start = time.process_time()
                for g in played:
                    hashlib.sha256((folder / name / "games" / f"{g.game_id}.jsonl").read_bytes())
                got["log hash"].append((time.process_time() - start) / per)
    finally:
        for p in players:
            await p.aclose()
        for store in stores.values():
            store.close()
    return got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=30, help="bot starts per variant (default 30)")
    parser.add_argument("--moves", type=int, default=5000, help="round trips per variant (default 5000)")
    parser.add_argument("--blocks", type=int, default=20, help="alternating blocks (default 20)")
    parser.add_argument("--games", type=int, default=200, help="games played and stored per variant (default 200)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-security-") as tmp:
        folder = Path(tmp)
        rows: list[tuple[str, float, float, float]] = []
        if shutil.which("bwrap") is None:
            print("bubblewrap is not installed: the sandbox figures are left out", file=sys.stderr)
        else:
            (folder / "bot").mkdir()
            (folder / "bot" / "bot.py").write_text(BOT)
            got = trio.run(sandbox_ratios, folder / "bot", args.starts, args.moves, args.blocks)
            for what, unit in (("start", 1e3), ("move", 1e6)):
                new, old, ratios = got[f"{what} new"], got[f"{what} old"], got[f"{what} ratio"]
                rows.append(
                    (what, statistics.median(new) * unit, statistics.median(old) * unit, statistics.median(ratios))
                )
        (folder / "store").mkdir()
        got = trio.run(store_ratios, folder / "store", args.games, args.blocks)
        new, old = got["record new"], got["record old"]
        ratios = [n / o for n, o in zip(new, old, strict=True)]
        rows.append(
            ("stored game", statistics.median(new) * 1e3, statistics.median(old) * 1e3, statistics.median(ratios))
        )
        hashed = statistics.median(got["log hash"]) * 1e6
    units = {"start": "ms", "move": "us", "stored game": "ms"}
    for what, new, old, ratio in rows:
        verdict = "met" if ratio <= TARGET else "NOT met"
        print(
            f"{what:<12} with issue 25 {new:9.3f} {units[what]}, before {old:9.3f} {units[what]}: "
            f"ratio {ratio:.3f} (target <= {TARGET:.2f}: {verdict})"
        )
    print(f"(a stored game: the referee's CPU to play and store it; of that, hashing its log: {hashed:.0f} us)")


if __name__ == "__main__":
    main()
