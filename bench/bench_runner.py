"""Runner benchmark: per-move round-trip of the runner against a raw JSON ping-pong over pipes (the floor).

Not a test. One run measures, with the same trivial persistent Python bot and the same ``turn`` line:

- floor: a plain Python parent writes the line to the bot's stdin pipe and reads the reply line from its stdout
  (``json.loads`` on both sides), nothing else;
- runner: ``Player.request`` (deadline, bounded line reader, unsolicited-output check, strict reply parsing)
  with the bot run bare (``--sandbox none``), then inside bubblewrap;
- bot start: ``Player.ensure_started`` (process start and hello) bare and inside bubblewrap;
- a whole game: per-move wall time of ``play_game`` with two honest bots (engine, messages, game log).

Prints the figures and the ratio runner / floor (target <= 1.5). Run: ``python bench/bench_runner.py``.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trio

from protocol import Expect, encode, turn_message
from referee.engine import Discard, apply, discard_options, legal_actions, new_game, observation_for
from referee.runner import BotSpec, Player, RunnerConfig, parse_bot_spec, play_game

TARGET = 1.5

BOT = """\
import json, sys
out = sys.stdout
for line in sys.stdin:
    msg = json.loads(line)
    kind = msg["type"]
    if kind == "hello":
        out.write(json.dumps({"type": "hello", "protocol": 1, "name": "trivial"}) + "\\n")
    elif kind == "turn":
        out.write(json.dumps({"type": "drop"}) + "\\n")
    elif kind == "bye":
        break
    out.flush()
"""


def turn_line() -> bytes:
    """A realistic ``turn`` line: a 3-player game a few moves into round 1."""
    state = new_game(3, seed=5)
    for seat in range(3):
        state = apply(state, Discard(seat, discard_options(state.hands[seat], 3)[-1]))
    for _ in range(6):
        state = apply(state, legal_actions(state)[0])
    obs = observation_for(state, state.to_move)
    return encode(turn_message("bench", obs, None, names=["a", "b", "c"]))


class RawPingPong:
    """The floor: a plain parent writing the line to the bot's stdin and reading a reply line, blocking I/O."""

    def __init__(self, bot: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, str(bot)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0
        )

    def block(self, line: bytes, n: int) -> tuple[float, float]:
        """Wall and CPU seconds (of this process) per round-trip over ``n`` round-trips."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        write, readline = self.proc.stdin.write, self.proc.stdout.readline
        start, cpu = time.perf_counter(), time.process_time()
        for _ in range(n):
            write(line)
            json.loads(readline())
        return (time.perf_counter() - start) / n, (time.process_time() - cpu) / n

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


async def runner_block(player: Player, line: bytes, n: int) -> tuple[float, float]:
    """Wall and CPU seconds (of this process) per ``Player.request`` round-trip over ``n`` round-trips."""
    start, cpu = time.perf_counter(), time.process_time()
    for _ in range(n):
        await player.request(line, Expect.TURN, trio.current_time() + 5)
    return (time.perf_counter() - start) / n, (time.process_time() - cpu) / n


async def round_trips(bot: Path, line: bytes, n: int, blocks: int, have_bwrap: bool) -> dict[str, tuple[float, float]]:
    """Median wall and referee-side CPU seconds per round-trip of the floor and the runner (bare and boxed),
    measured in alternating blocks so that load from other processes touches all of them alike."""
    spec = parse_bot_spec(str(bot))
    raw = RawPingPong(bot)
    players = {"none": Player(spec, RunnerConfig(sandbox="none"))}
    if have_bwrap:
        players["bwrap"] = Player(spec, RunnerConfig(sandbox="bwrap"))
    samples: dict[str, list[tuple[float, float]]] = {"floor": [], **{k: [] for k in players}}
    try:
        for p in players.values():
            await p.ensure_started()
            assert p.ready, p.startup_fault
        raw.block(line, 200)
        for p in players.values():
            await runner_block(p, line, 200)
        per = max(1, n // blocks)
        for _ in range(blocks):
            samples["floor"].append(raw.block(line, per))
            for mode, p in players.items():
                samples[mode].append(await runner_block(p, line, per))
    finally:
        raw.close()
        for p in players.values():
            await p.aclose()
    return {k: (statistics.median(w for w, _ in v), statistics.median(c for _, c in v)) for k, v in samples.items()}


async def bot_starts(spec: BotSpec, sandbox: str, n: int) -> float:
    """Seconds per bot start (process start and hello), ended with bye each time."""
    total = 0.0
    for _ in range(n):
        player = Player(spec, RunnerConfig(sandbox=sandbox))  # type: ignore[arg-type]
        start = time.perf_counter()
        await player.ensure_started()
        total += time.perf_counter() - start
        assert player.ready, player.startup_fault
        await player.aclose()
    return total / n


async def game_moves(bot: Path, sandbox: str, games: int, folder: Path) -> tuple[float, int]:
    """Wall seconds per move of whole games (two honest bots, logs written) and the moves played."""
    spec = parse_bot_spec(str(bot))
    config = RunnerConfig(sandbox=sandbox)  # type: ignore[arg-type]
    players = [Player(spec, config), Player(spec, config)]
    moves = 0
    try:
        for p in players:
            await p.ensure_started()
        start = time.perf_counter()
        for g in range(games):
            result = await play_game(players, game_id=f"b{g}", seed=g, log_path=folder / f"b{g}.jsonl")
            events = [json.loads(x) for x in (folder / f"b{g}.jsonl").read_text().splitlines()]
            moves += sum(1 for e in events if e["event"] in ("action", "discard"))
            assert not result.faults
        return (time.perf_counter() - start) / moves, moves
    finally:
        for p in players:
            await p.aclose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=5000, help="round-trips per measurement (default 5000)")
    parser.add_argument("--blocks", type=int, default=10, help="alternating measurement blocks (default 10)")
    parser.add_argument("--starts", type=int, default=20, help="bot starts per sandbox mode (default 20)")
    parser.add_argument("--games", type=int, default=30, help="whole games per sandbox mode (default 30)")
    args = parser.parse_args()
    honest = Path(__file__).resolve().parents[1] / "tests" / "bots" / "honest.py"
    have_bwrap = shutil.which("bwrap") is not None
    line = turn_line()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        bot = folder / "trivial_bot.py"
        bot.write_text(BOT)
        spec = parse_bot_spec(str(bot))
        print(f"turn line: {len(line)} bytes; {args.moves} round-trips each, in {args.blocks} alternating blocks")
        rt = trio.run(round_trips, bot, line, args.moves, args.blocks, have_bwrap)
        (raw, raw_cpu), (bare, bare_cpu) = rt["floor"], rt["none"]
        ratio = bare / raw
        verdict = "meets" if ratio <= TARGET else "misses"
        print("                                          wall/round-trip  referee CPU/round-trip (medians)")
        print(f"floor  (raw JSON ping-pong over pipes)   {raw * 1e6:8.1f} us      {raw_cpu * 1e6:8.1f} us")
        print(f"runner (Player.request, --sandbox none)  {bare * 1e6:8.1f} us      {bare_cpu * 1e6:8.1f} us")
        print(f"ratio runner / floor                     {ratio:8.2f}   ({verdict} the target <= {TARGET})")
        start_bare = trio.run(bot_starts, spec, "none", args.starts)
        print(f"bot start + hello, --sandbox none        {start_bare * 1e3:8.1f} ms")
        per_move_bare, moves = trio.run(game_moves, honest, "none", args.games, folder)
        print(f"whole games, --sandbox none              {per_move_bare * 1e6:8.1f} us per move ({moves} moves)")
        if have_bwrap:
            boxed, boxed_cpu = rt["bwrap"]
            start_boxed = trio.run(bot_starts, spec, "bwrap", args.starts)
            per_move_boxed, _ = trio.run(game_moves, honest, "bwrap", args.games, folder)
            print(f"runner (Player.request, --sandbox bwrap) {boxed * 1e6:8.1f} us      {boxed_cpu * 1e6:8.1f} us")
            print(f"bot start + hello, --sandbox bwrap       {start_boxed * 1e3:8.1f} ms")
            print(f"whole games, --sandbox bwrap             {per_move_boxed * 1e6:8.1f} us per move")
            print(
                f"sandbox adds: {(start_boxed - start_bare) * 1e3:+.1f} ms per bot start, "
                f"{(boxed - bare) * 1e6:+.1f} us per move round-trip"
            )
        else:
            print("bwrap not installed: sandbox cost not measured")


if __name__ == "__main__":
    main()
