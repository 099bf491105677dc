"""Reorganising the code changes nothing a user sees: a seeded tournament stores the same rows and writes the same
game logs (so sends the same bytes) as the referee at commit 8afb408, and logs written at 8afb408 still read."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from referee.report.gamelog import read_game_log
from referee.report.replay import encode_replay
from referee.runner import read_log, render_log, verify_log

from .golden import load_fixture, run_tournament, snapshot

LOGS = Path(__file__).parent / "logs"


def _first_difference(path: str, got: Any, want: Any) -> str | None:
    if type(got) is not type(want):
        return f"{path}: {got!r} != {want!r}"
    if isinstance(want, dict):
        for key in sorted(set(got) | set(want), key=str):
            if key not in got or key not in want:
                return f"{path}.{key}: only in {'the fixture' if key in want else 'this run'}"
            found = _first_difference(f"{path}.{key}", got[key], want[key])
            if found:
                return found
        return None
    if isinstance(want, list):
        for i, (g, w) in enumerate(zip(got, want, strict=False)):
            found = _first_difference(f"{path}[{i}]", g, w)
            if found:
                return found
        return None if len(got) == len(want) else f"{path}: {len(got)} items, the fixture {len(want)}"
    return None if got == want else f"{path}: {got!r} != {want!r}"


def _without_interpreter(data: Any) -> Any:
    """``data`` with the Python that ran the bots (the first word of the first entrant's command, a path that
    differs from machine to machine) written ``<PYTHON>`` everywhere."""
    python = json.loads(data["tables"]["entrants"][0]["argv"])[0]
    return json.loads(json.dumps(data).replace(json.dumps(python)[1:-1], "<PYTHON>"))


def test_seeded_tournament_stores_and_sends_what_8afb408_did(tmp_path: Path) -> None:
    results = run_tournament(tmp_path, env=dict(os.environ))
    got = _without_interpreter(snapshot(results, tmp_path))
    want = _without_interpreter(load_fixture())
    assert len(want["logs"]) == 20 and any(row["kind"] == "illegal_move" for row in want["tables"]["faults"])
    assert _first_difference("", got, want) is None
    # the replays stored for the report, recorded as the games were played, are those of the game logs
    db = sqlite3.connect(f"file:{results / 'results.sqlite'}?mode=ro", uri=True)
    try:
        stored = dict(db.execute("SELECT log_path, replay FROM games JOIN replays USING (game_id)").fetchall())
    finally:
        db.close()
    assert len(stored) == len(want["logs"])
    for log_path, replay in stored.items():
        logged = read_game_log(results / log_path)
        assert json.loads(replay) == encode_replay(len(logged.names), logged.ruleset, logged.steps, deal=logged.deal)


@pytest.mark.parametrize("name", ["play_a", "play_b"])
def test_logs_of_8afb408_replay_verify_and_load(name: str) -> None:
    path = LOGS / f"{name}.jsonl"
    events = read_log(path)
    assert "\n".join(render_log(events)) + "\n" == (LOGS / f"{name}.replay.txt").read_text(encoding="utf-8")
    verdict = verify_log(events)
    assert verdict.ok, verdict.message
    assert verdict.faults == 2
    logged = read_game_log(path)
    replay = encode_replay(len(logged.names), logged.ruleset, logged.steps, deal=logged.deal)
    assert tuple(replay["s"]) == logged.scores == tuple(events[-1]["scores"])
