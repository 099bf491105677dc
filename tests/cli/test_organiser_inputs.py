"""Issue 25, item 8: what an organiser types or is handed. A shell pattern that makes a file an option, files that
are no files (``/dev/zero``, a FIFO) or are nested without end, a deal secret that is not random or was chosen,
names with characters that do not show, a sample bot copied on its own."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from referee.runner import parse_bot_spec
from referee.tournament import name_entrants

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "tests" / "bots"


def _referee(*args: object, cwd: Path, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee", *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=timeout
    )


def _one_line(done: subprocess.CompletedProcess[str], status: int) -> str:
    assert done.returncode == status, done.stdout + done.stderr
    assert "Traceback" not in done.stderr and done.stderr.count("\n") == 1, done.stderr
    return done.stderr.strip()


def _bots(folder: Path) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("honest.py", "_base.py"):
        shutil.copy(BOTS / name, folder / name)
    shutil.copy(BOTS / "honest.py", folder / "other.py")
    return ["honest.py", "other.py"]


def test_a_file_a_shell_pattern_made_an_option_is_refused(tmp_path: Path) -> None:
    """``referee run *.py`` beside a file named ``--deal-secret=key.py``: the shell hands the referee that name among
    the bot files, where it would be the option that chooses every deal. Refused in one line (exit 2), before any
    game; after ``--`` it is a bot file like any other."""
    bots = _bots(tmp_path)
    (tmp_path / "key.py").write_text("00" * 32)
    (tmp_path / "--deal-secret=key.py").write_text((BOTS / "honest.py").read_text())
    expanded = sorted(p.name for p in tmp_path.glob("*.py"))  # what the shell makes of *.py
    assert "--deal-secret=key.py" in expanded
    line = _one_line(_referee("run", *expanded, "--sandbox", "none", "-o", "r", cwd=tmp_path), 2)
    assert "the option '--deal-secret=key.py' is the name of a file here" in line
    assert not (tmp_path / "r").exists()
    done = _referee(
        "run", "--sandbox", "none", "--games", "1", "-o", "r", "--", "--deal-secret=key.py", *bots, cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "3 entrants" in done.stdout


def test_a_folder_of_bots_is_an_argument(tmp_path: Path) -> None:
    """``referee run bots/``: every bot file of the folder and the bot of each subfolder (``bots/<name>/bot.py``),
    helpers (``_base.py``) left out; a folder without bots is one line."""
    _bots(tmp_path / "bots")
    for name in ("alice", "bob"):
        (tmp_path / "bots" / name).mkdir()
        shutil.copy(BOTS / "honest.py", tmp_path / "bots" / name / "bot.py")
        shutil.copy(BOTS / "_base.py", tmp_path / "bots" / name / "_base.py")
    done = _referee("run", "bots", "--sandbox", "none", "--games", "1", "-o", "r", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "4 entrants (alice, bob, honest, other)" in done.stdout
    (tmp_path / "empty").mkdir()
    assert "holds no bot" in _one_line(_referee("run", "empty", "--sandbox", "none", cwd=tmp_path), 2)


@pytest.mark.parametrize("kind", ["zero", "fifo", "nested"])
@pytest.mark.parametrize("option", ["--manifest", "--rules", "--deal-secret"])
def test_a_file_that_is_no_file_or_has_no_end_is_one_line(tmp_path: Path, option: str, kind: str) -> None:
    """``--manifest /dev/zero`` ended in a MemoryError, a manifest nested thousands deep in a RecursionError, a FIFO
    with no writer hung the referee: each is one line now, before anything is read or played."""
    bots = _bots(tmp_path)
    if kind == "zero":
        path = Path("/dev/zero")
    elif kind == "fifo":
        path = tmp_path / "fifo"
        os.mkfifo(path)
    else:
        path = tmp_path / "nested"
        depth = 100_000
        path.write_text("a = " + "[" * depth + "]" * depth if option == "--manifest" else "[" * depth + "]" * depth)
    args = [option, path] if option == "--manifest" else [*bots, option, path]
    done = _referee("run", *args, "--sandbox", "none", "-o", "r", cwd=tmp_path, timeout=60)
    assert done.returncode in (1, 2), done.stderr
    assert "Traceback" not in done.stderr and done.stderr.strip().count("\n") == 0, done.stderr
    said = done.stderr.strip()
    assert str(path) in said or path.name in said, said
    expected = {"zero": "not a regular file", "fifo": "a FIFO", "nested": ""}[kind]
    assert expected in said, said
    assert not (tmp_path / "r" / "results.sqlite").exists()


def test_a_secret_that_is_not_random_or_was_given_is_flagged(tmp_path: Path) -> None:
    """A secret of 64 zeros was "verified" without a word: the run and verify-deals both say that a secret given
    with --deal-secret was known before, and that this one is not random."""
    bots = _bots(tmp_path)
    (tmp_path / "zeros").write_text("00" * 32)
    done = _referee(
        "run", *bots, "--sandbox", "none", "--games", "1", "-o", "r", "--deal-secret", "zeros", cwd=tmp_path
    )
    assert done.returncode == 0, done.stderr
    assert "not from one drawn now: whoever knows it knows every deal" in done.stderr
    assert "that secret is not random (it has only 1 different byte value in 32)" in done.stderr
    checked = _referee("verify-deals", "r", cwd=tmp_path)
    assert checked.returncode == 0 and "verified" in checked.stdout
    notes = [line for line in checked.stdout.splitlines() if ": NOTE: " in line]
    assert len(notes) == 2 and "given with --deal-secret" in notes[0] and "not random" in notes[1], checked.stdout
    drawn = _referee("run", *bots, "--sandbox", "none", "--games", "1", "-o", "d", cwd=tmp_path)
    assert drawn.returncode == 0 and "NOTE" not in _referee("verify-deals", "d", cwd=tmp_path).stdout


def test_names_with_characters_that_do_not_show_are_escaped(tmp_path: Path) -> None:
    """``gre<U+200B>edy.py`` was named as it is, and showed as "greedy" beside the real one (in the report too);
    zero-width, direction-changing and control characters in a name from a file are written as escapes."""
    for name in ("gre\u200bedy.py", "greedy.py", "\u202eybot.py"):
        (tmp_path / name).write_text("")
    specs, _ = name_entrants(
        [parse_bot_spec(str(tmp_path / n)) for n in ("gre\u200bedy.py", "greedy.py", "\u202eybot.py")]
    )
    assert [s.name for s in specs] == ["gre\\u200bedy", "greedy", "\\u202eybot"]
