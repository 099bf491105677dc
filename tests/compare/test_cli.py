"""``referee compare`` as a user runs it: real sample bots, exit statuses, --json, kill -9 and --resume, errors."""

from __future__ import annotations

import json
import shutil
import signal
import sqlite3
from pathlib import Path

import pytest

from tests.tournament.conftest import live_processes_under, referee
from tests.tournament.test_real_runs import start_referee, wait_for_games

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_bots"
KEYS = {"verdict", "test", "evidence", "thresholds", "blocks", "games", "cap_blocks", "mean_diff", "ci95", "warning"}
#: A quick panel (random_bot three times) and quick games: the sample bots answer at once.
FAST = ["--panel", "random_bot", "--panel", "random_bot", "--panel", "random_bot", "--move-time", "0.5"]
FAST += ["--sandbox", "none", "--jobs", "2", "--seed", "3"]


@pytest.fixture
def bots(tmp_path: Path) -> Path:
    """Copies of the sample bots in a folder of this test (leftover processes can be found by its path)."""
    folder = tmp_path / "bots"
    folder.mkdir()
    for name in ("greedy", "random_bot"):
        shutil.copy(SAMPLES / f"{name}.py", folder / f"{name}.py")
    shutil.copy(SAMPLES / "greedy.py", folder / "greedy_copy.py")
    return folder


def one_json(stdout: str) -> dict[str, object]:
    lines = [ln for ln in stdout.splitlines() if ln.strip()]
    assert len(lines) == 1, stdout
    data = json.loads(lines[0])
    assert isinstance(data, dict)
    return data


@pytest.mark.slow
def test_two_different_sample_bots_at_four_seats_reach_a_verdict(tmp_path: Path, bots: Path) -> None:
    out = tmp_path / "c"
    done = referee(
        "compare", bots / "greedy.py", bots / "random_bot.py", "-k", "4", *FAST, "--json", "-o", out, timeout=600
    )
    assert done.returncode == 0, done.stderr
    data = one_json(done.stdout)
    assert data.keys() >= KEYS
    assert data["verdict"] == "stronger" and data["test"] == "betting" and data["metric"] == "matchpoints"
    blocks = data["blocks"]
    assert isinstance(blocks, int) and 2 <= blocks <= 40 and data["games"] == 8 * blocks
    low, high = data["ci95"]  # type: ignore[misc]
    assert 0 <= low < data["mean_diff"] < high, "the confidence sequence agrees with the verdict"  # type: ignore[operator]
    assert data["evidence"]["stronger"] >= data["thresholds"]["stronger"]  # type: ignore[index,operator]
    assert f"block {blocks:>4}  games {8 * blocks:>5}  " in done.stderr, "progress goes to stderr with --json"
    assert "cap: " in done.stderr and "sized for power 95%" in done.stderr
    with sqlite3.connect(out / "results.sqlite") as db:
        stored = db.execute("SELECT count(*) FROM games").fetchone()[0]
    # with --jobs 2 the block in flight when the verdict came is finished and stored too (not counted)
    assert stored in (8 * blocks, 8 * (blocks + 1))
    assert len(list((out / "games").glob("*.jsonl.zst"))) == stored
    shown = referee("standings", out, "--json")
    assert shown.returncode == 0 and json.loads(shown.stdout)["games"] == stored
    again = referee("compare", "--resume", out, "--json")
    replayed = one_json(again.stdout)
    assert again.returncode == 0 and replayed["evidence"] == data["evidence"], "a finished comparison replays"
    assert live_processes_under(bots) == []


@pytest.mark.slow
def test_a_bot_compared_with_itself_is_not_stronger(tmp_path: Path, bots: Path) -> None:
    done = referee(
        "compare",
        bots / "greedy.py",
        bots / "greedy_copy.py",
        "-k",
        "4",
        *FAST,
        "--max-games",
        "96",
        # Deals come from a fresh secret and the random panel plays differently each run, so the verdict is random:
        # at the default alpha (5%) a bot is called stronger than itself in up to 1 run in 20 (seen in CI). The
        # guarantee under test is that rate; at alpha 0.001 a failure here means the test's error control is broken.
        "--alpha",
        "0.001",
        "--json",
        "-o",
        tmp_path / "c",
        timeout=600,
    )
    data = one_json(done.stdout)
    assert data["verdict"] in ("not stronger", "inconclusive")
    assert done.returncode == {"not stronger": 1, "inconclusive": 3}[data["verdict"]], done.stderr  # type: ignore[index]
    assert data["games"] <= 96


@pytest.mark.slow
def test_a_killed_comparison_resumes_and_finishes(tmp_path: Path, bots: Path) -> None:
    out = tmp_path / "c"
    args = ["compare", bots / "random_bot.py", bots / "greedy.py", "-k", "2", *FAST, "--metric", "points", "--d1", "40"]
    args += ["-o", out]
    proc = start_referee(*args, "--max-games", "400")
    try:
        wait_for_games(out / "results.sqlite", 10, proc)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
        proc.communicate()
    assert proc.returncode == -signal.SIGKILL
    with sqlite3.connect(out / "results.sqlite") as db:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        stored = db.execute("SELECT count(*) FROM games").fetchone()[0]
    assert 10 <= stored < 400, "killed midway"

    original = (bots / "random_bot.py").read_text()
    (bots / "random_bot.py").write_text(original + "# edited\n")
    edited = referee("compare", "--resume", out)
    assert edited.returncode == 2
    assert f"results folder {out}: new is not the program that played its games so far" in edited.stderr
    (bots / "random_bot.py").write_text(original)
    changed = referee("compare", "--resume", out, "--d1", "2")
    assert changed.returncode == 2
    assert changed.stderr.strip() == (
        f"referee compare: error: results folder {out}: it holds a comparison where --d1 was 40.0; now 2.0; "
        "use the same options, or another --out"
    )
    resumed = referee("compare", "--resume", out, "--json", timeout=600)
    data = one_json(resumed.stdout)
    assert resumed.returncode == {"stronger": 0, "not stronger": 1, "inconclusive": 3}[data["verdict"]]  # type: ignore[index]
    assert "block(s) already played" in resumed.stderr
    with sqlite3.connect(out / "results.sqlite") as db:
        ids = [r[0] for r in db.execute("SELECT game_id FROM games ORDER BY ordinal")]
    assert ids[: data["games"]] == [f"g{i:06d}" for i in range(1, data["games"] + 1)], "none missing or doubled"  # type: ignore[operator]
    assert live_processes_under(bots) == []


@pytest.mark.slow
def test_ctrl_c_stops_with_130_and_says_how_to_resume(tmp_path: Path, bots: Path) -> None:
    out = tmp_path / "c"
    proc = start_referee(
        "compare", bots / "random_bot.py", bots / "greedy.py", "-k", "2", *FAST, "--d1", "0.9", "-o", out
    )
    try:
        wait_for_games(out / "results.sqlite", 6, proc)
        busy = referee("compare", "--resume", out)
        assert busy.returncode == 1
        assert f"results folder {out} is in use by another referee (pid {proc.pid})" in busy.stderr
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, stderr
    assert "Traceback" not in stderr
    assert f"continue with: referee compare --resume {out}" in stderr
    assert live_processes_under(bots) == []


def test_a_comparison_folder_is_not_continued_as_a_tournament_and_vice_versa(tmp_path: Path, bots: Path) -> None:
    out = tmp_path / "c"
    done = referee(
        "compare", bots / "greedy.py", bots / "random_bot.py", "-k", "2", *FAST, "--max-games", "4", "-o", out
    )
    assert done.returncode in (1, 3), done.stderr
    run = referee("run", "--resume", out)
    assert run.returncode == 2
    assert (
        run.stderr.strip()
        == f"referee run: error: {out} holds a comparison: continue it with referee compare --resume {out}"
    )
    tournament = tmp_path / "t"
    assert (
        referee("run", bots / "greedy.py", bots / "random_bot.py", "--sandbox", "none", "-o", tournament).returncode
        == 0
    )
    again = referee("compare", "--resume", tournament)
    assert again.returncode == 2
    assert "holds a tournament, not a comparison" in again.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["a.py"], "give both NEW and OLD"),
        ([], "give NEW and OLD (bot files or command lines), or --resume FOLDER"),
        (["{g}", "{r}", "--alpha", "0.7"], "--alpha must be between 0 and 0.5 (exclusive), got 0.7"),
        (["{g}", "{r}", "--d0", "0.2", "--d1", "0.1"], "--d1 must be larger than --d0, got d0=0.2 and d1=0.1"),
        (["{g}", "{r}", "--d1", "1.5"], "--d1 must lie between -1 and 1 for this metric, got 1.5"),
        (["{g}", "{r}", "--max-games", "7"], "--max-games 7 is less than one block: a block at tables of 4 is 8 games"),
        (["{g}", "{r}", "--panel", "greedy", "-k", "4"], "a table of 4 needs at least 3 panel bot(s), got 1"),
        (["{g}", "{r}", "-k", "5"], "--table-size must be 2 to 4, got 5"),
        (["{g}", "{r}", "--jobs", "0"], "--jobs must be at least 1, got 0"),
        (["{g}", "{r}", "--panel", "nosuchbot"], "no sample bot named 'nosuchbot'"),
        (["{g}", "missing.py"], "missing.py"),
        (["--resume", "{tmp}/nothing"], "no comparison there (results.sqlite not found)"),
    ],
)
def test_usage_errors_are_one_line_and_exit_2(tmp_path: Path, bots: Path, args: list[str], message: str) -> None:
    values = {"g": bots / "greedy.py", "r": bots / "random_bot.py", "tmp": tmp_path}
    done = referee(
        "compare",
        *(a.format(**values) for a in args),
        "-o" if "--resume" not in args else "--json",
        *([tmp_path / "out"] if "--resume" not in args else []),
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("referee compare: error:"), lines
    assert message in done.stderr
    assert "Traceback" not in done.stderr
