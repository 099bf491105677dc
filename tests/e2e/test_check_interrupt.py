"""Ctrl-C (or SIGTERM) during `referee check` and `referee play`: one line, exit status 130, and no process of a bot
left behind."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .helpers import BOTS, MODES, new_mark, processes_with


def _wait_for(condition: object, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if condition():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return bool(condition())  # type: ignore[operator]


def _interrupt(argv: list[str], mark: str, cwd: Path, sig: int = signal.SIGINT) -> tuple[int, str, str]:
    """Run the referee, send ``sig`` a second after the marked bots started; its exit status, stdout, stderr."""
    proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert _wait_for(lambda: processes_with(mark), 30), "the bot never started"
        time.sleep(1)
        assert proc.poll() is None
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, stdout, stderr


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["slow.py", "slow_parent.py"])  # the second one has a child process too
def test_ctrl_c_during_check(mode: str, name: str, tmp_path: Path) -> None:
    mark = new_mark()
    # The bot sleeps through its first turn (a minute, within its move time): the check is mid-game at Ctrl-C.
    bot = f"env REFEREE_TEST_MARK={mark} SLOW_SECONDS=60 python3 {BOTS / name}"
    argv = [sys.executable, "-m", "referee", "check", bot, "--sandbox", mode, "--move-time", "60", "--games", "2"]
    status, stdout, stderr = _interrupt(argv, mark, tmp_path)
    assert status == 130, stderr
    assert stderr.splitlines() == ["referee check: interrupted"]
    assert stdout == ""
    # The bot dies with the referee at the latest; give the kernel a moment to finish it.
    assert _wait_for(lambda: not processes_with(mark), 10), processes_with(mark)


@pytest.mark.parametrize("mode", MODES)
def test_ctrl_c_during_play(mode: str, tmp_path: Path) -> None:
    """``referee play`` stopped mid-game: one line naming the partial log, exit status 130, no bot left."""
    mark = new_mark()
    bot = f"env REFEREE_TEST_MARK={mark} SLOW_SECONDS=60 python3 {BOTS / 'slow_parent.py'}"
    honest = f"env REFEREE_TEST_MARK={mark} python3 {BOTS / 'honest.py'}"
    argv = [sys.executable, "-m", "referee", "play", bot, honest, "--sandbox", mode, "--move-time", "60"]
    status, stdout, stderr = _interrupt([*argv, "--log", "g.jsonl"], mark, tmp_path)
    assert status == 130, stderr
    assert stderr.splitlines() == ["referee play: interrupted; the game's log so far: g.jsonl"]
    assert stdout == ""
    assert (tmp_path / "g.jsonl").exists()
    assert _wait_for(lambda: not processes_with(mark), 10), processes_with(mark)


def test_sigterm_stops_play_as_ctrl_c_does(tmp_path: Path) -> None:
    """Every command stops the same way on SIGTERM as on Ctrl-C: its bots closed, one line, exit status 130."""
    mark = new_mark()
    bot = f"env REFEREE_TEST_MARK={mark} SLOW_SECONDS=60 python3 {BOTS / 'slow_parent.py'}"
    honest = f"env REFEREE_TEST_MARK={mark} python3 {BOTS / 'honest.py'}"
    argv = [sys.executable, "-m", "referee", "play", bot, honest, "--sandbox", "none", "--move-time", "60"]
    status, stdout, stderr = _interrupt([*argv, "--log", "g.jsonl"], mark, tmp_path, signal.SIGTERM)
    assert status == 130, stderr
    assert stderr.splitlines() == ["referee play: interrupted; the game's log so far: g.jsonl"]
    assert stdout == ""
    assert _wait_for(lambda: not processes_with(mark), 10), processes_with(mark)
