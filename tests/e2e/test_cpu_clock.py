"""Issue 17, build 5: ``--clock cpu`` charges a bot the CPU time its processes used for a reply, not the wall
time, with a wall-clock backstop; the log records both for every reply. Issue 25, item 7: every process of the bot
is counted and no bot starves another, through a cgroup per bot, or the clock is refused."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from referee.runner.cpu_cgroup import cpu_cgroup_problem
from referee.runner.gamelog import log_content

from .helpers import BOTS, MODES, assert_verified, bot, config, new_mark, processes_with, run_games


def recv_events(log: Path) -> list[dict[str, object]]:
    return [e for e in map(json.loads, log_content(log).decode().splitlines()) if e["event"] == "recv"]


@pytest.mark.parametrize("mode", MODES)
def test_waiting_costs_nothing_under_the_cpu_clock(tmp_path: Path, mode: str) -> None:
    """A bot that sleeps 1.5 s (as a loaded machine makes a bot wait) within a 1 s move time: a timeout on the
    wall clock, a legal reply on the CPU clock (well inside the 3 s backstop)."""
    mark = new_mark()
    slow = bot("slow", mark, SLOW_SECONDS="1.5")
    cfgs = [config(mode, move_time=1.0, clock="cpu", cpu_backstop=10.0), config(mode, clock="cpu")]
    (result,), _ = run_games([slow, bot("honest", mark)], cfgs, tmp_path)
    assert result.faults == ()
    assert_verified(result)
    replies = [e for e in recv_events(tmp_path / "g0.jsonl") if e["seat"] == 0]
    assert replies and all("cpu_ms" in e and "ms" in e for e in replies)
    slowest = max(replies, key=lambda e: float(e["ms"]))  # type: ignore[arg-type]
    assert float(slowest["ms"]) >= 1500 and float(slowest["cpu_ms"]) < 500  # type: ignore[arg-type]

    wall = [config(mode, move_time=1.0), config(mode)]
    (result,), _ = run_games([slow, bot("honest", mark)], wall, tmp_path / "wall")
    assert [(f.seat, f.kind) for f in result.faults] == [(0, "timeout")]
    assert processes_with(mark) == []


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("where", ["self", "child"])
def test_cpu_spent_over_the_move_time_is_a_timeout(tmp_path: Path, mode: str, where: str) -> None:
    mark = new_mark()
    burner = bot("cpu_spender", mark, BURN_SECONDS="0.6", BURN_IN=where)
    # A wide backstop: however loaded the machine, the 0.6 s of CPU are spent before it.
    cfgs = [config(mode, move_time=0.4, clock="cpu", cpu_backstop=60.0), config(mode, clock="cpu")]
    (result,), _ = run_games([burner, bot("honest", mark)], cfgs, tmp_path)
    (fault,) = result.faults
    assert (fault.seat, fault.kind) == (0, "timeout")
    assert "s of CPU time, over its 0.400 s (--clock cpu)" in fault.detail
    used = float(fault.detail.split("used ")[1].split(" s")[0])
    assert 0.55 <= used < 1.2, fault.detail
    assert processes_with(mark) == []


@pytest.mark.parametrize("mode", MODES)
def test_the_wall_clock_backstop_ends_a_reply_that_never_comes(tmp_path: Path, mode: str) -> None:
    mark = new_mark()
    hang = bot("slow", mark, SLOW_SECONDS="30")
    cfgs = [config(mode, move_time=0.3, clock="cpu"), config(mode, clock="cpu")]
    (result,), _ = run_games([hang, bot("honest", mark)], cfgs, tmp_path)
    (fault,) = result.faults
    assert (fault.seat, fault.kind) == (0, "timeout") and "wall-clock backstop (3x" in fault.detail
    replies = [e for e in map(json.loads, (tmp_path / "g0.jsonl").read_text().splitlines()) if e["event"] == "fault"]
    assert replies
    assert processes_with(mark) == []


def test_the_clock_is_a_tournament_setting_kept_on_resume(tmp_path: Path) -> None:
    def referee(*args: object) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "referee", *map(str, args)], capture_output=True, text=True, timeout=300
        )

    out = tmp_path / "t"
    honest = BOTS / "honest.py"
    done = referee("run", honest, honest, "--clock", "cpu", "--sandbox", "none", "--out", out)
    assert done.returncode == 0, done.stderr
    replies = [e for log in (out / "games").glob("*.jsonl.zst") for e in recv_events(log)]
    assert replies and all("cpu_ms" in e and "ms" in e for e in replies)
    refused = referee("run", "--resume", out, "--clock", "wall")
    assert refused.returncode == 2 and "--clock was cpu; now wall" in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    played = referee("play", honest, honest, "--clock", "cpu", "--sandbox", "none", "--log", tmp_path / "p.jsonl")
    assert played.returncode == 0, played.stderr
    assert all("cpu_ms" in e for e in recv_events(tmp_path / "p.jsonl"))


CGROUPS = cpu_cgroup_problem()
needs_cgroups = pytest.mark.skipif(CGROUPS is not None, reason=f"no CPU cgroup per bot here: {CGROUPS}")


@needs_cgroups
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("hide", ["thread", "wide"])
def test_cpu_spent_where_a_process_walk_does_not_look_is_charged(tmp_path: Path, mode: str, hide: str) -> None:
    """1 s of CPU a reply in a child forked from a second thread, or after 70 idle children: a walk of /proc from
    the bot's first process missed both (charged 0.0 ms as a non-root organiser). The bot's cgroup counts them."""
    mark = new_mark()
    burner = bot("hidden_burner", mark, HIDE=hide, BURN_SECONDS="1.0")
    cfgs = [config(mode, move_time=0.4, clock="cpu", cpu_backstop=60.0), config(mode, clock="cpu")]
    (result,), _ = run_games([burner, bot("honest", mark)], cfgs, tmp_path)
    (fault,) = result.faults
    assert (fault.seat, fault.kind) == (0, "timeout")
    assert "s of CPU time, over its 0.400 s (--clock cpu)" in fault.detail
    assert processes_with(mark) == []


@needs_cgroups
@pytest.mark.parametrize("mode", MODES)
def test_burners_in_sessions_of_their_own_do_not_starve_another_bot(tmp_path: Path, mode: str) -> None:
    """24 burners, each in a session (a scheduler group) of its own, run while the other bot thinks: in the root
    CPU group each session got a share of its own, and the honest bot (0.1 s of CPU a reply, move time 0.5 s) ran out
    of its 1.5 s of wall clock. In a cgroup per bot the burners share their one bot's share."""
    mark = new_mark()
    spender = bot("cpu_spender", mark, BURN_SECONDS="0.1")
    cfgs = [config(mode, move_time=0.5, clock="cpu"), config(mode, clock="cpu")]
    (result,), _ = run_games([spender, bot("session_burners", mark)], cfgs, tmp_path)
    assert result.faults == ()
    assert_verified(result)
    assert processes_with(mark) == []


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None, reason="needs root (to become nobody)")
def test_as_a_non_root_organiser_the_cpu_clock_counts_everything_or_is_refused() -> None:
    """Run by a user who may make no cgroup (nobody), ``--clock cpu`` is refused in one line before any game, rather
    than charge a bot only the processes a walk of /proc finds (the hidden burner then replied in 0.0 ms)."""
    folder = Path(tempfile.mkdtemp(prefix="referee-nobody-"))  # pytest's own folders are root's alone
    try:
        folder.chmod(0o777)
        log = folder / "game.jsonl"
        args = ["play", BOTS / "hidden_burner.py", BOTS / "honest.py", "--clock", "cpu", "--sandbox", "none"]
        nobody = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable, "-m", "referee"]
        done = subprocess.run(
            [*nobody, *map(str, args), "--move-time", "0.4", "--log", str(log)],
            capture_output=True,
            text=True,
            timeout=300,
            cwd=folder,
        )
        if done.returncode == 0:  # the machine delegates a cgroup v2 to nobody: the burner must have been charged
            faults = [e for e in map(json.loads, log.read_text().splitlines()) if e["event"] == "fault"]
            assert faults and "over its 0.400 s (--clock cpu)" in faults[0]["detail"], faults
            return
        assert done.stderr.count("\n") == 1 and "--clock cpu needs a cgroup per bot" in done.stderr, done.stderr
        assert not log.exists()
    finally:
        shutil.rmtree(folder, ignore_errors=True)
