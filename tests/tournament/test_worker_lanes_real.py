"""``referee run --jobs 2 --lane-processes`` plays its lanes in two worker processes: how they end, with real bots.

A Ctrl-C (to the whole process group, as a terminal sends it) or a SIGTERM to the referee, a ``kill -9`` of the
referee, and a worker killed on its own (as the out-of-memory killer does): every finished game is kept, every bot
and every worker is gone. (``test_real_runs.py`` resumes a killed run with the same lanes.)
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path

import pytest

from .conftest import live_processes_under, referee
from .test_real_runs import COMMON, bots, wait_for_games
from .test_real_runs import start_referee as start_real_run


def start_referee(*args: object) -> subprocess.Popen[str]:
    """``referee ARGS --lane-processes`` in a process group of its own."""
    return start_real_run(*args, "--lane-processes", own_group=True)


def workers_of(pid: int) -> list[int]:
    """The lane workers of the referee ``pid``: its children that are copies of it (bots run other programs)."""
    own = Path(f"/proc/{pid}/cmdline").read_bytes()
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            ppid = (proc / "stat").read_text().rsplit(")", 1)[1].split()[1]
            if ppid == str(pid) and (proc / "cmdline").read_bytes() == own:
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def wait_until_gone(*paths: Path, timeout: float = 15) -> None:
    """Wait until no process mentions any of ``paths`` (the dying ones need a moment); fail after ``timeout``."""
    end = time.monotonic() + timeout
    while any(live_processes_under(p) for p in paths) and time.monotonic() < end:
        time.sleep(0.05)
    assert [live_processes_under(p) for p in paths] == [[] for _ in paths], "a process was left behind"


def stored_games(out: Path) -> int:
    with sqlite3.connect(out / "results.sqlite") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        n = conn.execute("SELECT count(*) FROM games").fetchone()[0]
        assert conn.execute("SELECT count(*) FROM seats").fetchone()[0] == 3 * n, "only whole games are stored"
    return int(n)


@pytest.mark.parametrize("how", ["ctrl-c to the process group", "sigterm to the referee"])
def test_a_stopped_run_stores_every_finished_game_and_leaves_no_worker_or_bot(
    tmp_path: Path, bot_dir: Path, how: str
) -> None:
    out = tmp_path / "t"
    proc = start_referee("run", *bots(bot_dir), *COMMON, "--games", "200", "--out", out)
    try:
        wait_for_games(out / "results.sqlite", 10, proc)
        assert len(workers_of(proc.pid)) == 2, "one worker per lane"
        if how.startswith("ctrl-c"):
            os.killpg(proc.pid, signal.SIGINT)  # the referee, its workers (bots are in sessions of their own)
        else:
            proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    stored = stored_games(out)
    assert 10 <= stored < 2400
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert f"Standings after {stored} games" in stdout
    assert f"continue with: referee run --resume {out}" in stderr
    wait_until_gone(bot_dir, out, timeout=1)  # gone before the referee exited


def test_kill_9_of_the_referee_takes_its_workers_and_their_bots_with_it(tmp_path: Path, bot_dir: Path) -> None:
    out = tmp_path / "t"
    proc = start_referee("run", *bots(bot_dir), *COMMON, "--games", "200", "--out", out)
    try:
        wait_for_games(out / "results.sqlite", 10, proc)
        workers = workers_of(proc.pid)
        assert len(workers) == 2 and live_processes_under(bot_dir) != []
        proc.kill()
        proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    wait_until_gone(bot_dir, out)
    assert stored_games(out) >= 10


def test_a_worker_killed_on_its_own_ends_the_run_in_one_line_and_the_run_resumes(tmp_path: Path, bot_dir: Path) -> None:
    """The out-of-memory killer picks a worker: the referee says which lane ended and how, in one line, stops the
    other lane, keeps every finished game, exits 1 with no process left; the run resumes to its end."""
    out = tmp_path / "t"
    proc = start_referee("run", *bots(bot_dir), *COMMON, "--games", "30", "--out", out)
    try:
        wait_for_games(out / "results.sqlite", 10, proc)
        victim = workers_of(proc.pid)[0]
        os.kill(victim, signal.SIGKILL)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
    assert proc.returncode == 1, stderr
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("referee run: error: the worker process of lane ")
    assert f"(pid {victim}) ended unexpectedly: killed by signal SIGKILL" in lines[0]
    assert lines[0].endswith(f"finished games are saved: continue with referee run --resume {out}")
    wait_until_gone(bot_dir, out)
    stored = stored_games(out)
    assert 10 <= stored < 360
    resumed = referee("run", "--resume", out)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{stored}/360 games already played" in resumed.stdout
    assert stored_games(out) == 360
    wait_until_gone(bot_dir, out)


def test_lane_processes_are_refused_with_a_cluster_in_one_line(tmp_path: Path, bot_dir: Path) -> None:
    done = referee("run", *bots(bot_dir), "--cluster", "local:2", "--lane-processes", "--out", tmp_path / "t")
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == [
        "referee run: error: --lane-processes does not apply with --cluster: each Dask worker is a process of its own"
    ]
