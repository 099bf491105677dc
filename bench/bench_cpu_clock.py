"""``--clock cpu``: what it costs per move, and whether the CPU time it charges holds on a loaded machine.

Not a test. One run measures, in alternating blocks:

1. the wall time and the referee's own CPU time per move of whole games (two persistent trivial bots, game logs
   written) with ``clock="wall"`` and with ``clock="cpu"`` (two CPU readings of the bot's processes per reply),
   and their ratio (target: cpu / wall <= 1.10);
2. a bot that spends a fixed CPU time (``--burn`` ms) on every reply, idle and while ``--hogs`` busy-looping
   processes load the machine: wall time and charged CPU time per reply. The CPU clock is reliable when the
   charged CPU time stays the same under load while the wall time grows.

Run: ``python bench/bench_cpu_clock.py`` (about a minute).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio

from referee.runner import Player, RunnerConfig, parse_bot_spec, play_game

TARGET = 1.10

BOT = """\
import json, sys, time
burn = float(sys.argv[1]) / 1000
out = sys.stdout
for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "hello":
        out.write(json.dumps({"type": "hello", "protocol": 1, "name": "b"}) + "\\n")
    elif kind == "deal":
        cards = [c for c in msg["hand"] if c != 1]
        out.write(json.dumps({"type": "discard", "cards": cards[len(cards) - msg["discard"]:]}) + "\\n")
    elif kind == "turn":
        t = time.process_time()
        while time.process_time() - t < burn:
            pass
        reply = {"type": "play", "value": 1, "count": 1, "bonus": 0} if msg["last"] is None else {"type": "drop"}
        out.write(json.dumps(reply) + "\\n")
    elif kind == "bye":
        break
    out.flush()
"""

HOG = "while True:\n    pass\n"


async def games(players: list[Player], n: int, folder: Path, tag: str) -> tuple[float, float, list[dict[str, float]]]:
    """(wall s, referee CPU s, recv events) of ``n`` games."""
    wall0, cpu0 = time.perf_counter(), time.process_time()
    for g in range(n):
        result = await play_game(players, game_id=f"{tag}{g}", seed=g, log_path=folder / f"{tag}{g}.jsonl")
        assert not result.faults, result.faults
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    recvs = []
    for g in range(n):
        for line in (folder / f"{tag}{g}.jsonl").read_text().splitlines():
            event = json.loads(line)
            if event["event"] == "recv":
                recvs.append(event)
    return wall, cpu, recvs


async def per_move(bot: Path, sandbox: str, blocks: int, n: int, folder: Path) -> dict[str, tuple[float, float]]:
    spec = parse_bot_spec(f"{sys.executable} {bot} 0")
    out: dict[str, list[tuple[float, float]]] = {"wall": [], "cpu": []}
    pools = {c: [Player(spec, RunnerConfig(sandbox=sandbox, clock=c)) for _ in range(2)] for c in out}  # type: ignore[arg-type]
    try:
        for block in range(blocks):
            for clock in ("wall", "cpu") if block % 2 == 0 else ("cpu", "wall"):
                wall, cpu, recvs = await games(pools[clock], n, folder, f"{clock}{block}-")
                out[clock].append((wall / len(recvs), cpu / len(recvs)))
    finally:
        for ps in pools.values():
            for p in ps:
                await p.aclose()
    return {c: (statistics.median(w for w, _ in v), statistics.median(c_ for _, c_ in v)) for c, v in out.items()}


async def under_load(bot: Path, burn: float, hogs: int, n: int, folder: Path) -> dict[str, tuple[float, float, float]]:
    spec = parse_bot_spec(f"{sys.executable} {bot} {burn}")
    out = {}
    for label, count in (("idle", 0), (f"{hogs} hogs", hogs)):
        procs = [subprocess.Popen([sys.executable, "-c", HOG]) for _ in range(count)]
        players = [Player(spec, RunnerConfig(sandbox="none", clock="cpu", move_time=5.0)) for _ in range(2)]
        try:
            _, _, recvs = await games(players, n, folder, f"load{count}-")
        finally:
            for p in players:
                await p.aclose()
            for p in procs:
                p.kill()
                p.wait()
        turns = [e for e in recvs if float(e["cpu_ms"]) >= burn * 0.5]
        out[label] = (
            statistics.median(float(e["ms"]) for e in turns),
            statistics.median(float(e["cpu_ms"]) for e in turns),
            max(float(e["cpu_ms"]) for e in turns),
        )
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--blocks", type=int, default=6, help="alternating blocks per clock (default 6)")
    parser.add_argument("--games", type=int, default=10, help="games per block (default 10)")
    parser.add_argument("--burn", type=float, default=50.0, help="CPU ms the loaded bot spends per turn")
    parser.add_argument("--hogs", type=int, default=4, help="busy-looping processes for the loaded figure")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        bot = folder / "burn_bot.py"
        bot.write_text(BOT)
        for sandbox in ("none", "bwrap"):
            try:
                res = trio.run(per_move, bot, sandbox, args.blocks, args.games, folder)
            except Exception as exc:  # bwrap missing or unusable: say so and go on
                print(f"--sandbox {sandbox}: not measured ({exc})")
                continue
            (w_wall, w_cpu), (c_wall, c_cpu) = res["wall"], res["cpu"]
            ratio = c_wall / w_wall
            verdict = "meets" if ratio <= TARGET else "misses"
            print(
                f"--sandbox {sandbox}: per reply, wall clock {w_wall * 1e6:7.1f} us (referee CPU {w_cpu * 1e6:6.1f} us)"
                f", cpu clock {c_wall * 1e6:7.1f} us (referee CPU {c_cpu * 1e6:6.1f} us)"
            )
            print(
                f"  ratio cpu / wall clock: {ratio:.3f} wall, {c_cpu / w_cpu:.3f} referee CPU ({verdict} <= {TARGET})"
            )
        load = trio.run(under_load, bot, args.burn, args.hogs, args.games, folder)
        print(f"a bot spending {args.burn:.0f} ms of CPU per turn (median over turns; --sandbox none):")
        for label, (wall_ms, cpu_ms, cpu_max) in load.items():
            print(f"  {label:8s} wall {wall_ms:7.1f} ms, charged CPU {cpu_ms:6.1f} ms (max {cpu_max:.1f} ms)")


if __name__ == "__main__":
    main()
