"""Web benchmark: the ladder's pages and API timed at the server, on a store of 500,000 simulated games.

Not a test. Builds (or reuses, ``--store DIR``) a ladder with ``--entrants`` entrants and ``--games`` games in
duplicate blocks at tables of 3 and 4 (every rotation of a deal), committed block by block through the ladder's
own store, with live ratings and a few faults; a handful of games carry real game logs (played by ``referee play``)
for the replay. Then serves the app in-process (FastAPI's test client on trio, no network) and times each page
``--repeat`` times: median and 95th percentile, against the target of 100 ms per page (issue 23). The export is
timed whole (every game as a JSON line). The leaderboard's recomputation (done off the request path, at most once
per poll period) is timed apart.

Run: ``python bench/bench_web.py`` (first run builds the store: several minutes; ``--help`` for options).
"""

from __future__ import annotations

import argparse
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.ladder import BlockKind, Ladder, VersionState  # noqa: E402
from referee.ladder.model import SeatRecord  # noqa: E402
from referee.ladder.standing import block_outcome_shares  # noqa: E402
from referee.ladder.store import GameRow  # noqa: E402
from referee.runner.faults import Fault  # noqa: E402

TARGET_MS = 100.0


def real_logs(folder: Path) -> dict[int, list[str]]:
    """Game logs of real games at tables of 3 and 4 (sample bots), relative to the ladder folder's games/."""
    folder.mkdir(parents=True, exist_ok=True)
    bots = [str(ROOT / "sample_bots" / n) for n in ("greedy.py", "heuristic.py", "random_bot.py", "greedy.py")]
    out: dict[int, list[str]] = {3: [], 4: []}
    for n in (3, 4):
        log = folder / f"real{n}.jsonl"
        if not log.exists():
            subprocess.run(
                [sys.executable, "-m", "referee", "play", *bots[:n], "--seed", str(n), "--sandbox", "none",
                 "--log", str(log)],
                cwd=ROOT, check=True, capture_output=True,
            )  # fmt: skip
        out[n].append(f"games/{log.name}")
    return out


def build(root: Path, entrants: int, games: int, seed: int = 1) -> None:
    """A ladder at ``root`` with ``games`` simulated games (see the module docstring)."""
    rng = random.Random(seed)
    ladder, admin = Ladder.init(root)
    (root / "admin-token").write_text(admin)
    store = ladder.store
    logs = real_logs(root / "games")
    strength, vids = {}, []
    bot = (ROOT / "sample_bots" / "greedy.py").read_bytes()
    source = root / "incoming-src"
    source.mkdir()
    for i in range(entrants):
        name = f"bot{i:03d}"
        ladder.add_entrant(name)
        path = source / f"b{i}.py"
        path.write_bytes(bot + f"\n# {i}\n".encode())
        v = ladder.submit(name, path)
        store.start_gate(v.id)
        store.finish_gate(v.id, passed=True, reasons=[], report=None, build_log=None)
        store.set_version_state(v.id, VersionState.RANKED, None)
        strength[v.id] = rng.gauss(0, 1)
        vids.append(v.id)
    epoch = store.open_epoch("hmac-sha256-v1", "0" * 64, "1" * 64)
    mu = {v: 25.0 for v in vids}
    played = 0
    t0 = time.perf_counter()
    while played < games:
        n = rng.choice((3, 4))
        table = rng.sample(vids, n)
        block = store.create_block(epoch.id, BlockKind.RANKED, table, lambda b: 10_000 + b)
        base = [rng.gauss(0, 5) for _ in range(n)]  # the deal's luck per seat position
        rows, totals, forfeits = [], [0] * n, [0] * n
        for rotation in range(n):
            seats = tuple(table[(i + rotation) % n] for i in range(n))
            scores = [round(20 + base[s] - 3 * strength[v] + rng.gauss(0, 4)) for s, v in enumerate(seats)]
            faulted = [rng.random() < 0.01 for _ in seats]
            order = sorted(range(n), key=lambda s: (faulted[s], scores[s]))
            ranks = [0] * n
            for place, s in enumerate(order):
                ranks[s] = place + 1
            faults = tuple(Fault(s, "timeout", 1, 3, "no reply within 1.0 s") for s in range(n) if faulted[s])
            rows.append(
                GameRow(rotation, seats, tuple(scores), tuple(ranks), tuple(faulted), faults,
                        rng.choice(logs[n]), 0.05)
            )  # fmt: skip
            for s, v in enumerate(seats):
                i = table.index(v)
                totals[i] += scores[s]
                forfeits[i] += int(faulted[s])
        shares = block_outcome_shares(totals, forfeits, n)
        results = [SeatRecord(v, "", totals[i], n, forfeits[i], *shares[i]) for i, v in enumerate(table)]
        for i, v in enumerate(table):
            mu[v] += 0.5 * (shares[i][0] - 0.5)
        store.commit_block(block.id, rows, results, {v: (mu[v], 2.0) for v in table})
        played += n
        if block.id % 5000 == 0:
            print(f"  {played:,} games stored ({time.perf_counter() - t0:.0f} s)", flush=True)
    ladder.close()


def timed(client, url: str, repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        t = time.perf_counter()
        r = client.get(url)
        out.append((time.perf_counter() - t) * 1000)
        assert r.status_code == 200, (url, r.status_code, r.text[:200])
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, help="ladder folder to build or reuse [default: a temporary one]")
    parser.add_argument("--games", type=int, default=500_000)
    parser.add_argument("--entrants", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    root = args.store or Path(tempfile.mkdtemp(prefix="bench-web-")) / "ladder"
    if not (root / "ladder.sqlite").exists():
        print(f"building {root}: {args.entrants} entrants, {args.games:,} games")
        t = time.perf_counter()
        build(root, args.entrants, args.games)
        print(f"built in {time.perf_counter() - t:.0f} s")

    from fastapi.testclient import TestClient

    from referee.web import LadderAccess, WebSettings, create_app

    ladder = Ladder.open(root)
    games = ladder.store.game_count()
    size = (root / "ladder.sqlite").stat().st_size
    print(f"store: {games:,} games, {ladder.store.block_count():,} blocks, {size / 2**20:.0f} MiB")
    t = time.perf_counter()
    ladder.leaderboard()
    board_ms = (time.perf_counter() - t) * 1000
    name = "bot007"
    newest = ladder.blocks(limit=1)[0].id
    game = f"{newest}.0"
    app = create_app(LadderAccess(ladder), WebSettings(rate=10**6))
    pages = [
        ("leaderboard page", "/"),
        ("leaderboard API", "/api/leaderboard"),
        ("entrant page", f"/entrants/{quote(name)}"),
        ("entrant API", f"/api/entrants/{quote(name)}"),
        ("version page", f"/entrants/{quote(name)}/versions/1"),
        ("blocks page", "/blocks"),
        ("block page", f"/blocks/{newest}"),
        ("game page", f"/games/{game}"),
        ("game replay API", f"/api/games/{game}/replay"),
        ("game log API", f"/api/games/{game}/log"),
        ("epochs page", "/epochs"),
    ]
    print(f"leaderboard recomputed (off the request path): {board_ms:.0f} ms")
    print(f"{'page':<20}{'median ms':>10}{'p95 ms':>9}  target {TARGET_MS:.0f} ms")
    worst = 0.0
    with TestClient(app, backend="trio") as client:
        client.get("/")
        for label, url in pages:
            times = sorted(timed(client, url, args.repeat))
            median, p95 = statistics.median(times), times[int(0.95 * (len(times) - 1))]
            worst = max(worst, p95)
            print(f"{label:<20}{median:>10.1f}{p95:>9.1f}  {'met' if p95 < TARGET_MS else 'NOT met'}")
        t = time.perf_counter()
        r = client.get("/api/export.jsonl")
        export_s = time.perf_counter() - t
        lines = r.text.count("\n")
    print(
        f"export: {lines:,} games in {export_s:.1f} s ({lines / export_s:,.0f} games/s, "
        f"{len(r.content) / 2**20:.0f} MiB)"
    )
    print(
        f"every page under {TARGET_MS:.0f} ms (p95): {'met' if worst < TARGET_MS else 'NOT met'} "
        f"(worst p95 {worst:.1f} ms)"
    )
    ladder.close()


if __name__ == "__main__":
    main()
