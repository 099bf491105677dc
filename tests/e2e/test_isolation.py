"""The sandbox: a bot cannot reach the network or read another bot's folder; it just fails inside, and plays on."""

from __future__ import annotations

import shutil
import socket
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from referee.runner import Limits
from referee.runner.sandbox import bot_argv

from .helpers import BOTS, HAVE_BWRAP, assert_verified, bot, config, new_mark, processes_with, run_games

pytestmark = [pytest.mark.sandbox, pytest.mark.skipif(not HAVE_BWRAP, reason="bwrap absent")]


def test_network_is_unreachable_inside_the_sandbox(tmp_path: Path) -> None:
    mark = new_mark()
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.setblocking(False)
        port = server.getsockname()[1]
        specs = [bot("network", mark, NET_PORT=str(port)), bot("honest", mark)]
        (result,), _ = run_games(specs, config("bwrap"), tmp_path)
        with pytest.raises(BlockingIOError):
            server.accept()
    assert result.faults == ()
    assert_verified(result)
    assert "network: blocked" in (tmp_path / "seat0.network.stderr.log").read_text()
    assert processes_with(mark) == []


def test_network_bot_gets_through_without_sandbox(tmp_path: Path) -> None:
    """The control: the same bot outside the sandbox connects (and so exits with status 9: a crash)."""
    mark = new_mark()
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        specs = [bot("network", mark, NET_PORT=str(port)), bot("honest", mark)]
        (result,), _ = run_games(specs, config("none"), tmp_path)
    assert [f.kind for f in result.faults] == ["startup"]
    assert "exit code 9" in result.faults[0].detail


def _other_bot(tmp_path: Path) -> Path:
    other = tmp_path / "other-bot"
    other.mkdir()
    shutil.copy(BOTS / "honest.py", other / "bot.py")
    secret = other / "strategy.txt"
    secret.write_text("the other bot's secret\n")
    return secret


def test_another_bots_folder_is_invisible_inside_the_sandbox(tmp_path: Path) -> None:
    mark = new_mark()
    secret = _other_bot(tmp_path)
    specs = [bot("snoop", mark, SNOOP_PATH=str(secret)), bot("honest", mark)]
    (result,), _ = run_games(specs, config("bwrap"), tmp_path)
    assert result.faults == ()
    assert_verified(result)
    assert "snoop: blocked" in (tmp_path / "seat0.snoop.stderr.log").read_text()
    assert processes_with(mark) == []


def test_snoop_bot_reads_the_folder_without_sandbox(tmp_path: Path) -> None:
    """The control: outside the sandbox the same bot reads the file (and so exits with status 9)."""
    mark = new_mark()
    secret = _other_bot(tmp_path)
    specs = [bot("snoop", mark, SNOOP_PATH=str(secret)), bot("honest", mark)]
    (result,), _ = run_games(specs, config("none"), tmp_path)
    assert [f.kind for f in result.faults] == ["startup"]


@pytest.mark.parametrize("mode", ["none", "bwrap"])
def test_environment_is_scrubbed_and_folders_are_as_documented(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    monkeypatch.setenv("REFEREE_SECRET_TOKEN", "do-not-leak")
    mark = new_mark()
    specs = [bot("inspect_env", mark), bot("honest", mark)]
    (result,), _ = run_games(specs, config(mode), tmp_path)
    assert result.faults == ()
    report = (tmp_path / "seat0.inspect_env.stderr.log").read_text()
    names = report.split("env: ")[1].splitlines()[0].split()
    assert "REFEREE_SECRET_TOKEN" not in names
    allowed = {"PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "HOME", "TMPDIR", "REFEREE_TEST_MARK", "PWD", "REFEREE_BOT"}
    assert set(names) <= allowed  # bwrap sets PWD for --chdir
    assert f"cwd: {BOTS}" in report
    assert "tmp writable: yes" in report
    if mode == "bwrap":
        assert "own folder writable: no" in report  # the bot's folder is bound read-only


def test_private_tmp_is_capped(tmp_path: Path) -> None:
    mark = new_mark()
    specs = [bot("tmp_filler", mark), bot("honest", mark)]
    (result,), _ = run_games(specs, config("bwrap", limits=Limits(tmp_size=8 * 1024 * 1024)), tmp_path)
    assert result.faults == ()
    report = (tmp_path / "seat0.tmp_filler.stderr.log").read_text()
    assert "tmp full (No space left on device)" in report
    assert int(report.split("tmp written MiB: ")[1].split()[0]) <= 8


def test_a_version_manager_shim_gets_its_manager_folder_in_the_sandbox(tmp_path: Path) -> None:
    """``command = "python3 bot.py"`` under pyenv finds ~/.pyenv/shims/python3, a script that runs
    ~/.pyenv/libexec/pyenv and the real interpreter: the sandbox must show it the manager's folder, read-only."""
    manager = tmp_path / ".pyenv"
    (manager / "shims").mkdir(parents=True)
    (manager / "libexec").mkdir()
    shim = manager / "shims" / "python3"
    shim.write_text(f'#!/bin/sh\nexec "{manager}/libexec/real" "$@"\n')
    real = manager / "libexec" / "real"
    real.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    for script in (shim, real):
        script.chmod(0o755)
    mark = new_mark()
    honest = bot("honest", mark)
    shimmed = replace(honest, name="shimmed", argv=(str(shim), str(BOTS / "honest.py")))
    argv = bot_argv(shimmed, "bwrap")
    at = argv.index(str(manager))
    assert argv[at - 1 : at + 2] == ["--ro-bind", str(manager), str(manager)]
    (result,), _ = run_games([shimmed, honest], config("bwrap"), tmp_path)
    assert result.faults == ()
    assert_verified(result)
    assert processes_with(mark) == []


@pytest.mark.parametrize("program", ["script", "executable"])
@pytest.mark.parametrize("where", ["run", "play"])
def test_results_kept_inside_a_bots_folder_are_hidden_from_it(tmp_path: Path, where: str, program: str) -> None:
    """Game logs hold every hand of the deal. Kept inside a bot's own folder (``-o bots/results``, or ``referee
    play`` run from the bot's folder), the sandbox covers them, so the bot reads nothing of them. The same for a
    compiled bot, whose program lies in its own folder (as the C template's README runs it: ``referee play bot
    …`` in the bot's folder): it starts, and reads nothing of them either."""
    folder = tmp_path / "mybot"
    folder.mkdir()
    for name in ("log_reader.py", "_base.py"):
        shutil.copy(BOTS / name, folder / name)
    reader, honest = str(folder / "log_reader.py"), str(BOTS / "honest.py")
    if program == "executable":
        reader = str(folder / "log_reader")
        Path(reader).write_text(f'#!/bin/sh\nexec "{sys.executable}" log_reader.py\n')
        Path(reader).chmod(0o755)
    if where == "run":
        args = ["run", reader, honest, "-n", "2", "--seed", "3", "--sandbox", "bwrap", "-o", "results", "-j", "1"]
    else:
        args = ["play", reader, honest, "--seed", "3", "--sandbox", "bwrap"]
    done = subprocess.run(
        [sys.executable, "-m", "referee", *args], cwd=folder, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    logs = list(folder.glob("results/bots/log_reader.*.log")) + list(folder.glob("referee-logs/*log_reader*.log"))
    said = "".join(p.read_text() for p in logs)
    assert "log_reader: 0 deal lines" in said
    assert "log_reader:" in said and all(line == "log_reader: 0 deal lines" for line in said.splitlines())
    assert list(folder.glob("results/games/*.jsonl.zst")) or list(folder.glob("referee-logs/*.jsonl"))  # logs exist


def test_results_in_a_bots_own_folder_are_refused_in_one_line(tmp_path: Path) -> None:
    """The sandbox can cover a results folder inside a bot's folder, not the folder the bot runs in."""
    folder = tmp_path / "mybot"
    folder.mkdir()
    for name in ("honest.py", "_base.py"):
        shutil.copy(BOTS / name, folder / name)
    (folder / "honest.py").rename(folder / "mine.py")  # two entrants called 'honest' would add a naming note
    mine, other = str(folder / "mine.py"), str(BOTS / "honest.py")
    for status, args in (
        (1, ["play", mine, other, "--sandbox", "bwrap", "--log", "game.jsonl"]),  # as play's other errors
        (2, ["run", mine, other, "--sandbox", "bwrap", "--out", "."]),  # as run's other option errors
    ):
        done = subprocess.run(
            [sys.executable, "-m", "referee", *args], cwd=folder, capture_output=True, text=True, timeout=120
        )
        assert done.returncode == status, done.stderr
        assert done.stderr.count("\n") == 1 and "would hold the game logs, and the bot could read them" in done.stderr
        assert not list(folder.glob("*.jsonl")) and not (folder / "results.sqlite").exists()


@pytest.mark.parametrize("out", [".", "bots/.."])
def test_a_results_folder_around_an_entrants_folder_is_refused_in_one_line(tmp_path: Path, out: str) -> None:
    """``-o .`` in a contest whose entrant runs in ``bots/``: the results' own ``bots/`` folder of live stderr logs
    would be that entrant's folder, and it could read every other bot's stderr as the games go. Refused before any
    game, in one line (exit 2, as run's other option errors), nothing written."""
    (tmp_path / "bots").mkdir()
    for name in ("log_reader.py", "_base.py"):
        shutil.copy(BOTS / name, tmp_path / "bots" / name)
    shutil.copy(BOTS / "honest.py", tmp_path / "honest.py")
    shutil.copy(BOTS / "_base.py", tmp_path / "_base.py")
    (tmp_path / "bots.toml").write_text(
        '[[bot]]\nname = "reader"\ncommand = "log_reader.py"\ncwd = "bots"\n[[bot]]\ncommand = "honest.py"\n'
    )
    args = ["run", "--manifest", "bots.toml", "-o", out, "--sandbox", "bwrap", "-n", "1"]
    done = subprocess.run(
        [sys.executable, "-m", "referee", *args], cwd=tmp_path, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1
    assert f"bot reader's folder {tmp_path / 'bots'} lies inside the results folder {tmp_path}" in done.stderr
    assert not (tmp_path / "results.sqlite").exists() and not list((tmp_path / "bots").glob("*.log"))
