"""``referee run --cluster`` as users call it: the same standings files as a local run, and one-line errors."""

from __future__ import annotations

import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from tests.tournament.conftest import live_processes_under
from tests.tournament.test_real_runs import wait_for_games

from .conftest import NAMES, assert_same_standings, referee

COMMON = ["--seed", "5", "--move-time", "5", "--sandbox", "none", "-k", "3", "--games", "2"]


def bots(bot_dir: Path) -> list[Path]:
    return [bot_dir / f"{n}.py" for n in NAMES]


def secret_file(folder: Path) -> list[str | Path]:
    """``--deal-secret FILE`` of a fixed secret: a local and a cluster run deal alike only with the same one."""
    path = folder / "deal-secret.txt"
    path.write_text("ab" * 32 + "\n")
    return ["--deal-secret", path]


def _interrupt_on_cluster(
    args: list[str | Path], folder: Path, games: int, *, marks: Path | None = None
) -> tuple[int, int, str]:
    """Start ``referee run ARGS --cluster local:2 --out FOLDER``, Ctrl-C it once ``games`` games are stored (with
    ``marks``: once the bots have recorded ``games`` games started in that folder), and check it stopped with exit
    130 and the one "Interrupted after" line: (games seen before the signal, games kept, its stderr)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "referee", "run", *map(str, args), "--cluster", "local:2", "--out", str(folder)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        if marks is None:
            stored = wait_for_games(folder / "results.sqlite", games, proc)
        else:
            stored = _wait_for_marks(marks, games, proc)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert err.strip().splitlines()[-1].startswith("Interrupted after ")
    with sqlite3.connect(folder / "results.sqlite") as db:
        kept = db.execute("SELECT count(*) FROM games").fetchone()[0]
    return stored, kept, err


def _wait_for_marks(marks: Path, count: int, proc: subprocess.Popen[str], timeout: float = 60) -> int:
    """Poll ``marks`` until the bots have recorded ``count`` games started there; returns how many it holds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        assert proc.poll() is None, "the referee ended before it was stopped"
        if (n := len(os.listdir(marks))) >= count:
            return n
        time.sleep(0.02)
    raise AssertionError(f"the bots started no {count} games within {timeout} s")


def _resume_to_local_standings(bot_dir: Path, folder: Path, local: Path, *, cluster: bool = True) -> None:
    """No bot of ``bot_dir`` outlives the interrupted run, and ``--resume`` on the cluster (or, without
    ``cluster``, here) reaches ``local``'s standings."""
    deadline = time.monotonic() + 10
    while live_processes_under(bot_dir) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert live_processes_under(bot_dir) == []
    resumed = referee("run", "--resume", folder, *(["--cluster", "local:2"] if cluster else []))
    assert resumed.returncode == 0, resumed.stderr
    assert_same_standings(folder, local)


def test_cluster_run_writes_the_standings_of_a_local_run(tmp_path: Path, bot_dir: Path) -> None:
    same = secret_file(tmp_path)
    local = referee("run", *bots(bot_dir), *COMMON, *same, "--jobs", "2", "--out", tmp_path / "local")
    assert local.returncode == 0, local.stderr
    cluster = referee("run", *bots(bot_dir), *COMMON, *same, "--cluster", "local:2", "--out", tmp_path / "cluster")
    assert cluster.returncode == 0, cluster.stderr
    # the cluster says nothing a local run does not (only the notes on the given deal secret: no Dask warning)
    assert cluster.stderr == local.stderr
    assert_same_standings(tmp_path / "cluster", tmp_path / "local")
    assert json.loads((tmp_path / "cluster" / "standings.json").read_text())["games"] == 4 * 3 * 2
    assert (tmp_path / "cluster" / "report.html").exists()


def test_an_unreachable_scheduler_is_one_line_with_the_address_and_timeout(tmp_path: Path, bot_dir: Path) -> None:
    env = {**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "1s"}
    done = referee("run", *bots(bot_dir), *COMMON, "--cluster", "tcp://127.0.0.1:9", "--out", tmp_path / "t", env=env)
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("referee run: error: cannot reach the Dask scheduler at tcp://127.0.0.1:9 within 1 s")
    assert f"referee run --resume {tmp_path / 't'}" in lines[0]


def test_a_malformed_cluster_address_is_a_usage_error(tmp_path: Path, bot_dir: Path) -> None:
    for address, says in (("local:0", "at least 1 worker"), ("local", "local:N"), ("scheduler", "tcp://host:8786")):
        done = referee("run", *bots(bot_dir), "--cluster", address, "--out", tmp_path / "t")
        assert done.returncode == 2
        assert done.stderr.strip().splitlines() == [done.stderr.strip()]
        assert says in done.stderr
    for option, says in ((["--jobs", "2"], "--jobs does not apply"), (["--fresh-bots"], "--fresh-bots is not")):
        done = referee("run", *bots(bot_dir), "--cluster", "local:2", *option, "--out", tmp_path / "t")
        assert done.returncode == 2
        assert done.stderr.startswith(f"referee run: error: {says}")
    assert not (tmp_path / "t").exists()


def test_without_dask_the_cluster_option_says_what_to_install(tmp_path: Path, bot_dir: Path) -> None:
    hide = tmp_path / "no-dask"
    hide.mkdir()
    (hide / "distributed.py").write_text("raise ImportError('No module named distributed')\n")
    env = {**os.environ, "PYTHONPATH": str(hide)}
    done = referee("run", *bots(bot_dir), "--cluster", "local:2", "--out", tmp_path / "t", env=env)
    assert done.returncode == 2
    assert done.stderr.strip() == (
        "referee run: error: --cluster needs Dask distributed, which is not installed: install 'referee[cluster]' "
        "(pip install 'referee[cluster]')"
    )
    without = referee("run", *bots(bot_dir), *COMMON, "--out", tmp_path / "local", env=env)
    assert without.returncode == 0, without.stderr


def test_ctrl_c_keeps_finished_games_and_resume_on_the_cluster_completes_the_local_standings(
    tmp_path: Path, bot_dir: Path
) -> None:
    args = [*bots(bot_dir), "--seed", "8", "--move-time", "5", "--sandbox", "none", "-k", "3", "--games", "30"]
    args += secret_file(tmp_path)
    local = referee("run", *args, "--jobs", "2", "--out", tmp_path / "local")
    assert local.returncode == 0, local.stderr
    folder = tmp_path / "cluster"
    stored, kept, _ = _interrupt_on_cluster(args, folder, 12)
    assert stored <= kept < 4 * 3 * 30
    _resume_to_local_standings(bot_dir, folder, tmp_path / "local")


def test_a_race_on_the_cluster_plays_the_local_schedule_and_keeps_its_bots_across_rounds(
    tmp_path: Path, bot_dir: Path
) -> None:
    """``--format race --cluster local:2``: the same rounds, games and standings as the embedded runner with the same
    seed and deal secret, and the workers' bots stay up from round to round as the lanes' do (one process per
    entrant, seat rotation and worker thread at most: three rounds started per round would need at least nine)."""
    manifest = bot_dir / "bots.toml"
    manifest.write_text("".join(f'[[bot]]\ncommand = "{n}.py"\nenv = {{ STARTED = "1" }}\n' for n in NAMES))
    race = ["--manifest", manifest, "--format", "race", "--top", "2", "--max-games", "72", *COMMON[:6]]
    race += ["-k", "3", *secret_file(tmp_path)]
    local = referee("run", *race, "--jobs", "2", "--out", tmp_path / "local")
    assert local.returncode == 0, local.stderr
    cluster = referee("run", *race, "--cluster", "local:2", "--out", tmp_path / "cluster")
    assert cluster.returncode == 0, cluster.stderr
    assert_same_standings(tmp_path / "cluster", tmp_path / "local")
    standings = json.loads((tmp_path / "cluster" / "standings.json").read_text())
    assert standings["format"] == "race" and standings["race"]["rounds"] == 3 and standings["games"] == 72
    assert "Race: stopped at --max-games 72" in cluster.stdout

    def schedule(folder: Path) -> list[tuple[object, ...]]:
        with sqlite3.connect(folder / "results.sqlite") as db:
            return db.execute("SELECT game_id, seat, entrant, score FROM seats ORDER BY game_id, seat").fetchall()

    assert schedule(tmp_path / "cluster") == schedule(tmp_path / "local")
    for folder in ("local", "cluster"):
        for name in NAMES:
            logs = (tmp_path / folder / "bots").glob(f"{name}.*.log")
            starts = sum(f.read_text().count("started ") for f in logs)
            assert 3 <= starts <= 3 * 2, (folder, name, starts)


def test_a_race_stopped_on_the_cluster_resumes_there_to_the_local_standings(tmp_path: Path, bot_dir: Path) -> None:
    """Ctrl-C in the middle of a cluster race keeps the finished games and closes every bot; ``--resume`` on the
    cluster replays the stored rounds and plays on to the standings of an uninterrupted local race."""
    manifest = bot_dir / "bots.toml"
    manifest.write_text("".join(f'[[bot]]\ncommand = "{n}.py"\nenv = {{ PAUSE = "0.002" }}\n' for n in NAMES))
    race = ["--manifest", manifest, "--format", "race", "--top", "2", "--max-games", "120", *COMMON[:6], "-k", "3"]
    race += secret_file(tmp_path)
    local = referee("run", *race, "--jobs", "2", "--out", tmp_path / "local")
    assert local.returncode == 0, local.stderr
    folder = tmp_path / "cluster"
    stored, kept, err = _interrupt_on_cluster(race, folder, 8)
    assert "games of the race" in err
    assert stored <= kept < 120
    _resume_to_local_standings(bot_dir, folder, tmp_path / "local")


def test_ctrl_c_reaches_the_games_of_a_task_in_play_and_stores_those_it_finished(tmp_path: Path, bot_dir: Path) -> None:
    """A task carries several games. Ctrl-C while every task is in play, each in the middle of a game, after a game
    of one of them has finished: the run is stopped within the tasks (the games in progress abandoned), the finished
    game is stored, the run exits 130, and ``--resume`` completes the local standings. The bots record each game they
    start in ``marks`` and hold (answer nothing) every game from the third on, while that folder exists: at most two
    games are ever played, one task at a time per worker, so when a third has started one task has finished a game,
    and no task of at least three games can end; the round of 36 games on 12 deals goes out in tasks of 9 and 3."""
    marks = tmp_path / "marks"
    manifest = bot_dir / "bots.toml"
    env = f'env = {{ MARKS = "{marks}", HOLD_FROM = "3" }}\n'
    manifest.write_text("".join(f'[[bot]]\ncommand = "{n}.py"\n{env}' for n in NAMES))
    args = ["--manifest", manifest, "--seed", "9", "--move-time", "60", "--sandbox", "none", "-k", "3", "--games", "3"]
    args += secret_file(tmp_path)
    local = referee("run", *args, "--jobs", "2", "--out", tmp_path / "local")  # no marks folder: no game held
    assert local.returncode == 0, local.stderr
    marks.mkdir()
    folder = tmp_path / "cluster"
    _, kept, _ = _interrupt_on_cluster(args, folder, 3, marks=marks)
    assert 1 <= kept <= 2  # the finished games came back from their tasks, stopped mid-game (none held is stored)
    shutil.rmtree(marks)  # the resumed run holds no game
    _resume_to_local_standings(bot_dir, folder, tmp_path / "local", cluster=False)  # (the tests above resume on it)
