"""Ctrl-C keeps every finished game: README ("Scaling out") says the workers of ``--jobs N`` stop with the referee,
"every finished game stored". A game whose log is complete (it ends in its ``result`` line) when the referee is
interrupted has finished, so it must be in the results, at ``--jobs 1`` and ``--jobs 2`` (lanes in the referee's
process) and with ``--lane-processes`` (a worker process per lane, which sends each game back as it ends). The
interrupt comes while a game is finished but perhaps not yet stored, or after a few stored games."""

from __future__ import annotations

import shutil
import sqlite3
import time
from pathlib import Path

import pytest

from referee.runner.gamelog import log_content
from referee.runner.logrecords import LogError

from .test_hostile_bots_in_lanes import ctrl_c
from .test_real_runs import start_referee

BOTS = Path(__file__).resolve().parents[1] / "bots"


def _stored(db: Path) -> set[str]:
    if not db.exists():
        return set()
    try:
        with sqlite3.connect(db, timeout=5) as conn:
            return {row[0] for row in conn.execute("SELECT game_id FROM games")}
    except sqlite3.OperationalError:
        return set()


def _finished_logs(games: Path) -> set[str]:
    """The games whose log ends in its ``result`` line."""
    done = set()
    for log in games.glob("*.jsonl.zst") if games.exists() else ():
        try:
            data = log_content(log)
        except LogError:  # cut short: not complete
            continue
        if data.endswith(b"\n") and data.rsplit(b"\n", 2)[-2].startswith(b'{"event":"result"'):
            done.add(log.name.removesuffix(".jsonl.zst"))
    return done


@pytest.mark.parametrize("lanes", [["--jobs", "1"], ["--jobs", "2"], ["--jobs", "2", "--lane-processes"]])
def test_an_interrupted_run_stores_every_game_whose_log_is_complete(tmp_path: Path, lanes: list[str]) -> None:
    folder = tmp_path / "bots"
    folder.mkdir()
    shutil.copy(BOTS / "_base.py", folder / "_base.py")
    bots = []
    for name in ("alpha", "beta", "gamma", "delta"):
        shutil.copy(BOTS / "steady.py", folder / f"{name}.py")  # 0.2 s a turn in round 2: a table takes seconds
        bots.append(folder / f"{name}.py")
    out = tmp_path / "out"
    args = ["run", *bots, "-k", "4", "--games", "20", *lanes, "--seed", "3", "--sandbox", "none"]
    proc = start_referee(*args, "--move-time", "5", "--out", out, own_group=True)

    def finished_or_stored() -> None:
        """A game that has finished but is not stored yet (with --jobs 1 there is none for long: each game is stored
        as it ends), or a few stored games."""
        end = time.monotonic() + 90
        while time.monotonic() < end:
            assert proc.poll() is None, "the run ended before it was interrupted"
            stored = _stored(out / "results.sqlite")
            if len(stored) >= 3 or (_finished_logs(out / "games") - stored):
                return
            time.sleep(0.05)

    stderr = ctrl_c(proc, finished_or_stored)
    assert proc.returncode == 130, stderr
    finished = _finished_logs(out / "games")
    assert finished, "no game finished before the interrupt"
    assert finished - _stored(out / "results.sqlite") == set(), "a finished game was not stored"
