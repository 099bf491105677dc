"""Issue 17, items 8-10: a careless organiser loses nothing and gets one line.

Two runs into one results folder, a full or read-only disk, a bot replaced between a run and its resume, an
edited manifest environment, and manifest environment names no environment can hold.
"""

from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import BOT, referee
from .test_real_runs import start_referee, wait_for_games


def copies(folder: Path, *names: str) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    out = []
    for name in names:
        path = folder / f"{name}.py"
        path.write_bytes(BOT.read_bytes())
        out.append(path)
    return out


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in done.stderr, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


def test_a_second_run_into_a_busy_results_folder_is_refused(tmp_path: Path) -> None:
    bots = copies(tmp_path / "bots", "a", "b", "c")
    out = tmp_path / "t"
    first = start_referee("run", *bots, "--sandbox", "none", "--games", "400", "--jobs", "1", "--out", out)
    try:
        wait_for_games(out / "results.sqlite", 2, first)
        for args in (["--resume", out], [*bots, "--sandbox", "none", "--games", "400", "--out", out]):
            second = referee("run", *args)
            assert second.returncode == 1
            line = one_line(second)
            assert str(out) in line and f"pid {first.pid}" in line and "in use by another referee" in line
        first.send_signal(signal.SIGINT)
        first.communicate(timeout=60)
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()
    assert first.returncode == 130
    with sqlite3.connect(out / "results.sqlite") as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        logs = {r[0] for r in db.execute("SELECT log_path FROM games")}
    assert all((out / p).is_file() for p in logs)
    # Once the first has ended, the folder is free again (the kernel drops the lock with its holder).
    again = referee("run", "--resume", out, "--games", "400", timeout=600)
    assert again.returncode == 0, again.stderr


def _mount(*args: str) -> bool:
    done = subprocess.run(["mount", *args], capture_output=True, text=True, check=False)
    print(done.stderr)
    return done.returncode == 0


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    """A 400 KiB in-memory file system (needs root and mount): too small for the tournament below."""
    where = tmp_path / "disk"
    where.mkdir()
    if not _mount("-t", "tmpfs", "-o", "size=400k", "tmpfs", str(where)):
        pytest.skip("cannot mount a small tmpfs here (needs root)")
    try:
        yield where
    finally:
        subprocess.run(["umount", "-l", str(where)], check=False)


def test_full_then_read_only_disk_is_one_line_and_the_resume_completes(tmp_path: Path, small_disk: Path) -> None:
    bots = copies(tmp_path / "bots", "a", "b", "c")
    out = small_disk / "t"
    full = referee("run", *bots, "--sandbox", "none", "--games", "40", "--seed", "5", "--out", out, timeout=600)
    assert full.returncode == 1, full.stdout + full.stderr
    line = one_line(full)
    assert f"cannot write to the results folder {out}" in line and f"referee run --resume {out}" in line
    db = sqlite3.connect(out / "results.sqlite")
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = db.execute("SELECT count(*) FROM games").fetchone()[0]
        logs = [r[0] for r in db.execute("SELECT log_path FROM games")]
    finally:
        db.close()  # an open file keeps the file system from becoming read-only
    assert 0 < stored < 120
    assert all((out / p).is_file() for p in logs), "every stored game has its log"

    assert _mount("-o", "remount,ro", str(small_disk))
    read_only = referee("run", "--resume", out)
    assert read_only.returncode == 1
    assert f"cannot write to the results folder {out}" in one_line(read_only)

    assert _mount("-o", "remount,rw,size=64m", str(small_disk))
    resumed = referee("run", "--resume", out, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads((out / "standings.json").read_text())["games"] == 120
    checked = referee("verify-deals", out)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_bot_replaced_before_the_resume_is_refused_naming_it(tmp_path: Path) -> None:
    bots = copies(tmp_path / "bots", "a", "b")
    out = tmp_path / "t"
    assert referee("run", *bots, "--sandbox", "none", "--out", out).returncode == 0
    bots[1].write_text(bots[1].read_text() + "\n# a new version\n")
    done = referee("run", "--resume", out)
    assert done.returncode == 2
    line = one_line(done)
    assert "entrant b" in line and f"{bots[1]} changed" in line and "another --out" in line
    bots[1].unlink()
    assert f"{bots[1]} is gone" in one_line(referee("run", "--resume", out))


def manifest(folder: Path, env: str) -> Path:
    copies(folder, "a", "b")
    path = folder / "bots.toml"
    path.write_text(f'[[bot]]\ncommand = "a.py"\nenv = {env}\n[[bot]]\ncommand = "b.py"\n', encoding="utf-8")
    return path


def test_an_edited_manifest_environment_is_named_on_resume(tmp_path: Path) -> None:
    path = manifest(tmp_path, '{ DEPTH = "2" }')
    out = tmp_path / "t"
    assert referee("run", "--manifest", path, "--sandbox", "none", "--out", out).returncode == 0
    path.write_text(path.read_text().replace('DEPTH = "2"', 'DEPTH = "3"'))
    line = one_line(referee("run", "--manifest", path, "--sandbox", "none", "--out", out))
    assert "entrant a's environment had DEPTH='2'; now DEPTH='3'" in line
    path.write_text(path.read_text().replace('DEPTH = "3"', 'WIDTH = "3"'))
    line = one_line(referee("run", "--manifest", path, "--sandbox", "none", "--out", out))
    assert "had DEPTH='2'; now it has no DEPTH" in line


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ('{ "" = "x" }', "'' is not a variable name"),
        ('{ "A=B" = "x" }', "'A=B' is not a variable name"),
        ('{ "A\\u0000B" = "x" }', "'A\\x00B' is not a variable name"),
        ('{ A = "x\\u0000y" }', "the value of 'A' holds a NUL character"),
    ],
)
def test_an_environment_no_process_can_hold_is_one_line(tmp_path: Path, env: str, message: str) -> None:
    path = manifest(tmp_path, env)
    done = referee("run", "--manifest", path, "--sandbox", "none", "--out", tmp_path / "t")
    assert done.returncode == 2
    line = one_line(done)
    assert str(path) in line and "bot 1" in line and message in line
