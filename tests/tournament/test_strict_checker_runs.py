"""Every number the referee sends is the one an honest bot recomputes from the messages: copies of
``tests/bots/strict_checker.py`` (which knows only PROTOCOL.md and RULES.md, no referee code) play ``referee run``
tournaments at ``--jobs 1``, ``--jobs 2`` and ``--jobs 2 --lane-processes``, with a bot that crashes mid-game
(forfeits in the histories), under the standard ruleset and under one with short hands, a chip floor and a short
turn limit (finishes, floored refunds and limit drops), and none of them finds a number it disagrees with: tables,
hands, histories, costs, turn order, last, forced, the legal moves, scores, ranks and forfeits."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from referee.runner.gamelog import log_content

from .conftest import referee

BOTS = Path(__file__).resolve().parents[1] / "bots"
CHECKER = BOTS / "strict_checker.py"


def _field(folder: Path, checkers: int) -> list[Path]:
    folder.mkdir()
    shutil.copy(BOTS / "_base.py", folder / "_base.py")
    shutil.copy(BOTS / "crash_mid.py", folder / "crash_mid.py")
    names = [folder / f"strict_{chr(97 + i)}.py" for i in range(checkers)]
    for name in names:
        shutil.copy(CHECKER, name)
    return [*names, folder / "crash_mid.py"]


@pytest.mark.parametrize("lanes", [["--jobs", "1"], ["--jobs", "2"], ["--jobs", "2", "--lane-processes"]])
@pytest.mark.parametrize("rules", ["standard", "short"])
def test_the_strict_checker_finds_every_number_right(tmp_path: Path, lanes: list[str], rules: str) -> None:
    bots = _field(tmp_path / "bots", 3)
    extra: list[object] = []
    if rules == "short":
        ruleset = tmp_path / "rules.json"
        ruleset.write_text(json.dumps({"max_turns_per_round": 10, "chip_floor": True, "hand_size": 8, "discard": 2}))
        extra = ["--rules", ruleset]
    out = tmp_path / "out"
    secret = tmp_path / "secret.hex"
    secret.write_text("5a" * 32)  # with --seed, the same deals every run: ones with a limit drop and a finish
    done = referee(
        "run", *bots, "-k", "3", "--games", "8", *lanes, "--seed", 7, "--deal-secret", secret,
        "--sandbox", "none", "--move-time", 5, "--out", out, *extra, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    logs = "".join(p.read_text() for p in sorted((out / "bots").glob("strict_*.log")))
    assert [line for line in logs.splitlines() if line.startswith("INCONSISTENT")] == []
    assert "strict checker: 0 inconsistencies" in logs  # the checkers ran to their end
    assert "Traceback" not in logs
    histories = "".join(log_content(p).decode() for p in (out / "games").glob("*.jsonl.zst"))
    assert '"forfeit":true' in histories
    if rules == "short":
        assert '"limit":true' in histories and '"finished":true' in histories


def test_the_strict_checker_reports_a_wrong_number() -> None:
    """It can fail: a turn before the opening whose ``last`` is not null, and a table whose chips are wrong."""
    rules = {"chip_floor": False, "rounds": 2, "hand_size": 15, "discard": 3, "start_bonus": 3, "bonus_step": 5,
             "finish_refund": 3, "bonus_refund": 2, "max_turns_per_round": 1000}  # fmt: skip
    hand = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]
    table = [{"name": n, "cards": 12, "penalty": 0, "bonus": 3, "status": "playing"} for n in ("a", "b")]
    table[1]["bonus"] = 2
    messages = [
        {"type": "hello", "protocol": 1},
        {"type": "game_start", "game": "g", "seat": 0, "players": ["a", "b"], "rules": rules, "time": {"move_ms": 1}},
        {"type": "deal", "game": "g", "round": 1, "hand": hand, "discard": 3},
    ]
    text = "".join(json.dumps(m) + "\n" for m in messages)
    seeded = {"STRICT_SEED": "1"}  # the same discard in both runs
    done = subprocess.run(
        [sys.executable, str(CHECKER)], input=text, capture_output=True, text=True, timeout=60, env=seeded
    )
    discard = json.loads(done.stdout.splitlines()[1])["cards"]
    kept = sorted(c for c in hand if c not in discard)
    turn = {"type": "turn", "game": "g", "round": 1, "seat": 0, "hand": kept, "last": 5, "forced": False,
            "players": table, "history": []}  # fmt: skip
    done = subprocess.run(
        [sys.executable, str(CHECKER)],
        input=text + json.dumps(turn) + "\n" + '{"type":"bye"}\n',
        capture_output=True,
        text=True,
        timeout=60,
        env=seeded,
    )
    problems = [line for line in done.stderr.splitlines() if line.startswith("INCONSISTENT")]
    assert any("last 5 != None" in p for p in problems), done.stderr
    assert any("seat 1: table says" in p for p in problems), done.stderr
    assert not any(" hand " in p for p in problems), done.stderr  # its own hand is as it kept it
    assert "strict checker: 3 inconsistencies" in done.stderr  # and the legal moves it was not sent
