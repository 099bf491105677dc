"""``referee verify RESULTS``: a whole results folder (or many logs) in one process, ``--jobs`` workers, one summary
line, and a non-zero exit naming each failure; compact and absent logs (``--logs``) are said so, not failures.

The results folders are real tournaments (the real runner, engine and store) of in-process scripted entrants."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import zstandard
from click.testing import CliRunner

from referee.cli import main
from referee.runner.gamelog import log_content
from referee.runner.logfile import LogLevel
from referee.tournament.log_check import check_logs
from tests.tournament.scripted_runs import scripted_tournament


def _tournament(folder: Path, logs: LogLevel = LogLevel.FULL) -> Path:
    """A round robin of three scripted entrants at tables of 2, two deals a table: 12 games."""
    return scripted_tournament(folder, ("a", "b", "c"), logs=logs, seed=3, table_size=2, repeats=2)


def _verify(*args: object) -> Any:
    return CliRunner().invoke(main, ["verify", *map(str, args)])


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _tournament(tmp_path_factory.mktemp("verify") / "results")


def test_a_results_folder_is_verified_in_one_command_with_one_summary_line(results: Path) -> None:
    for jobs in ("1", "2"):
        done = _verify(results, "--jobs", jobs)
        assert done.exit_code == 0, done.output
        assert done.output.splitlines() == [
            "verified 12 game logs: every move, forfeit and score agrees with the engine"
        ]
    listed = _verify(*sorted((results / "games").glob("*.jsonl.zst")))  # many logs named one by one (a glob)
    assert listed.exit_code == 0 and listed.output.startswith("verified 12 game logs")
    as_json = json.loads(_verify(results, "--json").output)
    assert as_json == {"ok": True, "checked": 12, "compact": 0, "unlogged": 0, "failures": []}


def test_each_failure_is_named_and_the_exit_is_one(results: Path, tmp_path: Path) -> None:
    broken = tmp_path / "results"
    broken.mkdir()
    for name in ("results.sqlite", "games"):
        source = results / name
        if source.is_dir():
            (broken / name).mkdir()
            for log in source.iterdir():
                (broken / name / log.name).write_bytes(log.read_bytes())
        else:
            with sqlite3.connect(source) as db, sqlite3.connect(broken / name) as copy:
                db.backup(copy)
    games = broken / "games"
    (games / "g000002.jsonl.zst").unlink()  # a stored game without its log
    forged = log_content(games / "g000005.jsonl.zst").decode().splitlines()
    result = json.loads(forged[-1])
    result["scores"] = result["scores"][::-1] if result["scores"][0] != result["scores"][1] else [0, 99]
    (games / "g000005.jsonl.zst").write_bytes(
        zstandard.compress(("\n".join([*forged[:-1], json.dumps(result)]) + "\n").encode())
    )
    with sqlite3.connect(broken / "results.sqlite") as db:  # a store whose score differs from its game's log
        db.execute("UPDATE seats SET score = score + 7 WHERE game_id = 'g000009' AND seat = 0")
    done = _verify(broken, "-j", "2")
    assert done.exit_code == 1
    lines = done.output.splitlines()
    assert lines[-1] == "3 of 12 game logs failed verification (each named above)"
    assert len(lines) == 4
    assert "g000002.jsonl.zst" in lines[0] and "cannot read game log" in lines[0]
    assert "g000005.jsonl.zst:" in lines[1] and "DISAGREES: scores: the log says" in lines[1]
    assert "g000009.jsonl.zst: DISAGREES: the results store holds scores" in lines[2]


def test_compact_and_absent_logs_are_said_so(tmp_path: Path) -> None:
    compact = _tournament(tmp_path / "compact", LogLevel.COMPACT)
    check = check_logs([compact])
    assert check.ok and check.checked == check.compact == 12
    assert "12 compact: moves checked against the engine" in check.summary()
    none = _tournament(tmp_path / "none", LogLevel.NONE)
    assert not (none / "games").exists() or not list((none / "games").iterdir())
    done = _verify(none)
    assert (
        done.exit_code == 0
        and "verified 0 game logs" in done.output
        and "12 stored game(s) kept no log" in (done.output)
    )


def test_what_is_not_a_log_folder_is_one_line(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    for target in (empty, tmp_path / "missing"):
        done = _verify(target, target)
        assert done.exit_code == 1 and len(done.output.splitlines()) == 1, done.output
        assert str(target) in done.output
