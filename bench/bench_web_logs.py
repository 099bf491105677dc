"""Web benchmark: a flooding bot's huge game log read over and over, against the scheduler and the leaderboard.

Not a test. Makes a ladder of three sample bots (greedy, random_bot, heuristic; tables of 2 and 3), runs ``referee
ladder serve`` on it, waits for a finished block, and puts ``--lines`` lines of a bot's flood (70 bytes each: 1.4
million make a log of 100 MB) into one of its game logs. Then, ``--rounds`` times, for ``--seconds`` each:

- quiet: no load;
- small log: ``--clients`` threads (each from an address of its own) read a usual game's log;
- flood log: the same threads read the flooded game's log.

Each reader waits half a second after each answer (so it stays within the rate limit of 120 requests a minute per
address; every round's readers have addresses of their own), a second after a refusal (429/503: the logs' slots
are taken). Meanwhile a prober (from one more address) asks for the leaderboard API every 0.2 s. Each round prints
the blocks the ladder finished, the leaderboard's median and worst answer time, and the answers' statuses.

Run: ``python bench/bench_web_logs.py`` (``--help`` for options).
"""

from __future__ import annotations

import argparse
import contextlib
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.runner.logfile import open_log  # noqa: E402

FLOOD = b'{"event":"recv","t":12.5,"seat":1,"ms":0.0,"line":"{\\"type\\":\\"pass\\"}"}\n'
BOTS = ("greedy", "random_bot", "heuristic")


def referee(*args: object) -> str:
    done = subprocess.run([sys.executable, "-m", "referee", *map(str, args)], cwd=ROOT, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(done.stderr.strip())
    return done.stdout


def make_ladder(folder: Path) -> Path:
    lad = folder / "ladder"
    referee("ladder", "init", lad)
    config = (lad / "ladder.toml").read_text()
    for pattern, value in (
        (r"table_sizes = .*", "table_sizes = [2, 3]"), (r"table_weights = .*", "table_weights = [1.0, 1.0]"),
        (r"placement_blocks = \d+", "placement_blocks = 2"), (r"gate_games = \d+", "gate_games = 4"),
    ):  # fmt: skip
        config = re.sub(pattern, value, config, count=1)
    (lad / "ladder.toml").write_text(config)
    for bot in BOTS:
        referee("ladder", "add", lad, bot)
        src = folder / "src" / bot
        src.mkdir(parents=True)
        shutil.copy(ROOT / "sample_bots" / f"{bot}.py", src)
        (src / "bot.toml").write_text(f'command = "python {bot}.py"\n')
        referee("ladder", "submit", lad, bot, src)
    return lad


def done_blocks(lad: Path) -> int:
    with sqlite3.connect(f"file:{lad / 'ladder.sqlite'}?mode=ro", uri=True) as db:
        return int(db.execute("select count(*) from blocks where state = 'done'").fetchone()[0])


def flood(path: Path, lines: int) -> None:
    with open_log(path) as handle:
        kept = handle.read().splitlines(keepends=True)
    with path.open("wb") as out:
        out.writelines(kept[:2])
        for _ in range(lines // 100_000):
            out.write(FLOOD * 100_000)
        out.write(FLOOD * (lines % 100_000))
        out.writelines(kept[2:])


def one_round(url: str, lad: Path, path: str | None, clients: int, seconds: float, net: str) -> str:
    stop = time.monotonic() + seconds
    codes: Counter[int | str] = Counter()

    def reader(address: str) -> None:
        assert path is not None
        with httpx2.Client(base_url=url, timeout=120, transport=httpx2.HTTPTransport(local_address=address)) as c:
            while time.monotonic() < stop:
                try:
                    r = c.get(path)
                    codes[r.status_code] += 1
                    time.sleep(0.5 if r.status_code == 200 else 1)
                except httpx2.HTTPError as exc:
                    codes[type(exc).__name__] += 1

    before = done_blocks(lad)
    threads = [threading.Thread(target=reader, args=(f"{net}.{k + 1}",)) for k in range(clients if path else 0)]
    for t in threads:
        t.start()
    times = []
    with httpx2.Client(base_url=url, timeout=60, transport=httpx2.HTTPTransport(local_address="127.0.2.1")) as c:
        while time.monotonic() < stop:
            started = time.monotonic()
            with contextlib.suppress(httpx2.HTTPError):
                c.get("/api/leaderboard").raise_for_status()
            times.append(time.monotonic() - started)
            time.sleep(0.2)
    after = done_blocks(lad)
    for t in threads:
        t.join()
    return (
        f"blocks {after - before:4d}  leaderboard median {statistics.median(times) * 1000:6.0f} ms, worst "
        f"{max(times) * 1000:6.0f} ms  reads {dict(codes)}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lines", type=int, default=1_400_000, help="lines of flood put into the log")
    parser.add_argument("--clients", type=int, default=8, help="threads reading a log")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of each round")
    parser.add_argument("--rounds", type=int, default=2, help="quiet, small log, flood log: this many times")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-web-logs-") as tmp:
        lad = make_ladder(Path(tmp))
        proc = subprocess.Popen(
            [sys.executable, "-m", "referee", "ladder", "serve", lad, "--listen", "127.0.0.1:0"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        try:
            assert proc.stdout is not None
            url = None
            while url is None:
                line = proc.stdout.readline()
                if not line:
                    raise SystemExit("serve stopped before it listened")
                found = re.search(r"pages and API on (http://[\d.:]+)", line)
                url = found.group(1) if found else None
            while done_blocks(lad) < 20:
                time.sleep(0.5)
            games = httpx2.get(f"{url}/api/blocks/10").json()["games"]
            flooded, small = games[0]["id"], games[1]["id"]
            log = next((lad / "games").rglob(f"{flooded}.jsonl*"))
            flood(log, args.lines)
            print(f"ladder {lad}; {log.name} now {log.stat().st_size / 1e6:.0f} MB; {args.clients} readers")
            for n in range(args.rounds):
                kinds = (("quiet", None), ("small log", f"/api/games/{small}/log"))
                for k, (name, path) in enumerate((*kinds, ("flood log", f"/api/games/{flooded}/log"))):
                    figures = one_round(url, lad, path, args.clients, args.seconds, f"127.{10 + n}.{k}")
                    print(f"round {n + 1} {name:10s} {figures}", flush=True)
        finally:
            proc.send_signal(signal.SIGINT)
            _, err = proc.communicate(timeout=60)
        tracebacks = err.count("Traceback")
        print(f"serve's output: {len(err.splitlines())} lines, {tracebacks} tracebacks")


if __name__ == "__main__":
    main()
