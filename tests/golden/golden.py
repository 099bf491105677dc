"""A seeded tournament whose stored results and game logs must not change when the code is only reorganised.

``snapshot(folder)`` reads a finished results folder as plain data: every row of the results database and every
line of every game log, minus what varies from run to run (timings, clock times, the temporary folder's path).
The ``send`` events of the logs hold the exact bytes each bot was sent, kept as text (not parsed), so equal
snapshots mean equal wire bytes.

The fixture ``tournament.json.gz`` beside this file was written by the referee at commit 8afb408 (before the
records, store and faults refactoring): ``python tests/golden/golden.py --write`` with that checkout first on
``PYTHONPATH``, e.g. ``git worktree add /tmp/old 8afb408 && PYTHONPATH=/tmp/old python tests/golden/golden.py
--write``. The test ``test_golden.py`` runs the same tournament with the code under test and compares. Written
again (``python tests/golden/golden.py --write``) when the bots began to be sent opaque game ids and each pass over
the deals its own order from the secret (issue 25): the wire bytes' ``game`` field and the order of the rows changed,
nothing else. Written again when the seat orders of the blocks changed on purpose (issue 24: a table's
cyclic seat order drawn per deal from the seed and the sorted names, not the listing order): the seats of the
games changed, nothing else. Written again when the gauntlet's ``--early-stop`` option came (issue 24): the stored
parameters gained ``early_stop`` (null), nothing else. Written again when each seat's ``game_start`` began to carry
its ``rng_seed`` (issue 24, common random numbers): those lines gained the field, nothing else. Written again when
``rng_seed`` came to be keyed with the deal's seed, not the deal alone (issue 32): the 80 ``rng_seed`` values
changed, nothing else.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
FIXTURE = HERE / "tournament.json.gz"
BOTS = HERE.parent / "bots"
SAMPLE_BOTS = HERE.parent.parent / "sample_bots"

#: The entrants: two honest strategies and three that fault in different ways (an illegal move, a line that is
#: not JSON, a field of the wrong type), so forfeits, fault records and referee discards are all in the logs.
MANIFEST = """
[[bot]]
name = "honest"
command = "python3 honest.py"

[[bot]]
name = "greedy"
command = "python3 greedy.py"

[[bot]]
name = "illegal"
command = "python3 illegal.py"
env = { ILLEGAL = "too_many" }

[[bot]]
name = "badjson"
command = "python3 invalid_json.py"

[[bot]]
name = "badfields"
command = "python3 bad_fields.py"
"""

#: Per-event fields that measure time; they differ between any two runs.
_TIMINGS = {"t", "ms", "cpu_ms"}
#: Database columns (table, column) that hold clock times or durations.
_VARYING = {("games", "duration"), ("games", "finished_at")}
_VARYING_META = {"created_at", "revealed_at", "chain_head"}  # the chain's links hash the logs, timings and all
#: Tables the referee at 8afb408 did not write: ``replays`` (each game's replay for the report, recorded as it was
#: played; ``test_golden.py`` holds every stored replay to its game log's), ``chain`` (the hash chain: its digests
#: hash the logs, whose timings vary from run to run; ``tests/tournament/test_chain.py`` tests it).
_NEWER_TABLES = {"replays", "chain"}
#: Tournament parameters the referee at 8afb408 did not have, at the default they take in this tournament (a race
#: option stored with every tournament's parameters): left out of the comparison.
_NEWER_DEFAULTS = {"tie_margin": 0.0}

#: The deal secret: fixed, so the deals (and so every game) are the same in every run.
SECRET = "5eed" * 16


def make_bots(folder: Path) -> Path:
    """Copies of the entrants' programs and their manifest in ``folder``; the manifest's path."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("_base.py", "honest.py", "illegal.py", "invalid_json.py", "bad_fields.py"):
        shutil.copy(BOTS / name, folder / name)
    shutil.copy(SAMPLE_BOTS / "greedy.py", folder / "greedy.py")
    manifest = folder / "bots.toml"
    manifest.write_text(MANIFEST, encoding="utf-8")
    return manifest


def run_tournament(work: Path, env: dict[str, str] | None = None) -> Path:
    """Play the seeded tournament under ``work`` with ``python -m referee`` (the ``referee`` importable in ``env``);
    the results folder."""
    manifest = make_bots(work / "bots")
    secret = work / "secret.hex"
    secret.write_text(SECRET + "\n", encoding="utf-8")
    out = work / "results"
    command = [
        sys.executable, "-m", "referee", "run", "--manifest", str(manifest), "--table-size", "4", "--games", "1",
        "--seed", "23", "--deal-secret", str(secret), "--jobs", "1", "--sandbox", "none", "--out", str(out),
        "--move-time", "5", "--startup-time", "20",
    ]  # fmt: skip
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600, cwd=work)
    if done.returncode != 0:
        raise RuntimeError(f"referee run failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return out


def _content(path: Path) -> bytes:
    """A game log's content, decompressed (with the referee under test, or plain text with an older one)."""
    try:
        from referee.runner.gamelog import log_content
    except ImportError:
        return path.read_bytes()
    return log_content(path)


def _plain(name: str) -> str:
    """A game log's name as the referee at 8afb408 wrote it (``.jsonl``: logs are written compressed now,
    ``.jsonl.zst``, with the same content)."""
    return name.removesuffix(".zst")


def _clean(value: Any, root: str) -> Any:
    if isinstance(value, str):
        return value.replace(root, "<DIR>")
    if isinstance(value, list):
        return [_clean(v, root) for v in value]
    if isinstance(value, dict):
        return {_clean(k, root): _clean(v, root) for k, v in value.items()}
    return value


def snapshot(results: Path, root: Path) -> dict[str, Any]:
    """The results folder as data: database rows and game-log events, without timings or ``root``'s path."""
    top = str(root.resolve())
    db = sqlite3.connect(f"file:{results / 'results.sqlite'}?mode=ro", uri=True)
    try:
        tables: dict[str, Any] = {}
        names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")]
        for table in names:
            if table in _NEWER_TABLES:
                continue
            cursor = db.execute(f"SELECT * FROM {table} ORDER BY rowid")
            columns = [c[0] for c in cursor.description]
            rows = []
            for row in cursor:
                record = {c: v for c, v in zip(columns, row, strict=True) if (table, c) not in _VARYING}
                if table == "meta" and record["key"] in _VARYING_META:
                    continue
                if table == "meta" and record["key"] in ("params", "compare"):
                    record["value"] = json.loads(record["value"])
                    if record["key"] == "params":
                        for key, default in _NEWER_DEFAULTS.items():
                            if record["value"].get(key) == default:
                                del record["value"][key]
                if table == "games" and record.get("log_path"):
                    record["log_path"] = _plain(record["log_path"])
                rows.append(_clean(record, top))
            tables[table] = rows
    finally:
        db.close()
    logs: dict[str, Any] = {}
    for path in sorted((results / "games").glob("*.jsonl*")):
        # The deal goes to every seat at once, so the order of send/recv lines across seats varies from run to run;
        # each seat's own exchange is in a fixed order, and so is every other event.
        events: list[Any] = []
        wire: dict[str, list[Any]] = {}
        for line in _content(path).decode("utf-8").split("\n"):
            if line:
                event = _clean({k: v for k, v in json.loads(line).items() if k not in _TIMINGS}, top)
                if event["event"] == "send":
                    # The message exactly as its bytes went to the bot (the writer copies them into the line).
                    event["msg"] = line[line.index(',"msg":') + len(',"msg":') : -1]
                if event["event"] in ("send", "recv"):
                    wire.setdefault(str(event["seat"]), []).append(event)
                else:
                    events.append(event)
        logs[_plain(path.name)] = {"events": events, "wire": wire}
    return {"tables": tables, "logs": logs}


def load_fixture() -> dict[str, Any]:
    with gzip.open(FIXTURE, "rt", encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--write", action="store_true", help=f"write the fixture {FIXTURE.name}")
    parser.add_argument("--work", type=Path, default=Path("/tmp/referee-golden"), help="scratch folder")
    args = parser.parse_args()
    if args.work.exists():
        shutil.rmtree(args.work)
    args.work.mkdir(parents=True)
    results = run_tournament(args.work, env=dict(os.environ))
    data = snapshot(results, args.work)
    if args.write:
        with gzip.GzipFile(FIXTURE, "wb", mtime=0) as f:
            f.write(json.dumps(data, sort_keys=True, indent=0).encode())
        print(f"wrote {FIXTURE} ({len(data['logs'])} game logs)")
    else:
        same = data == load_fixture()
        print("identical to the fixture" if same else "DIFFERENT from the fixture")
        sys.exit(0 if same else 1)


if __name__ == "__main__":
    main()
