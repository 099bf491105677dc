"""Tournaments of real bot processes through the ``referee`` command: kill -9 and resume, Ctrl-C, faults."""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import BOT as RANDOM_BOT
from .conftest import live_processes_under, referee

COMMON = ["--seed", "2024", "--move-time", "5", "--jobs", "2", "--sandbox", "none", "-k", "3"]


def start_referee(*args: object, own_group: bool = False) -> subprocess.Popen[str]:
    """``referee ARGS``, output piped; ``own_group``: in a process group of its own (as a shell's job)."""
    return subprocess.Popen(
        [sys.executable, "-m", "referee", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=own_group,
    )


def wait_for_games(db: Path, count: int, proc: subprocess.Popen[str], timeout: float = 60) -> int:
    """Poll the results database until it holds at least ``count`` games; returns how many it holds."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        assert proc.poll() is None, "the referee ended before it was stopped"
        if db.exists():
            try:
                with sqlite3.connect(db, timeout=5) as conn:
                    n = conn.execute("SELECT count(*) FROM games").fetchone()[0]
            except sqlite3.OperationalError:
                n = 0
            if n >= count:
                return int(n)
        time.sleep(0.02)
    raise AssertionError(f"no {count} games within {timeout} s")


def bots(bot_dir: Path) -> list[Path]:
    return [bot_dir / f"{n}.py" for n in ("alpha", "beta", "gamma", "delta")]


def test_killed_run_resumes_to_the_same_standings(tmp_path: Path, bot_dir: Path) -> None:
    whole = tmp_path / "whole"
    done = referee("run", *bots(bot_dir), *COMMON, "--games", "12", "--out", whole)
    assert done.returncode == 0, done.stderr
    expected = json.loads((whole / "standings.json").read_text())
    assert expected["games"] == 4 * 3 * 12
    # The same seed deals other cards without the same deal secret: the one the whole run revealed.
    secret = tmp_path / "secret.txt"
    secret.write_text(expected["deals"]["secret"] + "\n")
    whole_deals = expected.pop("deals")

    part = tmp_path / "part"
    proc = start_referee("run", *bots(bot_dir), *COMMON, "--games", "12", "--out", part, "--deal-secret", secret)
    try:
        wait_for_games(part / "results.sqlite", 20, proc)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
        proc.communicate()
    assert proc.returncode == -signal.SIGKILL
    with sqlite3.connect(part / "results.sqlite") as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = conn.execute("SELECT count(*) FROM games").fetchone()[0]
        seats = conn.execute("SELECT count(*) FROM seats").fetchone()[0]
    assert 20 <= stored < 144, "killed midway"
    assert seats == 3 * stored, "only whole games are stored"

    resumed = referee("run", "--resume", part)
    assert resumed.returncode == 0, resumed.stderr
    assert f"{stored}/144 games already played" in resumed.stdout
    got = json.loads((part / "standings.json").read_text())
    part_deals = got.pop("deals")
    assert got == expected
    assert (part_deals["commitment"], part_deals["secret"]) == (whole_deals["commitment"], whole_deals["secret"])
    with sqlite3.connect(part / "results.sqlite") as conn:
        ids = [r[0] for r in conn.execute("SELECT game_id FROM games ORDER BY ordinal")]
    assert ids == [f"g{i:06d}" for i in range(1, 145)], "no game duplicated or missing"

    shown = referee("standings", part, "--json")
    assert shown.returncode == 0 and json.loads(shown.stdout) == {**expected, "deals": part_deals}
    table = referee("standings", part)
    assert table.returncode == 0 and "alpha" in table.stdout and "Head to head" in table.stdout


def test_ctrl_c_stops_cleanly_and_keeps_finished_games(tmp_path: Path, bot_dir: Path) -> None:
    out = tmp_path / "t"
    proc = start_referee("run", *bots(bot_dir), *COMMON, "--games", "200", "--out", out)
    try:
        wait_for_games(out / "results.sqlite", 10, proc)
        proc.send_signal(signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    with sqlite3.connect(out / "results.sqlite") as conn:
        stored = conn.execute("SELECT count(*) FROM games").fetchone()[0]
    assert 10 <= stored < 2400
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert f"Standings after {stored} games" in stdout
    assert f"continue with: referee run --resume {out}" in stderr
    assert json.loads((out / "standings.json").read_text())["games"] == stored
    assert live_processes_under(bot_dir) == [], "every bot process is ended"


def test_faults_are_attributed_to_the_entrant_at_fault(tmp_path: Path, bot_dir: Path) -> None:
    modes = {"crasher": "crash", "hanger": "hang", "liar": "illegal", "noisy": "garbage", "mute": "nohello"}
    lines = ['[[bot]]\nname = "honest"\ncommand = "python3 alpha.py"\n']
    for name, mode in modes.items():
        lines.append(f'[[bot]]\nname = "{name}"\ncommand = "python3 alpha.py"\nenv = {{ MISBEHAVE = "{mode}" }}\n')
    (bot_dir / "bots.toml").write_text("\n".join(lines))
    out = tmp_path / "t"
    args = ["--manifest", bot_dir / "bots.toml", "-k", "2", "--move-time", "0.3", "--startup-time", "2"]
    done = referee("run", *args, "--out", out, "--seed", "1", "--sandbox", "none")
    assert done.returncode == 0, done.stderr
    data = json.loads((out / "standings.json").read_text())
    forfeits = {e["name"]: e["forfeits"] for e in data["entrants"]}
    games = 15 * 2  # C(6, 2) tables, 2 rotations each
    assert data["games"] == games
    assert forfeits == {
        "honest": {},
        "crasher": {"crash": 10},
        "hanger": {"timeout": 10},
        "liar": {"illegal_move": 10},
        "noisy": {"invalid_json": 10},
        "mute": {"startup": 10},
    }
    ranks = {e["name"]: e["mean_rank"] for e in data["entrants"]}
    assert ranks["honest"] == 1.0, "it never faults, so it places above every forfeiter"
    with sqlite3.connect(out / "results.sqlite") as conn:
        wrong = conn.execute(
            "SELECT count(*) FROM faults f JOIN seats s USING (game_id, seat) WHERE s.entrant != f.entrant "
            "OR s.forfeit = 0"
        ).fetchone()[0]
    assert wrong == 0
    assert "crasher: 10 forfeit(s)" in done.stdout
    assert live_processes_under(bot_dir) == []


def test_play_table_is_a_picklable_unit_that_replays_the_same_games(tmp_path: Path, bot_dir: Path) -> None:
    """What a cluster executor ships: one table batch with plain inputs, played elsewhere, same games as locally."""
    import pickle

    from referee.tournament import ResultsStore, make_schedule, play_table, seat_rows

    out = tmp_path / "t"
    done = referee("run", *bots(bot_dir)[:3], *COMMON, "--out", out)
    assert done.returncode == 0, done.stderr
    with ResultsStore(out, create=False) as store:
        params = store.params()
        assert params is not None
        stored = {g.game_id: g.seats for g in store.games()}
        secret = store.deal_secret()
    batch = make_schedule(params.names, table_size=3, repeats=1, seed=2024, secret=secret)[0]
    args = pickle.loads(pickle.dumps((batch, params)))
    played = play_table(*args, str(tmp_path / "elsewhere"))
    played = pickle.loads(pickle.dumps(played))
    assert [p.game.game_id for p in played] == [g.game_id for g in batch.games]
    for p in played:
        assert seat_rows(p.game.seats, p.result) == stored[p.game.game_id]
    assert sorted(f.name for f in (tmp_path / "elsewhere" / "games").iterdir()) == [
        f"{g.game_id}.jsonl.zst" for g in batch.games
    ]
    assert live_processes_under(bot_dir) == []


@pytest.mark.sandbox
@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
def test_manifest_bots_run_in_the_sandbox(tmp_path: Path, bot_dir: Path) -> None:
    """Under bubblewrap a bot sees only its own folder: manifest commands must point the sandbox at the script's."""
    (tmp_path / "contest").mkdir()
    shutil.copytree(bot_dir, tmp_path / "contest" / "bots")
    (tmp_path / "contest" / "bots.toml").write_text(
        f'[[bot]]\nname = "one"\ncommand = "python3 {tmp_path / "contest" / "bots" / "alpha.py"}"\n\n'
        '[[bot]]\nname = "two"\ncommand = "python3 bots/beta.py"\n\n'
        '[[bot]]\nname = "three"\ncommand = "beta.py"\ncwd = "bots"\n'
    )
    out = tmp_path / "t"
    done = referee("run", "--manifest", tmp_path / "contest" / "bots.toml", "--sandbox", "bwrap", "--out", out)
    assert done.returncode == 0, done.stderr
    data = json.loads((out / "standings.json").read_text())
    assert data["games"] == 3
    assert {e["name"]: e["forfeits"] for e in data["entrants"]} == {"one": {}, "two": {}, "three": {}}


def test_contest_layout_entrants_are_named_after_their_folders(tmp_path: Path) -> None:
    """``referee run bots/*/bot.py``: every entrant is bot.py; the standings name them after their folders, and one
    line on stderr says why."""
    for person in ("alice", "bob"):
        (tmp_path / "bots" / person).mkdir(parents=True)
        shutil.copy(RANDOM_BOT, tmp_path / "bots" / person / "bot.py")
    files = sorted((tmp_path / "bots").glob("*/bot.py"))
    done = referee("run", *files, "--seed", "1", "--sandbox", "none", "--games", "1", "--out", tmp_path / "out")
    assert done.returncode == 0, done.stderr
    assert (
        "referee run: 2 entrants are called 'bot' (their file's name); each takes its folder's name instead: "
        "alice, bob" in done.stderr.splitlines()
    )
    standings = json.loads((tmp_path / "out" / "standings.json").read_text())
    assert sorted(e["name"] for e in standings["entrants"]) == ["alice", "bob"]
