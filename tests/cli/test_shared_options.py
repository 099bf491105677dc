"""Options shared by play, check and run: --limit (bot resource limits) and --rules (ruleset files)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import main
from referee.runner import read_log
from referee.runner.gamelog import log_content

BOTS = Path(__file__).resolve().parents[1] / "bots"
HONEST = str(BOTS / "honest.py")


def _referee(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )


@pytest.mark.parametrize("command", ["play", "check", "run"])
@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("colour=3", "expected NAME=VALUE with NAME one of"),
        ("memory", "expected NAME=VALUE"),
        ("memory=lots", "must be a positive number"),
        ("processes=0", "must be a positive number"),
    ],
)
def test_a_bad_limit_is_a_one_line_usage_error(command: str, value: str, message: str) -> None:
    args = [command, HONEST] + ([HONEST] if command != "check" else []) + ["--limit", value]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output


def test_a_limit_reaches_the_bot_process(tmp_path: Path) -> None:
    """Under an 8 MB address-space limit Python cannot even load libc, so the bot fails its start-up; 4G plays."""
    log = tmp_path / "g.jsonl"
    tight = _referee(
        "play", HONEST, HONEST, "--seed", "3", "--sandbox", "none", "--limit", "memory=8M",
        "--log", str(log), "--json", cwd=tmp_path,
    )  # fmt: skip
    assert tight.returncode == 0, tight.stderr
    result = json.loads(tight.stdout)
    assert result["forfeits"] == [0, 1]
    assert {f["kind"] for f in result["faults"]} == {"startup"}
    roomy = _referee(
        "play", HONEST, HONEST, "--seed", "3", "--sandbox", "none", "--limit", "memory=4G", "--json", cwd=tmp_path
    )
    assert roomy.returncode == 0 and json.loads(roomy.stdout)["faults"] == []


def test_play_with_a_ruleset_file_sends_it_to_the_bots(tmp_path: Path) -> None:
    (tmp_path / "rules.json").write_text('{"rounds": 1, "chip_floor": true}')
    log = tmp_path / "g.jsonl"
    proc = _referee("play", HONEST, HONEST, "--seed", "1", "--rules", "rules.json", "--log", str(log), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    text = log.read_text()
    assert '"rounds":1' in text.replace(" ", "") and '"chip_floor":true' in text.replace(" ", "")
    assert read_log(log) is not None


def test_run_keeps_its_ruleset_and_limits_and_a_resume_must_match(tmp_path: Path) -> None:
    (tmp_path / "one.json").write_text('{"rounds": 1}')
    (tmp_path / "two.json").write_text('{"rounds": 2}')
    first = _referee(
        "run", HONEST, HONEST, "--seed", "4", "--out", "t", "--rules", "one.json", "--limit", "open_files=128",
        "--sandbox", "none", cwd=tmp_path,
    )  # fmt: skip
    assert first.returncode == 0, first.stderr
    logs = [log_content(p).decode() for p in sorted((tmp_path / "t" / "games").glob("*.jsonl.zst"))]
    assert logs and all('"round_end"' in text for text in logs)
    # One round per game: no deal of round 2 was ever sent.
    assert all('"round":2' not in text.replace(" ", "") for text in logs)
    # Resuming without the options takes the stored ones; different ones are refused in one line.
    again = _referee("run", "--resume", "t", cwd=tmp_path)
    assert again.returncode == 0, again.stderr
    other_rules = _referee("run", "--resume", "t", "--rules", "two.json", cwd=tmp_path)
    assert other_rules.returncode == 2 and "the ruleset was" in other_rules.stderr
    other_limit = _referee("run", "--resume", "t", "--limit", "open_files=64", cwd=tmp_path)
    assert other_limit.returncode == 2 and "--limit was" in other_limit.stderr
    assert "Traceback" not in other_rules.stderr + other_limit.stderr


def test_run_refuses_a_ruleset_that_cannot_deal_its_tables_before_any_game(tmp_path: Path) -> None:
    (tmp_path / "big.json").write_text('{"hand_size": 34}')  # 68 cards for two players; the deck holds 66
    proc = _referee("run", HONEST, HONEST, "--out", "t", "--rules", "big.json", cwd=tmp_path)
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "referee run: error: ruleset option hand_size (34) is too large for 2 players: 68 cards needed, "
        "the deck holds 66"
    ]
    assert not (tmp_path / "t").exists()


@pytest.mark.parametrize(
    ("rules", "message"),
    [
        # Each round is dealt before the game: a billion rounds took gigabytes before the first move, and the
        # referee did not stop on SIGTERM meanwhile.
        ('{"rounds": 1000000000}', "ruleset option rounds (1000000000) is more than the referee plays in a game"),
        # The line bound used to build these lines whole: a MemoryError, an OverflowError.
        ('{"max_turns_per_round": 1000000000}', "could have to send a line of more than"),
        ('{"max_turns_per_round": 100000000000000000000000}', "could have to send a line of more than"),
        ('{"hand_size": 1000000000}', "hand_size (1000000000) is too large for 2 players"),  # play hung on it
        ('{"rounds": 1%s}' % ("0" * 5000), "is not JSON"),  # over Python's 4,300 digits for an integer
        ("[" * 100000, "is nested too deeply to read"),
    ],
)
def test_play_refuses_an_outsized_ruleset_file_in_one_line(tmp_path: Path, rules: str, message: str) -> None:
    (tmp_path / "rules.json").write_text(rules)
    proc = _referee("play", HONEST, HONEST, "--rules", "rules.json", "--log", "g.jsonl", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0], proc.stderr
    assert not (tmp_path / "g.jsonl").exists()
