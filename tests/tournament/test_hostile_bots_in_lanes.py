"""Hostile bots in worker lanes (``referee run --jobs 2 --lane-processes``): a bot that stops its own process group
(SIGSTOP), one that never exits (it ignores SIGTERM, SIGINT and SIGHUP), one that starts a child in a new session
and exits, and in the sandbox one that sends SIGSTOP and SIGKILL to its parent (the sandbox's init). Each forfeits
the right games for the right reason, every game is stored once, and no process is left behind, through a Ctrl-C to
the run's process group and a ``--resume``."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import live_processes_under, referee
from .test_real_runs import start_referee, wait_for_games

BOTS = Path(__file__).resolve().parents[1] / "bots"
HOSTILE = ["stop_group", "fork_child", "never_exits", "kill_parent"]
MODES = [
    "none",
    pytest.param("bwrap", marks=pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")),
]


def _field(folder: Path, mode: str) -> list[Path]:
    folder.mkdir()
    shutil.copy(BOTS / "_base.py", folder / "_base.py")
    # Outside the sandbox a bot's parent is the lane's worker: kill_parent would kill it (README: --sandbox none
    # is for trusted bots only, which may signal the referee).
    names = [*HOSTILE, "honest"] if mode == "bwrap" else [*HOSTILE[:3], "honest"]
    for name in names:
        shutil.copy(BOTS / f"{name}.py", folder / f"{name}.py")
    return [folder / f"{name}.py" for name in names]


def _games(out: Path) -> tuple[int, int]:
    with sqlite3.connect(out / "results.sqlite") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return conn.execute("SELECT count(*), count(DISTINCT game_id) FROM games").fetchone()


def ctrl_c(proc: subprocess.Popen[str], ready: Callable[[], object]) -> str:
    """Once ``ready()`` returns, Ctrl-C to the run's process group; its stderr once it has exited (killed if it
    does not within two minutes)."""
    try:
        ready()
        os.killpg(proc.pid, signal.SIGINT)
        return proc.communicate(timeout=120)[1]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()


def _wait_gone(folder: Path, timeout: float = 15) -> None:
    end = time.monotonic() + timeout
    while live_processes_under(folder) and time.monotonic() < end:
        time.sleep(0.05)
    assert live_processes_under(folder) == [], "a process was left behind"


@pytest.mark.parametrize("mode", MODES)
def test_hostile_bots_in_worker_lanes_through_ctrl_c_and_resume(tmp_path: Path, mode: str) -> None:
    folder = tmp_path / "bots"
    bots = _field(folder, mode)
    out = tmp_path / "out"
    args = ["-k", "2", "--games", "2", "--jobs", "2", "--lane-processes", "--seed", "5", "--sandbox", mode]
    proc = start_referee("run", *bots, *args, "--move-time", "2", "--out", out, own_group=True)
    stderr = ctrl_c(proc, lambda: wait_for_games(out / "results.sqlite", 4, proc, timeout=120))
    assert proc.returncode == 130, stderr
    _wait_gone(folder)
    stored, distinct = _games(out)
    assert stored == distinct and stored >= 4
    resumed = referee("run", "--resume", out, timeout=600)
    assert resumed.returncode == 0, resumed.stderr
    n = len(bots)
    assert f"{stored}/{2 * n * (n - 1)} games already played" in resumed.stdout
    games = 2 * n * (n - 1)  # every pair, both seatings, two deals
    assert _games(out) == (games, games)
    _wait_gone(folder)
    _wait_gone(out)
    standings = {e["name"]: e for e in json.loads((out / "standings.json").read_text())["entrants"]}
    assert standings["stop_group"]["forfeits"] == {"timeout": 4 * (n - 1)}
    assert standings["never_exits"]["forfeits"] == {}
    assert standings["honest"]["forfeits"] == {}
    assert standings["fork_child"]["forfeits"] == {"crash": 4 * (n - 1)}
    if mode == "bwrap":
        assert standings["kill_parent"]["forfeits"] == {}
