"""Hot paths of the referee (issue 13), measured side by side in one run.

1. ``referee run --jobs 2`` (``--jobs N``: another number of tables; both lanes in one process) against a naive
   blocking referee (``bench/naive_referee.py``) on the same four stdlib-only bots
   (``bench/bots/stdlib_random.py``) and the same four-player deals: games/s of each and their ratio, and each
   referee's own CPU time per game (its process only, not its bots'; start-up, imports, the results database,
   game logs and the closing report included; lane worker processes, where a run has them, counted too, each with
   getrusage's RUSAGE_SELF), and the CPU time of its bots per game (their start-ups included). ``--jobs 1`` plays
   one table at a time, as the naive referee does: the like-for-like CPU a game. Both run bots without a sandbox. The
   ``referee run`` goes first; the naive referee then plays the deals of its game logs with the bots in the
   same seats. Repeated ``--reps`` times, alternating, so both see the same machine. The referee's modules are
   byte-compiled first, as in an installed package. Then the same comparison at contest size (``--long-deals``,
   default 300 deals: 1,200 games), where a run's fixed costs (start-up, the 16 bot starts the deal rule needs,
   the closing report) are spread over five times the games, as they are in a real contest.
2. Start-up of a bot on the SDK (``sample_bots/random_bot.py``) against the stdlib-only bot: the wall time from
   starting the process to its hello reply, median over alternating starts.
3. ``referee --help`` and ``referee run --help`` wall time (median of several runs).
4. Engine: random-legal four-player games per CPU second on one core (``bench/bench_engine.py``'s playout).
5. The referee's CPU per ``turn`` line late in a round of 10, 100 and 1,000 history entries: built through the
   pydantic models (``encode(turn_message(...))``, the path before issue 13) and by ``protocol.wire.GameWire``
   as the runner does, one entry more per turn.

Run: ``python bench/bench_hotpaths.py`` (``--help`` for options). Prints one line per figure and whether its
target is met.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench"))

from bench_engine import measure  # noqa: E402

from protocol import encode, turn_message  # noqa: E402
from protocol.wire import GameWire  # noqa: E402
from referee.engine import PassEvent, new_game, observation_for  # noqa: E402
from referee.runner.gamelog import log_lines  # noqa: E402

STDLIB_BOT = ROOT / "bench" / "bots" / "stdlib_random.py"
SDK_BOT = ROOT / "sample_bots" / "random_bot.py"
NAIVE = ROOT / "bench" / "naive_referee.py"
REFEREE = Path(sys.executable).with_name("referee")

#: Runs ``referee`` in this process and writes the referee's CPU seconds and its bots' to the file argv[1]. The
#: referee's: this process's own (RUSAGE_SELF) plus its lane workers' own, if any (``--lane-processes`` forks a
#: worker process per lane; each reports its RUSAGE_SELF as it ends, not counting its bots). The bots':
#: RUSAGE_CHILDREN (every process reaped below this one: the workers, and the bots each worker reaped) minus the
#: workers' own.
RUN_MEASURED = """
import resource, sys
out, sys.argv = sys.argv[1], ["referee", *sys.argv[2:]]
from referee.cli import main
try:
    main()
finally:
    me, below = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    lanes = sys.modules.get("referee.tournament.lane_workers")
    workers = lanes.workers_cpu_seconds() if lanes is not None else 0.0
    referee, bots = me.ru_utime + me.ru_stime + workers, below.ru_utime + below.ru_stime - workers
    open(out, "w").write(f"{referee} {bots}")
"""


def referee_run(folder: Path, deals: int, seed: int, jobs: int = 2) -> tuple[int, float, float, float]:
    """(games, wall seconds, referee CPU seconds, bots' CPU seconds) of one ``referee run --jobs JOBS``."""
    cpu_file = folder / "cpu.txt"
    bots = [str(STDLIB_BOT)] * 4
    args = [*bots, "-n", str(deals), "--jobs", str(jobs), "--sandbox", "none", "--seed", str(seed), "-o", str(folder)]
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", RUN_MEASURED, str(cpu_file), "run", *args], check=True, capture_output=True)
    wall = time.perf_counter() - start
    games = len(list((folder / "games").glob("*.jsonl*")))
    cpu, bots_cpu = map(float, cpu_file.read_text().split())
    return games, wall, cpu, bots_cpu


def naive_run(folder: Path) -> tuple[int, float, float, float]:
    """(games, wall seconds, referee CPU seconds, bots' CPU seconds) of the naive referee on the deals of
    ``folder``'s game logs (compressed: their header lines are copied to plain files first, outside its timing)."""
    headers = folder / "naive_headers"
    headers.mkdir(exist_ok=True)
    logs = []
    for path in sorted((folder / "games").glob("*.jsonl*")):
        lines = log_lines(path)
        _, header = next(lines)
        lines.close()
        plain = headers / path.name.split(".")[0]
        plain.write_text(header, encoding="utf-8")
        logs.append(str(plain))
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, str(NAIVE), f"{sys.executable} {STDLIB_BOT}", *logs], check=True, capture_output=True
    )
    wall = time.perf_counter() - start
    out = json.loads(done.stdout)
    return out["games"], wall, out["cpu_s"], out["bots_cpu_s"]


def hello_time(bot: Path) -> float:
    """Seconds from starting ``bot`` to its hello reply."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, str(bot)], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(b'{"type":"hello","protocol":1}\n')
    proc.stdin.flush()
    line = proc.stdout.readline()
    took = time.perf_counter() - start
    proc.stdin.close()
    proc.wait()
    assert json.loads(line)["type"] == "hello", line
    return took


def wall_and_cpu(cmd: list[str]) -> tuple[float, float]:
    """Wall seconds of running ``cmd``, and the CPU seconds its process used."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    took = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return took, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def turn_line_cpu(entries: int, turns: int = 200) -> tuple[float, float]:
    """CPU microseconds per turn line at a history of ``entries`` entries: (models, GameWire). Each of the
    ``turns`` lines has one history entry more than the one before, as in a real round."""
    names = ["a", "b", "c", "d"]
    obs = observation_for(new_game(4, seed=1), 0)
    history = tuple(PassEvent(s % 4, False, 1) for s in range(entries + turns))
    views = [obs._replace(history=history[: entries + k]) for k in range(turns)]
    start = time.process_time()
    for view in views:
        encode(turn_message("g", view, names=names))
    models = time.process_time() - start
    wire = GameWire("g", names)
    start = time.process_time()
    for view in views:
        wire.turn(view)
    fast = time.process_time() - start
    return 1e6 * models / turns, 1e6 * fast / turns


def fixed_costs(args: argparse.Namespace, ref_cpu: float, naive_cpu: float) -> None:
    """Split each referee's CPU into a fixed cost per run and a cost per game: a run of one deal (four games)
    next to the median run above (``ref_cpu``, ``naive_cpu`` CPU seconds for ``4 * args.deals`` games)."""
    small_ref, small_naive = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for rep in range(args.reps):
            folder = Path(tmp) / f"small{rep}"
            games, _, cpu, _ = referee_run(folder, 1, args.seed + rep, args.jobs)
            small_ref.append((games, cpu))
            small_naive.append(naive_run(folder)[::2])
    games = args.deals * 4
    for name, small, full in (("referee run", small_ref, ref_cpu), ("naive", small_naive, naive_cpu)):
        few = small[0][0]
        cpu = statistics.median(c for _, c in small)
        per_game = (full - cpu) / (games - few)
        fixed = cpu - few * per_game
        print(
            f"   {name}: {1000 * fixed:.0f} ms of CPU a run + {1000 * per_game:.2f} ms a game"
            f" (from runs of {few} and {games} games)"
        )


def compare(deals: int, reps: int, seed: int, label: str, jobs: int = 2) -> tuple[float, float, float]:
    """``reps`` alternating runs of both referees on ``deals`` deals (x4 games), one line each: the median ratio,
    referee CPU ms per game, naive CPU ms per game."""
    print(f"\n{label}, {deals * 4} four-player games each, stdlib bots")
    print("rep   referee games/s  cpu ms/game  bots ms/game   naive games/s  cpu ms/game  bots ms/game   ratio")
    ratios, cpu_ref, cpu_naive = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        for rep in range(reps):
            folder = Path(tmp) / f"run{rep}"
            g1, w1, c1, b1 = referee_run(folder, deals, seed + rep, jobs)
            g2, w2, c2, b2 = naive_run(folder)
            ratio = (g1 / w1) / (g2 / w2)
            ratios.append(ratio)
            cpu_ref.append(1000 * c1 / g1)
            cpu_naive.append(1000 * c2 / g2)
            print(
                f"{rep + 1:>3} {g1 / w1:>17.1f} {cpu_ref[-1]:>12.2f} {1000 * b1 / g1:>13.2f} {g2 / w2:>15.1f}"
                f" {cpu_naive[-1]:>12.2f} {1000 * b2 / g2:>13.2f} {ratio:>7.2f}"
            )
    ratio, ref_ms, naive_ms = statistics.median(ratios), statistics.median(cpu_ref), statistics.median(cpu_naive)
    print(
        f"median ratio {ratio:.2f} (range {min(ratios):.2f}-{max(ratios):.2f}): target >= 1.5 {verdict(ratio >= 1.5)}"
    )
    print(
        f"median referee CPU per game {ref_ms:.2f} ms vs naive {naive_ms:.2f} ms: "
        f"target referee <= naive {verdict(ref_ms <= naive_ms)}"
    )
    return ratio, ref_ms, naive_ms


def verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--deals", type=int, default=60, help="deals per referee run (x4 seat rotations = games)")
    ap.add_argument("--reps", type=int, default=3, help="alternating repetitions of the referee comparison")
    ap.add_argument("--long-deals", type=int, default=300, help="deals of the contest-size comparison (1b; 0 skips it)")
    ap.add_argument("--starts", type=int, default=10, help="bot starts of each kind")
    ap.add_argument("--engine-seconds", type=float, default=3.0, help="CPU seconds of engine playouts")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--jobs", type=int, default=2, help="tables of the referee run (one process; default 2)")
    args = ap.parse_args()
    print(f"load average at start: {' '.join(f'{x:.1f}' for x in os.getloadavg())}; cores: {os.cpu_count()}")
    # An installed referee runs from byte-compiled modules; a checkout with PYTHONDONTWRITEBYTECODE set (as on the
    # shared machine) would compile about a hundred of them in every run (some 50 ms of CPU).
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(ROOT / "referee"), str(ROOT / "protocol")], check=True
    )

    label = f"1. referee run --jobs {args.jobs} vs naive blocking referee"
    _, ref_ms, naive_ms = compare(args.deals, args.reps, args.seed, label, args.jobs)
    fixed_costs(args, ref_ms * args.deals * 4 / 1000, naive_ms * args.deals * 4 / 1000)
    if args.long_deals:
        compare(
            args.long_deals,
            args.reps,
            args.seed,
            "1b. the same at contest size (fixed costs over more games)",
            args.jobs,
        )

    sdk, plain = [], []
    for _ in range(args.starts):
        sdk.append(hello_time(SDK_BOT))
        plain.append(hello_time(STDLIB_BOT))
    s, p = statistics.median(sdk), statistics.median(plain)
    print(
        f"\n2. bot start to hello: SDK bot {1000 * s:.0f} ms, stdlib bot {1000 * p:.0f} ms, ratio {s / p:.2f}: "
        f"target <= 2 {verdict(s / p <= 2)}"
    )

    helps = {}
    for cmd in ([], ["run"]):
        runs = [wall_and_cpu([str(REFEREE), *cmd, "--help"]) for _ in range(7)]
        helps[" ".join(["referee", *cmd, "--help"])] = (
            statistics.median(w for w, _ in runs),
            statistics.median(c for _, c in runs),
        )
    shown = ", ".join(f"{k}: {1000 * w:.0f} ms ({1000 * c:.0f} ms CPU)" for k, (w, c) in helps.items())
    worst = max(w for w, _ in helps.values())
    print(f"\n3. {shown}: target < 250 ms {verdict(worst < 0.25)}")

    games, _, cpu = measure(4, args.engine_seconds, args.seed)
    rate = games / cpu
    print(
        f"\n4. engine: {rate:,.0f} random-legal four-player games per CPU second: target >= 5,000 "
        f"{verdict(rate >= 5000)}"
    )
    print("\n5. CPU per turn line, late in a round:")
    for entries in (10, 100, 1000):
        models, fast = turn_line_cpu(entries)
        print(
            f"   {entries:>5} history entries: models {models:8.1f} us, GameWire {fast:6.1f} us ({models / fast:.0f}x)"
        )
    print(f"load average at end: {' '.join(f'{x:.1f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
