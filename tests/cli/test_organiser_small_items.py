"""Issue 27, item 7: what an organiser trips over. A finished run leaves no lock file and no SQLite side files in
its folder; ``run --help`` tells of the sample bots' ``--noise``; two versions of one bot checked with different
arguments are told apart; README's user install is the runtime alone."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

from click.testing import CliRunner

from referee.cli import main

ROOT = Path(__file__).resolve().parents[2]
HONEST = ROOT / "tests" / "bots" / "honest.py"


def test_a_finished_run_leaves_no_lock_or_sqlite_side_files(tmp_path: Path) -> None:
    out = tmp_path / "t"
    done = subprocess.run(
        [sys.executable, "-m", "referee", "run", str(HONEST), str(HONEST), "--sandbox", "none", "--out", str(out)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    left = sorted(p.name for p in out.iterdir())
    assert ".referee.lock" not in left and "results.sqlite-wal" not in left and "results.sqlite-shm" not in left
    assert {"results.sqlite", "games", "standings.json", "report.html"} <= set(left)
    again = subprocess.run(  # the folder is free again, and resumes
        [sys.executable, "-m", "referee", "run", "--resume", str(out)],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert again.returncode == 0, again.stderr


def test_run_json_writes_only_json_events_on_stdout(tmp_path: Path) -> None:
    import json

    done = subprocess.run(
        [sys.executable, "-m", "referee", "run", str(HONEST), str(HONEST), "--sandbox", "none", "--json",
         "--out", str(tmp_path / "t")],
        capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert events[0]["event"] == "start" and events[-1]["event"] == "standings"
    assert events[-1]["workers_lost"] == [] and "Report written to" in done.stderr


def test_run_help_tells_of_the_sample_bots_noise() -> None:
    text = " ".join(CliRunner().invoke(main, ["run", "--help"]).output.split())
    assert "--noise P" in text and "greedy.py --noise 0.2" in text


def test_two_versions_checked_with_different_arguments_are_told_apart(tmp_path: Path) -> None:
    from referee.cli.check_cmd import _options_of

    bot = tmp_path / "mybot.py"
    bot.write_text("")
    assert _options_of(f"{bot} --level 2") == "--level 2"
    assert _options_of(f"python3 {bot} --level 3 --fast") == "--level 3 --fast"
    assert _options_of(str(bot)) == "" and _options_of(f"python3 {bot}") == ""


def test_readme_gives_users_the_runtime_alone_beside_the_developer_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first = next(line for line in readme.splitlines() if line.startswith("python3 -m venv"))
    assert "pip install -e '.[test]'" in first and "referee run sample_bots/*.py --games 2" in first
    assert "pip install . && referee run" in readme and "without the test tools" in readme
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    runtime = " ".join(project["dependencies"])
    assert not any(tool in runtime for tool in ("pytest", "mypy", "ruff", "playwright"))
