"""`referee check` on the command line: reports in three forms, exit codes 0 / 1 / 2, clear usage errors."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path

from click.testing import CliRunner

from referee.cli import main
from tests.check.conftest import FLAWED, RUNNER_BOTS

FAST = ["--games", "3", "--move-time", "1.0", "--sandbox", "none", "--opponent", str(RUNNER_BOTS / "honest.py")]


def test_a_passing_bot_exits_0_with_json_and_junit(tmp_path: Path) -> None:
    junit = tmp_path / "reports" / "honest.xml"
    result = CliRunner().invoke(main, ["check", str(RUNNER_BOTS / "honest.py"), *FAST, "--json", "--junit", str(junit)])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["passed"] is True and data["name"] == "honest"
    assert len(data["games"]) == 4  # three planned games and the one with unknown fields
    move_time = next(c for c in data["checks"] if c["name"] == "move-time")
    assert set(move_time["figures"]) >= {"median_ms", "p99_ms", "max_ms", "move_time_ms"}
    # Issue 17: wall and CPU time of the replies, both (the CPU time of the bot's processes for each reply).
    cpu = move_time["figures"]["cpu"]
    assert cpu["count"] == move_time["figures"]["count"] > 0 and 0 <= cpu["median_ms"] <= cpu["max_ms"]
    assert "CPU per reply: median" in move_time["summary"]
    situations = [c for c in data["checks"] if c["name"].startswith("situation-")]
    assert len(situations) == 6
    assert all(isinstance(c["figures"]["reached"], int) for c in situations)
    assert all((c["outcome"] == "passed") == (c["figures"]["reached"] > 0) for c in situations)
    suite = ET.parse(junit).getroot().find("testsuite")
    assert suite is not None and suite.get("failures") == "0"
    assert len(list(suite.iter("testcase"))) == len(data["checks"])


def test_a_failing_bot_exits_1_and_names_the_check(tmp_path: Path) -> None:
    logs = tmp_path / "logs"
    result = CliRunner().invoke(main, ["check", str(RUNNER_BOTS / "invalid_json.py"), *FAST, "--logs", str(logs)])
    assert result.exit_code == 1, result.output
    assert "FAIL  stdout-protocol-only" in result.output
    assert "failed checks:" in result.output and "received:" in result.output
    assert list(logs.glob("check-*.jsonl")), "game logs are kept with --logs"


def test_a_command_line_bot_with_arguments(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["check", f"python {FLAWED} version-2", *FAST, "--name", "v2"])
    assert result.exit_code == 1
    assert result.output.startswith("referee check v2")
    assert "FAIL  protocol-version" in result.output


def test_usage_errors_exit_2_with_one_clear_line(tmp_path: Path) -> None:
    runner = CliRunner()
    missing = runner.invoke(main, ["check", str(tmp_path / "nope.py")])
    assert missing.exit_code == 2 and "not found" in missing.output and "Traceback" not in missing.output
    bad_games = runner.invoke(main, ["check", str(RUNNER_BOTS / "honest.py"), "--games", "0"])
    assert bad_games.exit_code == 2
    bad_time = runner.invoke(main, ["check", str(RUNNER_BOTS / "honest.py"), "--move-time", "-1"])
    assert bad_time.exit_code == 2 and "move-time" in bad_time.output
    bad_opponent = runner.invoke(main, ["check", str(RUNNER_BOTS / "honest.py"), "--opponent", "no_such_bot"])
    assert bad_opponent.exit_code == 2 and "no sample bot named 'no_such_bot'" in bad_opponent.output
    no_bot = runner.invoke(main, ["check"])
    assert no_bot.exit_code == 2


def test_a_crashing_bot_shows_its_stderr(tmp_path: Path) -> None:
    bot = tmp_path / "broken.py"
    bot.write_text(
        "import json, sys\n"
        "for line in sys.stdin:\n"
        "    msg = json.loads(line)\n"
        "    if msg['type'] == 'hello':\n"
        "        print(json.dumps({'type': 'hello', 'protocol': 1, 'name': 'broken'}), flush=True)\n"
        "    elif msg['type'] == 'deal':\n"
        "        raise RuntimeError('my discard code is broken')\n",
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["check", str(bot), *FAST])
    assert result.exit_code == 1
    assert "FAIL  stays-alive" in result.output
    assert "the bot's stderr, last lines:" in result.output
    assert "RuntimeError: my discard code is broken" in result.output


def test_stray_output_after_the_last_game_is_caught() -> None:
    # One game per table: the line written after game_end is found only by the look after the last game.
    args = ["check", f"python {FLAWED} chatty-at-end", "--games", "1", "--jobs", "2", "--sandbox", "none"]
    result = CliRunner().invoke(main, [*args, "--opponent", str(RUNNER_BOTS / "honest.py"), "--json"])
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    check = next(c for c in report["checks"] if c["name"] == "stdout-protocol-only")
    assert check["outcome"] == "failed"
    assert {e["received"] for e in check["evidence"]} == {"good game"}
    assert all('"type":"game_end"' in e["sent"] for e in check["evidence"])
    assert all(not g["faulted"] for g in report["games"]), "no game was forfeited for it"
