"""Compact game logs: what a game's log costs on disk and in CPU, and verifying a large results folder.

Two parts, in one run:

1. **Codecs** (``--codec-games``, default 48): real games played by the real runner (engine, game loop, log
   writer) with four copies of the greedy sample bot at noise 0, 0.15, 0.3 and 0.4 (a race's field, as
   examples/race/make_field.py makes it), run in this process through the SDK's message loop. Each game's log
   (every message and reply) is compressed with gzip at levels 1, 6 and 9 and Zstandard at levels 1, 3 and 9;
   the bytes and the CPU time to compress and to decompress one game are printed per codec, beside the CPU time
   of the whole in-process game (its four bots included).
2. **Scale** (``--games``, default 46,808: the issue's race): a results folder of that many games, a round robin of
   the same four bots at tables of 4 (the four seat rotations of each deal; the count rounded up to a multiple of
   4). The first ``--distinct`` games (default 2,400) are played through ``run_tournament`` with the default logs
   (compressed, every message and reply); every later game of the schedule is stored as a copy of one of them
   (its log file and its result, under the later game's id), so the folder holds that many real logs without
   playing them all. Then its size on disk against the same folder with its logs uncompressed (as an older
   referee wrote them), and ``referee verify FOLDER --jobs 2`` timed as a user runs it. (The copies' deals are
   not their game ids' deals: ``verify-deals`` is not for this folder.)

    python bench/bench_logs.py                       # both parts (about 15 minutes)
    python bench/bench_logs.py --games 2400          # a smaller folder, every game played
    python bench/bench_logs.py --games 0             # the codecs only
    python bench/bench_logs.py --keep DIR            # build the folder in DIR and keep it

Targets (issue 27): the folder at most a tenth of its uncompressed size; ``verify --jobs 2`` in minutes.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio
import zstandard

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

sys.path.insert(0, str(ROOT / "sample_bots"))

from greedy import Greedy  # noqa: E402

from protocol import Expect  # noqa: E402
from protocol.inbound import parse_message  # noqa: E402 - the SDK's own reader
from protocol.noise import with_noise  # noqa: E402
from protocol.replies import HelloReply, read_reply  # noqa: E402
from protocol.sdk import _Session  # noqa: E402 - the SDK's message loop, driven in this process
from referee.runner import play_game  # noqa: E402
from referee.runner.gamelog import log_content  # noqa: E402
from referee.tournament import (  # noqa: E402
    DealSecret,
    EntrantInfo,
    LocalExecutor,
    Requested,
    ResultsStore,
    resolve_params,
    run_tournament,
    schedule_for,
)

#: The field: copies of the greedy sample bot with noise, as ``examples/race/make_field.py`` makes a race's field
#: (``command = "greedy.py --noise P"``, named ``greedy-P``); these four are the issue's race's top.
FIELD = {f"greedy-{p:g}": (lambda p=p: with_noise(Greedy(), ["--noise", str(p)])) for p in (0.0, 0.15, 0.3, 0.4)}


class SampleEntrant:
    """A sample bot (``sample_bots/``, on the SDK) as an in-process seat (``referee.runner.game.Participant``): each
    message goes through the SDK's own message loop and each reply comes back as the bytes the bot would write, so
    the logs are those of the real bot, without its process."""

    move_time: float | None = 1.0
    time_bank: float | None = None
    wants_legal_moves = False
    startup_fault = None

    def __init__(self, name: str) -> None:
        self.name = name
        self.ready = True
        self._out = io.BytesIO()
        bot = FIELD[name]()
        self._session = _Session(bot, self._out, seed=name)
        self.hello: HelloReply | None = HelloReply(protocol=1, name=bot.name)

    def _feed(self, line: bytes) -> bytes:
        self._session.handle(parse_message(line), time.monotonic())
        said = self._out.getvalue()
        self._out.seek(0)
        self._out.truncate()
        return said.strip()

    async def ensure_started(self) -> None:
        self.ready = True

    async def request(self, line: bytes, expect: Expect, deadline: float) -> tuple[Any, bytes]:
        raw = self._feed(line)
        return read_reply(raw, expect), raw

    async def notify(self, line: bytes, deadline: float) -> None:
        self._feed(line)

    async def end(self, message: str | None = None) -> None:
        self.ready = False

    def exited(self) -> None:
        return None

    async def aclose(self) -> None:
        return None


def play_logs(folder: Path, games: int) -> tuple[list[bytes], float]:
    """``games`` full plain logs of the field's four bots in this process, and the CPU seconds a game took (bots,
    runner, engine and log)."""
    players = [SampleEntrant(n) for n in FIELD]

    async def main() -> None:
        for g in range(games):
            await play_game(players, game_id=f"g{g:06d}", seed=1000 + g, log_path=folder / f"g{g:06d}.jsonl")

    start = time.process_time()
    trio.run(main)
    cpu = (time.process_time() - start) / games
    return [(folder / f"g{g:06d}.jsonl").read_bytes() for g in range(games)], cpu


def codecs(logs: list[bytes]) -> dict[str, tuple[Any, Any]]:
    zstd = {lvl: zstandard.ZstdCompressor(level=lvl) for lvl in (1, 3, 9)}
    unzstd = zstandard.ZstdDecompressor()
    out: dict[str, tuple[Any, Any]] = {}
    for lvl in (1, 6, 9):
        out[f"gzip -{lvl}"] = (lambda d, lvl=lvl: gzip.compress(d, lvl, mtime=0), gzip.decompress)
    for lvl, c in zstd.items():
        out[f"zstd -{lvl}"] = (c.compress, unzstd.decompress)
    return out


def part_codecs(games: int) -> None:
    with tempfile.TemporaryDirectory(prefix="bench-logs-") as tmp:
        logs, game_cpu = play_logs(Path(tmp), games)
    plain = sum(map(len, logs)) / len(logs)
    print(
        f"Codecs: {games} four-player games of the greedy field in this process, {plain:,.0f} bytes of log a game, "
        f"{game_cpu * 1000:.2f} ms of CPU a game (runner, engine, log)"
    )
    print(f"  {'codec':8}  {'bytes/game':>10}  {'ratio':>6}  {'compress ms':>11}  {'of a game':>9}  {'read ms':>7}")
    for name, (pack, unpack) in codecs(logs).items():
        reps = 3
        start = time.process_time()
        packed = [pack(d) for _ in range(reps) for d in logs]
        c = (time.process_time() - start) / len(packed)
        start = time.process_time()
        for p in packed:
            unpack(p)
        d = (time.process_time() - start) / len(packed)
        size = sum(map(len, packed)) / len(packed)
        print(
            f"  {name:8}  {size:10,.0f}  {plain / size:5.1f}x  {c * 1000:11.3f}  {c / game_cpu:8.1%}  {d * 1000:7.3f}"
        )


def du(folder: Path) -> int:
    """Bytes the folder's files take on disk (allocated blocks, as ``du`` counts)."""
    return sum(p.stat().st_blocks * 512 for p in folder.rglob("*") if p.is_file())


@dataclass(frozen=True)
class _Copied:
    """A stored game's result as ``ResultsStore.record_game`` takes it (a copy of a played game's)."""

    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    log_path: Path
    replay: Any
    forfeits: tuple[int, ...] = ()
    faults: tuple[Any, ...] = ()


@dataclass(frozen=True)
class _FirstGames:
    """An executor that plays only the first ``games`` games of the schedule (the rest are copies)."""

    inner: LocalExecutor
    games: int

    def run(self, setup: Any, rounds: Any) -> None:
        given = []

        def first() -> list[Any]:
            if given:
                return []
            given.append(True)
            out, n = [], 0
            for batch in rounds():
                if n >= self.games:
                    break
                out.append(batch)
                n += len(batch.games)
            return out

        self.inner.run(setup, first)


def part_scale(games: int, distinct: int, keep: Path | None) -> None:
    tmp = Path(tempfile.mkdtemp(prefix="bench-logs-scale-")) if keep is None else keep
    folder = tmp / "results"
    try:
        entrants = tuple(EntrantInfo(n, ("python3", f"{n}.py"), "/tmp") for n in FIELD)
        params = resolve_params(None, Requested(entrants=entrants, seed=27, table_size=4, repeats=math.ceil(games / 4)))
        start = time.perf_counter()
        with ResultsStore(folder) as store:
            secret = DealSecret(bytes(32))
            store.initialise(params, secret)
            executor = LocalExecutor(1, factory=lambda spec, config, stderr: SampleEntrant(spec.name))
            run_tournament(store, params, _FirstGames(executor, distinct))
            played = time.perf_counter() - start
            real = list(store.games())
            replays = store.replays()
            assert not store.faults(), "the field's bots never fault"
            start = time.perf_counter()
            done = {g.game_id for g in real}
            rest = [g for b in schedule_for(params, secret) for g in b.games if g.game_id not in done]
            for i, game in enumerate(rest):
                source = real[i % len(real)]
                path = folder / "games" / f"{game.game_id}.jsonl.zst"
                shutil.copyfile(folder / str(source.log_path), path)
                result = _Copied(
                    tuple(s.score for s in source.seats),
                    tuple(s.rank for s in source.seats),
                    path,
                    json.loads(replays[source.game_id]),
                )
                store.record_game(game, result, duration=0.0)
            n = store.game_count()
        copied = time.perf_counter() - start
        logs = sorted((folder / "games").glob("*.jsonl.zst"))
        contents = [len(log_content(p)) for p in logs]
        packed = sum(p.stat().st_size for p in logs)
        content = sum(contents)
        on_disk = du(folder)
        # the same folder with every log uncompressed: its files less the compressed logs' blocks, plus the content
        # in 4 KiB blocks (an ext4 or tmpfs file of n bytes takes ceil(n / 4096) blocks)
        logs_disk = sum(p.stat().st_blocks * 512 for p in logs)
        plain_disk = on_disk - logs_disk + sum(math.ceil(c / 4096) * 4096 for c in contents)
        print(
            f"Scale: {len(real):,} games played in {played:.0f} s, then copied (their logs and results) to "
            f"{n:,} games in {copied:.0f} s, in {folder}"
        )
        print(
            f"  logs: {packed / n:,.0f} bytes a game compressed, {content / n:,.0f} uncompressed "
            f"({content / packed:.1f}x)"
        )
        print(
            f"  folder on disk: {on_disk / 1e6:,.1f} MB, {on_disk / n / 1000:.1f} kB a game; with the same logs "
            f"uncompressed {plain_disk / 1e6:,.1f} MB: {on_disk / plain_disk:.1%} of it (target: at most 10%)"
        )
        for jobs in (2,):
            start = time.perf_counter()
            done_ = subprocess.run(
                [sys.executable, "-m", "referee", "verify", str(folder), "--jobs", str(jobs)],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            took = time.perf_counter() - start
            said = done_.stdout.strip().splitlines()[-1] if done_.stdout.strip() else done_.stderr.strip()
            print(
                f"  referee verify {folder.name} --jobs {jobs}: {took:.0f} s ({took / n * 1000:.2f} ms a game), "
                f"exit {done_.returncode}: {said}"
            )
    finally:
        if keep is None:
            shutil.rmtree(tmp, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--codec-games", type=int, default=48, help="games whose logs the codecs compress")
    parser.add_argument("--games", type=int, default=46_808, help="games of the scale part (0: skip it)")
    parser.add_argument("--distinct", type=int, default=2_400, help="games of the scale part played (the rest copied)")
    parser.add_argument("--keep", type=Path, help="build the scale part's folder here and keep it")
    args = parser.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}")
    if args.codec_games:
        part_codecs(args.codec_games)
    if args.games:
        part_scale(args.games, args.distinct, args.keep)


if __name__ == "__main__":
    main()
