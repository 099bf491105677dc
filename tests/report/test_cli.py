"""``referee report`` from the command line: a report for a finished, a partial or an empty tournament, and one
clear line (never a traceback) for a folder without one. The report never writes the database."""

from __future__ import annotations

import hashlib
import json
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import zstandard

from referee.report import unpack_blob
from referee.runner.gamelog import log_content
from referee.tournament import DealSecret, EntrantInfo, ResultsStore, TournamentParams
from tests.report.conftest import RANDOM_BOT, ROOT, referee, write_manifest
from tests.report.dbread import query


def one_line_error(result: subprocess.CompletedProcess[str], code: int, *needles: str) -> str:
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("referee report: error: ")
    assert "Traceback" not in result.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def page_index(html: str) -> Any:
    tag = '<script type="text/plain" id="report-index">'
    start = html.index(tag) + len(tag)
    return unpack_blob(html[start : html.index("</script>", start)])


def test_run_writes_the_report(tournament: Path) -> None:
    html = (tournament / "report.html").read_text(encoding="utf-8")
    games = query(tournament, "SELECT game_id FROM games ORDER BY ordinal")
    assert [g["label"] for g in page_index(html)["games"]] == [g for (g,) in games]
    assert 'id="partial"' not in html


def test_report_to_a_chosen_file_leaves_the_database_alone(tournament: Path, tmp_path: Path) -> None:
    before = digest(tournament / "results.sqlite")
    out = tmp_path / "r.html"
    done = referee("report", tournament, "-o", out)
    assert done.returncode == 0, done.stderr
    (line,) = done.stdout.strip().splitlines()
    assert line.startswith(f"Report written to {out} (") and "games" in line and "partial" not in line
    assert out.stat().st_size > 10_000
    assert digest(tournament / "results.sqlite") == before
    html = out.read_text(encoding="utf-8")
    # self-contained: nothing to fetch
    for needle in ("http://", "https://", "<link", " src="):
        assert needle not in html


def test_a_partial_tournament_is_reported_as_partial(tournament: Path, copy_of: Any) -> None:
    folder = copy_of(tournament)
    db = sqlite3.connect(folder / "results.sqlite")
    with db:
        keep = "SELECT game_id FROM games ORDER BY ordinal LIMIT 5"
        for table in ("faults", "seats", "games"):
            db.execute(f"DELETE FROM {table} WHERE game_id NOT IN ({keep})")
    db.close()
    total = query(tournament, "SELECT count(*) FROM games")[0][0]
    done = referee("report", folder)
    assert done.returncode == 0, done.stderr
    assert f"partial: 5 of {total} games stored" in done.stdout
    html = (folder / "report.html").read_text(encoding="utf-8")
    assert 'id="partial"' in html and f"5 of {total} games" in html
    assert len(page_index(html)["games"]) == 5


def test_a_tournament_with_no_game_yet(tmp_path: Path) -> None:
    folder = tmp_path / "t"
    params = TournamentParams(
        entrants=(EntrantInfo("a", ("a.py",)), EntrantInfo("b", ("b.py",))),
        table_size=2,
        repeats=3,
        seed=1,
        ruleset={},
        move_time=1.0,
        startup_time=10.0,
        time_bank=None,
        sandbox="none",
    )
    with ResultsStore(folder) as store:
        store.initialise(params, DealSecret.new())
    done = referee("report", folder)
    assert done.returncode == 0, done.stderr
    assert "0 games" in done.stdout and "partial: no game has finished yet" in done.stdout
    html = (folder / "report.html").read_text(encoding="utf-8")
    assert "no game has finished yet" in html


@pytest.mark.parametrize("kind", ["missing", "empty-folder", "empty-database", "not-a-database"])
def test_no_tournament_is_one_line(tmp_path: Path, kind: str) -> None:
    folder = tmp_path / "t"
    if kind != "missing":
        folder.mkdir()
    if kind == "empty-database":
        ResultsStore(folder).close()
    if kind == "not-a-database":
        (folder / "results.sqlite").write_text("hello, I am not SQLite " * 100)
    done = referee("report", folder)
    if kind == "missing":
        one_line_error(done, 2, str(folder), "no such folder")
    elif kind == "not-a-database":
        one_line_error(done, 1, "cannot read the results database", "results.sqlite")
    else:
        one_line_error(done, 2, str(folder), "holds no tournament")
    assert not (folder / "report.html").exists()


def test_an_output_in_a_missing_folder_is_one_line(tournament: Path, tmp_path: Path) -> None:
    one_line_error(referee("report", tournament, "-o", tmp_path / "nope" / "r.html"), 1, "does not exist")


def test_games_without_a_usable_log_are_listed_without_replay(tournament: Path, copy_of: Any) -> None:
    """A folder of an older referee (no stored replays): the report re-runs the game logs, and a game whose log is
    missing or does not tell the stored game keeps its result with a note."""
    folder = copy_of(tournament)
    db = sqlite3.connect(folder / "results.sqlite")
    with db:
        db.execute("DROP TABLE replays")
    db.close()
    logs = query(folder, "SELECT game_id, log_path FROM games ORDER BY ordinal LIMIT 2")
    (folder / logs[0][1]).unlink()
    path = folder / logs[1][1]
    lines = log_content(path).decode().splitlines()
    i = next(i for i, line in enumerate(lines) if line.startswith('{"event":"action"') and '"type":"pass"' in line)
    lines[i] = lines[i].replace('"type":"pass"', '"type":"drop"', 1)  # a log that no longer tells the stored game
    path.write_bytes(zstandard.compress(("\n".join(lines) + "\n").encode()))
    done = referee("report", folder)
    assert done.returncode == 0, done.stderr
    games = {g["label"]: g for g in page_index((folder / "report.html").read_text(encoding="utf-8"))["games"]}
    missing, changed = games[logs[0][0]], games[logs[1][0]]
    assert missing["replay"] is None and "cannot read game log" in missing["note"]
    assert changed["replay"] is None and "the game log does not" in changed["note"]
    assert sum(1 for g in games.values() if g["replay"] is not None) == len(games) - 2
    # results are still listed for both
    assert missing["scores"] and changed["scores"]


def test_stored_replays_need_no_game_log_and_match_the_logs(tournament: Path, copy_of: Any) -> None:
    """``referee run`` stores each game's replay as it is played: the report reads those (the same as re-running
    each game log through the engine) and needs no game log; a game stored without one falls back to its log."""
    from referee.report import encode_replay, read_game_log

    rows = query(tournament, "SELECT game_id, log_path FROM games ORDER BY ordinal")
    stored = dict(query(tournament, "SELECT game_id, replay FROM replays"))
    assert set(stored) == {g for g, _ in rows}
    for game_id, log_path in rows:
        logged = read_game_log(tournament / log_path)
        replay = encode_replay(len(logged.names), logged.ruleset, logged.steps, deal=logged.deal)
        assert json.loads(stored[game_id]) == replay, game_id
    folder = copy_of(tournament)
    first = rows[0][0]
    db = sqlite3.connect(folder / "results.sqlite")
    with db:
        db.execute("DELETE FROM replays WHERE game_id = ?", (first,))
    db.close()
    for _, log_path in rows[1:]:
        (folder / log_path).unlink()
    done = referee("report", folder)
    assert done.returncode == 0, done.stderr
    games = page_index((folder / "report.html").read_text(encoding="utf-8"))["games"]
    assert all(g["replay"] is not None for g in games)  # the first from its log, the rest from the database
    before = page_index((tournament / "report.html").read_text(encoding="utf-8"))["games"]
    assert games == before


def test_a_running_tournament_is_reported_as_partial(tmp_path: Path) -> None:
    """While ``referee run`` is writing the database, a report reads a consistent snapshot and says it is partial."""
    bots = write_manifest(
        tmp_path,
        [
            (None, ROOT / "sample_bots" / "greedy.py", ""),
            ("random", RANDOM_BOT, ""),
            ("slow", RANDOM_BOT, 'MISBEHAVE = "hang", MISBEHAVE_AT = "2"'),
        ],
    )
    out = tmp_path / "t"
    args = ["run", "--manifest", bots, "-k", "2", "--games", "3", "--jobs", "1", "--move-time", "1", "--out", out]
    run = subprocess.Popen(
        [sys.executable, "-m", "referee", *map(str, args)], cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if (out / "results.sqlite").exists() and query_count(out) >= 1:
                break
            time.sleep(0.2)
        done = referee("report", out, "-o", tmp_path / "live.html")
        assert run.poll() is None, "the tournament ended before the report was made"
        assert done.returncode == 0, done.stderr
        (line,) = done.stdout.strip().splitlines()
        assert "partial:" in line and "of 18 games stored" in line
        html = (tmp_path / "live.html").read_text(encoding="utf-8")
        assert 'id="partial"' in html
    finally:
        run.send_signal(signal.SIGINT)
        run.wait(timeout=60)


def query_count(folder: Path) -> int:
    try:
        return int(query(folder, "SELECT count(*) FROM games")[0][0])
    except sqlite3.Error:
        return 0


def test_the_standings_table_explains_fractional_wins(tournament: Path) -> None:
    from html import escape

    from referee.tournament import WINS_NOTE

    html = (tournament / "report.html").read_text(encoding="utf-8")
    assert f'title="{escape(WINS_NOTE)}">wins</th>' in html  # the column header's tooltip
    assert 'id="wins-note"' in html and escape(WINS_NOTE[1:]) in html  # and the note above the table
