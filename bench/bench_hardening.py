"""Sandbox hardening benchmark (issue 17): what the hardening of the bubblewrap sandbox costs per bot start and
per move.

Not a test. One run measures, with the same trivial persistent Python bot (``bench_runner.BOT``), both inside
bubblewrap, in alternating blocks so that load from other processes touches both alike:

- hardened: the sandbox as the runner makes it: the seccomp filter (``--seccomp``), a read-only root and /dev,
  a capped /dev/shm, and the covers of a contest of ``--entrants`` one-file entrants sharing the bot's folder;
- plain: the same command line with those options taken out (no filter, no ``--remount-ro``, no covers, no
  /dev/shm of its own), as the sandbox was before the hardening.

Prints the median seconds per bot start (process start and hello) and per round trip (``Player.request``) of
each, and the median ratio hardened / plain over pairs measured back to back (target: <= 1.10). Run:
``python bench/bench_hardening.py``.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import trio
from bench_runner import BOT, runner_block, turn_line

from referee.runner import Player, RunnerConfig, entrant_paths, parse_bot_spec
from referee.runner import process as process_mod

TARGET = 1.10
_hardened_argv = process_mod.bot_argv


def plain_argv(*args: Any, **kwargs: Any) -> list[str]:
    """``bot_argv`` without the hardening options (seccomp, read-only remounts, covers, a private /dev/shm); the
    covers are not even computed (no entrants given)."""
    kwargs.update(seccomp_fd=None, entrants=())
    argv = _hardened_argv(*args, **kwargs)
    end = argv.index("--")
    out, i = [], 0
    while i < end:
        word = argv[i]
        if word in ("--seccomp", "--remount-ro"):
            i += 2
        elif word == "--ro-bind" and argv[i + 1] == "/dev/null":
            i += 3
        elif word == "--tmpfs" and argv[i + 1] != "/tmp":
            i += 2
        elif word == "--size" and argv[i + 3] == "/dev/shm":
            i += 4
        else:
            out.append(word)
            i += 1
    return out + argv[end:]


@contextlib.contextmanager
def plain() -> Iterator[None]:
    """Bots started inside this block get the plain sandbox."""
    process_mod.bot_argv = plain_argv  # type: ignore[assignment]
    try:
        yield
    finally:
        process_mod.bot_argv = _hardened_argv


async def start_once(spec: Any, config: RunnerConfig) -> float:
    player = Player(spec, config)
    start = time.perf_counter()
    await player.ensure_started()
    took = time.perf_counter() - start
    assert player.ready, player.startup_fault
    await player.aclose()
    return took


async def measure(folder: Path, starts: int, moves: int, blocks: int) -> dict[str, list[float]]:
    """Per bot start and per round trip: the seconds of each variant, and the ratio hardened / plain of each pair
    measured back to back (which of the two goes first alternates)."""
    spec = parse_bot_spec(str(folder / "bot.py"))
    others = [parse_bot_spec(str(p)) for p in sorted(folder.glob("entrant*.py"))]
    config = RunnerConfig(sandbox="bwrap", entrants=entrant_paths([spec, *others]))
    return await pairs(spec, config, starts, moves, blocks, plain, new="hardened", old="plain")


async def pairs(
    spec: Any,
    config: RunnerConfig,
    starts: int,
    moves: int,
    blocks: int,
    before: Callable[[], contextlib.AbstractContextManager[None]],
    *,
    new: str,
    old: str,
) -> dict[str, list[float]]:
    """Seconds per bot start and per round trip of ``spec`` as the runner starts it (``new``) and as it starts it
    inside ``before()`` (``old``), measured in pairs back to back (which goes first alternates); with the ratio of
    each pair (``start ratio``, ``move ratio``)."""
    got: dict[str, list[float]] = {f"{what} {name}": [] for what in ("start", "move") for name in (new, old, "ratio")}
    await start_once(spec, config)  # warm caches
    for i in range(starts):
        pair = {}
        for name in (new, old) if i % 2 else (old, new):
            with before() if name == old else contextlib.nullcontext():
                pair[name] = await start_once(spec, config)
        got[f"start {new}"].append(pair[new])
        got[f"start {old}"].append(pair[old])
        got["start ratio"].append(pair[new] / pair[old])
    line = turn_line()
    players = {new: Player(spec, config)}
    await players[new].ensure_started()
    with before():
        players[old] = Player(spec, config)
        await players[old].ensure_started()
    try:
        for p in players.values():
            assert p.ready, p.startup_fault
            await runner_block(p, line, 200)
        per = max(1, moves // blocks)
        for i in range(blocks):
            pair = {}
            for name in (new, old) if i % 2 else (old, new):
                pair[name] = (await runner_block(players[name], line, per))[0]
            got[f"move {new}"].append(pair[new])
            got[f"move {old}"].append(pair[old])
            got["move ratio"].append(pair[new] / pair[old])
    finally:
        for p in players.values():
            await p.aclose()
    return got


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--starts", type=int, default=30, help="bot starts per variant (default 30)")
    parser.add_argument("--moves", type=int, default=5000, help="round trips per variant (default 5000)")
    parser.add_argument("--blocks", type=int, default=20, help="alternating blocks of round trips (default 20)")
    parser.add_argument("--entrants", type=int, default=20, help="one-file entrants sharing the folder (default 20)")
    args = parser.parse_args()
    if shutil.which("bwrap") is None:
        sys.exit("bench_hardening: bubblewrap (bwrap) is not installed")
    with tempfile.TemporaryDirectory(prefix="bench-hardening-") as tmp:
        folder = Path(tmp)
        (folder / "bot.py").write_text(BOT)
        for i in range(args.entrants - 1):
            (folder / f"entrant{i:03d}.py").write_text(BOT)
        got = trio.run(measure, folder, args.starts, args.moves, args.blocks)
    m = {k: statistics.median(v) for k, v in got.items()}
    print(f"bot start + hello, hardened sandbox   {m['start hardened'] * 1e3:8.2f} ms")
    print(f"bot start + hello, plain sandbox      {m['start plain'] * 1e3:8.2f} ms")
    print(f"round trip, hardened sandbox          {m['move hardened'] * 1e6:8.1f} us")
    print(f"round trip, plain sandbox             {m['move plain'] * 1e6:8.1f} us")
    for what in ("start", "move"):
        ratio = m[f"{what} ratio"]
        verdict = "met" if ratio <= TARGET else "NOT met"
        print(
            f"{what}: hardened / plain = {ratio:.3f}, median of {len(got[what + ' ratio'])} back-to-back pairs "
            f"(target <= {TARGET:.2f}: {verdict})"
        )


if __name__ == "__main__":
    main()
