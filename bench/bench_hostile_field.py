"""Hostile-field soak: a real ladder of the four sample bots and hostile versions, served for ``--minutes`` beside a
web flood, checked once a second and at the end against the documented caps (issue 32's last "Done when").

Not a test. A fresh ladder (``referee ladder init``; tables of 2, 3 and 4, ``gate_games = 4``, ``placement_blocks =
2``, the real sandbox and ``[limits]``) gets these entrants, each a folder with a bot.toml:

- honest: the sample bots greedy, heuristic, montecarlo and random_bot;
- ``hog``: bench/bots/sleeper.py, honest until ``--hostile-after`` of the run has passed (so after its gate), then
  allocating memory without end at each turn (the bot's memory cgroup, ``[limits] ram``, must take it);
- ``flooder``: the same sleeper, padding every reply with 60 KB once hostile (``[limits] game_output``);
- ``ranked_flooder``: tests/bots/ranked_flooder.py (floods when every other seat bears a version's name);
- ``memory_hog``: tests/bots/memory_hog.py (allocates without end at its first turn);
- ``burner``: tests/bots/idle_burner.py (honest, but a child spins between its games);
- ``stderr``: tests/bots/stderr_flood.py (honest, a thread writes stderr without end);
- ``bigbuild``: an honest bot whose build writes 1 GiB of zeros into its folder (``[submissions] max_unpacked``).

``referee ladder serve DIR --listen 127.0.0.1:0`` runs as a subprocess. Beside it ``--clients`` threads, each from a
loopback address of its own, read in turn a hostile version's game log, the export and the leaderboard, with no pause
but after a refusal (bounded: that many clients, that long, loopback only). Once a second: is serve alive,
MemAvailable (/proc/meminfo; never below ``--floor-gib``), the ladder folder's bytes, the leaderboard's answer time.
At the end serve is stopped as Ctrl-C would, and the store is read: the honest versions' faults (must be 0), the
hostile versions' faults by kind and their states, games played, disk per game, the largest game log against the
cap (``game_output`` per seat plus the referee's own lines), the largest stderr file against its 1 MiB, the version
folders against ``max_unpacked``, serve's stderr free of tracebacks. One line per figure, PASS or FAIL; exit 1 on a
FAIL. Figures in bench/README.md, "Hostile field".

Run: ``python bench/bench_hostile_field.py`` (10 minutes); ``--minutes 1`` as a quick smoke.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import httpx2

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.ladder import Ladder, VersionState  # noqa: E402
from referee.ladder.intake import discard  # noqa: E402

HONEST = ("greedy", "heuristic", "montecarlo", "random_bot")
TESTS = ROOT / "tests" / "bots"
STDERR_CAP = 1 << 20  # docs/ladder.md: a version's stored stderr, 1 MiB a file
LOG_SLACK = 1 << 20  # the referee's own lines of a game log, beyond the bots' capped reply lines


def referee(*args: object) -> str:
    done = subprocess.run([sys.executable, "-m", "referee", *map(str, args)], cwd=ROOT, capture_output=True, text=True)
    if done.returncode:
        raise SystemExit(f"referee {' '.join(map(str, args))}: {done.stderr.strip()}")
    return done.stdout


def folder(dest: Path, name: str, files: dict[str, str], manifest: str) -> Path:
    out = dest / name
    out.mkdir(parents=True)
    for file, text in files.items():
        (out / file).write_text(text)
    (out / "bot.toml").write_text(manifest)
    return out


def entrants(src: Path, hostile_at: float) -> dict[str, Path]:
    """Each entrant's source folder; honest ones first."""
    base = (TESTS / "_base.py").read_text()
    out = {}
    for bot in HONEST:
        text = (ROOT / "sample_bots" / f"{bot}.py").read_text()
        out[bot.removesuffix("_bot")] = folder(src, bot, {f"{bot}.py": text}, f'command = "python {bot}.py"\n')
    sleeper = (ROOT / "bench" / "bots" / "sleeper.py").read_text()
    for name, mode in (("hog", "hog"), ("flooder", "flood")):
        command = f'command = "python bot.py --mode {mode} --after {hostile_at:.0f}"\n'
        out[name] = folder(src, name, {"bot.py": sleeper, "_base.py": base}, command)
    for name, test_bot in (("ranked_flooder", "ranked_flooder"), ("memory_hog", "memory_hog"),
                           ("burner", "idle_burner"), ("stderr", "stderr_flood")):  # fmt: skip
        files = {"bot.py": (TESTS / f"{test_bot}.py").read_text(), "_base.py": base}
        out[name] = folder(src, name, files, 'command = "python bot.py"\n')
    build = 'command = "python bot.py"\nbuild = "sh -c \'for i in $(seq 64); do head -c 32M /dev/zero > b$i; done\'"\n'
    out["bigbuild"] = folder(src, "bigbuild", {"bot.py": (TESTS / "honest.py").read_text(), "_base.py": base}, build)
    return out


def make_ladder(root: Path, hostile_at: float) -> Path:
    lad = root / "ladder"
    referee("ladder", "init", lad)
    config = (lad / "ladder.toml").read_text()
    for pattern, value in (
        (r"placement_blocks = \d+", "placement_blocks = 2"), (r"gate_games = \d+", "gate_games = 4"),
    ):  # fmt: skip
        config, n = re.subn(pattern, value, config, count=1)
        assert n == 1, pattern
    (lad / "ladder.toml").write_text(config)
    for name, source in entrants(root / "src", hostile_at).items():
        referee("ladder", "add", lad, name)
        referee("ladder", "submit", lad, name, source)
    return lad


def du(path: Path) -> int:
    total = 0
    for dirpath, _, files in os.walk(path):
        for f in files:
            with contextlib.suppress(OSError):
                total += os.lstat(os.path.join(dirpath, f)).st_blocks * 512
    return total


def mem_available() -> int:
    with open("/proc/meminfo") as handle:
        for line in handle:
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    raise SystemExit("no MemAvailable in /proc/meminfo")


class Flood:
    """``clients`` threads reading hostile game logs, the export and the leaderboard until ``stop`` is set."""

    def __init__(self, url: str, clients: int, hostile: tuple[str, ...]) -> None:
        self.url, self.hostile = url, hostile
        self.codes: Counter[str] = Counter()
        self.bytes = 0
        self.stop = threading.Event()
        self.lock = threading.Lock()
        self.threads = [threading.Thread(target=self.client, args=(k,), daemon=True) for k in range(clients)]

    def count(self, what: str, code: int | str, size: int = 0) -> None:
        with self.lock:
            self.codes[f"{what} {code}"] += 1
            self.bytes += size

    def hostile_games(self, c: httpx2.Client, k: int) -> list[int]:
        games: list[int] = []
        for name in self.hostile[k % len(self.hostile) :] + self.hostile[: k % len(self.hostile)]:
            r = c.get("/api/blocks", params={"entrant": name, "limit": 3})
            if r.status_code != 200:
                continue
            body = r.json()
            for block in body if isinstance(body, list) else body.get("blocks", []):
                one = c.get(f"/api/blocks/{block['id']}")
                if one.status_code == 200:
                    games += [g["id"] for g in one.json().get("games") or []]
            if games:
                break
        return games

    def client(self, k: int) -> None:
        transport = httpx2.HTTPTransport(local_address=f"127.0.3.{k + 1}")
        with httpx2.Client(base_url=self.url, timeout=60, transport=transport) as c:
            turn = 0
            while not self.stop.is_set():
                turn += 1
                try:
                    if turn % 3 == 0:
                        what, path = "leaderboard", "/api/leaderboard"
                    elif turn % 3 == 1:
                        games = self.hostile_games(c, k + turn)
                        if not games:
                            self.stop.wait(1)
                            continue
                        what, path = "log", f"/api/games/{games[turn % len(games)]}/log"
                    else:
                        what, path = "export", "/api/export.jsonl"
                    size = 0
                    with c.stream("GET", path) as r:
                        for chunk in r.iter_bytes():
                            size += len(chunk)
                            if self.stop.is_set():
                                break
                    self.count(what, r.status_code, size)
                    if r.status_code != 200:
                        self.stop.wait(1)
                except httpx2.HTTPError as exc:
                    self.count(path.split("/")[2] if "/" in path else "?", type(exc).__name__)
                    self.stop.wait(1)

    def __enter__(self) -> Flood:
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(timeout=90)


def verdict(ok: bool, line: str, failures: list[str]) -> None:
    print(f"{'PASS' if ok else 'FAIL'}  {line}", flush=True)
    if not ok:
        failures.append(line)


def soak(args: argparse.Namespace, root: Path) -> list[str]:
    start = time.time()
    hostile_at = start + 30 + args.minutes * 60 * args.hostile_after  # submitting takes ~25 s
    lad = make_ladder(root, hostile_at)
    made = time.time()
    print(f"ladder {lad}: {len(HONEST)} honest and 8 hostile entrants submitted in {made - start:.0f} s; the sleepers "
          f"turn hostile at +{hostile_at - made:.0f} s of serve", flush=True)  # fmt: skip
    err_path = root / "serve.err"
    with err_path.open("w") as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "referee", "ladder", "serve", lad, "--listen", "127.0.0.1:0"],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=err, text=True,
        )  # fmt: skip
    assert proc.stdout is not None
    url = None
    out_lines: list[str] = []
    while url is None:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit(f"serve stopped before it listened: {err_path.read_text()[-2000:]}")
        out_lines.append(line.rstrip())
        print(f"  serve: {line.rstrip()}", flush=True)
        found = re.search(r"pages and API on (http://[\d.:]+)", line)
        url = found.group(1) if found else None

    def drain() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            out_lines.append(line.rstrip())
            if args.verbose or re.search(r"gate|suspend|memory|fault", line):
                print(f"  [{time.strftime('%H:%M:%S')}] serve: {line.rstrip()}", flush=True)

    reader = threading.Thread(target=drain, daemon=True)
    reader.start()
    samples: list[dict[str, Any]] = []
    deadline = made + args.minutes * 60
    hostile = ("hog", "flooder", "burner", "stderr", "ranked_flooder", "memory_hog")
    with (
        Flood(url, args.clients, hostile) as flood,
        httpx2.Client(base_url=url, timeout=30, transport=httpx2.HTTPTransport(local_address="127.0.2.1")) as probe,
    ):
        while time.time() < deadline:
            t0 = time.monotonic()
            alive = proc.poll() is None
            try:
                probe.get("/api/leaderboard").raise_for_status()
                board = time.monotonic() - t0
            except httpx2.HTTPError:
                board = float("nan")
            samples.append({"t": time.time() - made, "alive": alive, "avail": mem_available(), "disk": du(lad),
                            "board": board})  # fmt: skip
            if len(samples) % 60 == 0:
                s = samples[-1]
                print(f"  +{s['t']:.0f} s: serve {'alive' if alive else 'DEAD'}, MemAvailable "
                      f"{s['avail'] / 2**30:.1f} GiB, ladder {s['disk'] / 2**20:.0f} MiB, leaderboard "
                      f"{board * 1000:.0f} ms, load {os.getloadavg()[0]:.1f}", flush=True)  # fmt: skip
            if not alive:
                break
            time.sleep(max(0.0, 1 - (time.monotonic() - t0)))
    died = proc.poll()
    stop = "died before the stop"
    if died is None:
        proc.send_signal(signal.SIGINT)
        try:
            stop = f"exit code {proc.wait(timeout=120)} after Ctrl-C"
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            stop = "still running 120 s after Ctrl-C (killed)"
    reader.join(timeout=10)
    load = os.getloadavg()
    return report(args, lad, samples, flood, err_path.read_text(), (died, stop), load)


def report(args: argparse.Namespace, lad: Path, samples: list[dict[str, Any]], flood: Flood, err: str,
           stopped: tuple[int | None, str], load: tuple[float, float, float]) -> list[str]:  # fmt: skip
    failures: list[str] = []
    floor = int(args.floor_gib * 2**30)
    print(f"\n{len(samples)} samples over {samples[-1]['t']:.0f} s; load average {load[0]:.2f} {load[1]:.2f} "
          f"{load[2]:.2f} at the end ({os.cpu_count()} cores)")  # fmt: skip
    died, stop = stopped
    verdict(died is None and all(s["alive"] for s in samples) and stop.startswith("exit code 130"),
            f"serve alive at every sample ({len(samples)}); {stop} (130: Ctrl-C, as documented)", failures)  # fmt: skip
    low = min(s["avail"] for s in samples)
    verdict(low >= floor, f"MemAvailable lowest {low / 2**30:.2f} GiB (floor {args.floor_gib:g} GiB)", failures)
    boards = [s["board"] for s in samples if s["board"] == s["board"]]
    verdict(len(boards) == len(samples), f"leaderboard answered {len(boards)} of {len(samples)} probes; median "
            f"{sorted(boards)[len(boards) // 2] * 1000 if boards else float('nan'):.0f} ms, worst "
            f"{max(boards, default=float('nan')) * 1000:.0f} ms", failures)  # fmt: skip
    codes = dict(sorted(flood.codes.items()))
    bad = {k: v for k, v in codes.items() if not re.search(r" (200|429|503)$", k)}
    verdict(not bad, f"web flood ({args.clients} clients): {sum(codes.values())} requests, "
            f"{flood.bytes / 2**20:.0f} MiB read, {codes}", failures)  # fmt: skip
    tracebacks = err.count("Traceback")
    verdict(tracebacks == 0, f"serve's stderr: {len(err.splitlines())} lines, {tracebacks} tracebacks", failures)
    with Ladder.open(lad) as ladder:
        store, config = ladder.store, ladder.config
        game_output = _size(config.limits.game_output)
        max_unpacked = _size(config.submissions.max_unpacked)
        games, blocks = store.game_count(), store.block_count()
        versions = store.versions()
        for v in versions:
            kinds = store.fault_kinds(v.id)
            line = (f"{v.key:<18} {v.state.value:<9} blocks {v.blocks:4d} games {v.games:5d} forfeits "
                    f"{v.forfeits:4d} faults {dict(sorted(kinds.items())) or '{}'}"
                    + (f"; reason: {v.reason[:150]}" if v.reason else ""))  # fmt: skip
            if v.entrant in {b.removesuffix("_bot") for b in HONEST}:
                verdict(not kinds and v.state == VersionState.RANKED, f"honest {line}", failures)
            else:
                print(f"info  hostile {line}")
                details: dict[str, Counter[str]] = {}
                for f in store.faults(v.id, limit=1000):
                    details.setdefault(f[2], Counter())[re.sub(r"\d+", "N", f[5])[:150]] += 1
                for kind, seen in sorted(details.items()):
                    for detail, n in seen.most_common(2):
                        print(f"        {kind} x{n}: {detail}")
        folders = {v.key: du(ladder.version_folder(v)) for v in versions}
        playing = {v.key for v in versions if v.blocks > 0}
        top = max(config.games.table_sizes)
    logs = [p for p in (lad / "games").rglob("*") if p.is_file()]
    biggest = max(logs, key=lambda p: p.stat().st_size, default=None)
    log_bytes = sum(p.stat().st_size for p in logs)
    disk = du(lad)
    verdict(games > 0, f"{blocks} blocks, {games} games played in {samples[-1]['t']:.0f} s", failures)
    peak = max(s["disk"] for s in samples)
    print(f"info  ladder folder {disk / 2**20:.1f} MiB at the end (peak {peak / 2**20:.1f} MiB); "
          f"{disk / max(1, games) / 1024:.1f} KiB a game; game logs {log_bytes / 2**20:.1f} MiB "
          f"({log_bytes / max(1, games) / 1024:.1f} KiB a game)")  # fmt: skip
    cap = top * game_output + LOG_SLACK
    size = biggest.stat().st_size if biggest else 0
    name = biggest.name if biggest else "-"
    verdict(size <= cap, f"largest game log {size / 2**20:.2f} MiB ({name}); cap {top} seats x game_output "
            f"{game_output / 2**20:g} MiB + 1 MiB = {cap / 2**20:g} MiB", failures)  # fmt: skip
    stderrs = [p for sub in ("bots", "gate") for p in (lad / sub).rglob("*.log") if p.is_file()]
    worst = max((p.stat().st_size for p in stderrs), default=0)
    verdict(worst <= STDERR_CAP + 64 * 1024, f"largest stderr file {worst / 2**20:.2f} MiB of {len(stderrs)} "
            f"(cap 1 MiB a file)", failures)  # fmt: skip
    played = {k: v for k, v in folders.items() if k in playing}
    fat = max(played.items(), key=lambda kv: kv[1])
    verdict(fat[1] <= max_unpacked, f"largest folder of a version that played: {fat[0]} {fat[1] / 2**20:.1f} MiB "
            f"(max_unpacked {max_unpacked / 2**20:g} MiB)", failures)  # fmt: skip
    for key, size in sorted(folders.items()):
        if key not in playing and size > max_unpacked:
            # a failed build's leftovers: docs/ladder.md caps what a build leaves (it fails the gate), not what stays
            verdict(False, f"failed version {key}'s folder holds {size / 2**20:.1f} MiB, {size / max_unpacked:.1f} x "
                    f"max_unpacked: what its build wrote before it was stopped stays on disk", failures)  # fmt: skip
    return failures


def _size(value: int | str) -> int:
    from referee.ladder.config import parse_size

    return value if isinstance(value, int) else parse_size(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--minutes", type=float, default=10.0, help="how long serve runs (default 10)")
    parser.add_argument("--clients", type=int, default=6, help="web flood threads, one loopback address each")
    parser.add_argument("--floor-gib", type=float, default=2.0, help="MemAvailable must stay above this")
    parser.add_argument("--hostile-after", type=float, default=0.3,
                        help="share of the run after which the sleepers turn hostile (default 0.3)")  # fmt: skip
    parser.add_argument("--verbose", action="store_true", help="print every line serve writes")
    parser.add_argument("--keep", action="store_true", help="keep the ladder folder (printed)")
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="bench-hostile-field-"))
    try:
        failures = soak(args, root)
    finally:
        if not args.keep:
            discard(root)  # the versions' copies are read-only
    print(f"\n{'all checks passed' if not failures else f'{len(failures)} FAILED'}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
