"""The stalled-table check: a bot that keeps passing when passing changes nothing fails it, fast, and its fault is
printed once with every check it failed."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import trio

from referee.check import Outcome, junit_xml, plan_games, render_text, run_check
from referee.check.model import CheckResult, Evidence, distinct_faults
from referee.check.observe import STALL_LIMIT, GameRecord, stalled_turn
from referee.check.verdicts import Observations, SuiteGame, evaluate
from referee.runner import GameResult, parse_bot_spec
from tests.check.conftest import fast_options, runner_bot
from tests.check.test_units import player, turn

LONE_PASSER = Path(__file__).resolve().parents[1] / "bots" / "lone_passer.py"
STALL_TEXT = (
    "stalled: passed 10 times in a row on a stalled table (alone in the round): each pass costs a penalty chip and "
    "changes nothing, so in a contest this round runs on to the 1,000-turn limit. When nobody has played since your "
    "own last pass (and always when you are alone), play or drop instead (the stalled-table rule); the check stopped "
    "this game here"
)


def test_a_bot_that_passes_whenever_it_is_alone_fails_the_stalled_table_check_quickly() -> None:
    report = trio.run(run_check, parse_bot_spec(str(LONE_PASSER)), fast_options())
    stalled = report.check("stalled-table")
    assert stalled.outcome is Outcome.FAILED
    first = stalled.evidence[0]
    assert first.what == STALL_TEXT
    assert first.received == '{"type": "pass"}' and first.sent is not None and '"type":"turn"' in first.sent
    # Bounded: each stalled game stops after STALL_LIMIT passes in a row, long before a round's 1,000 turns.
    replies = report.check("move-time").figures["count"]
    assert replies < 100 * len(report.games)
    # Printed once, with the checks it failed.
    text = render_text(report)
    assert text.count("passed 10 times in a row on a stalled table") == 1
    (fault,) = [f for f in report.faults if f.evidence.what == STALL_TEXT]
    assert fault.checks[0] == "stalled-table" and "games-2-seats" in fault.checks
    assert f"      failed: {', '.join(fault.checks)}" in text
    assert "  FAIL  stalled-table" in text and "never keeps a round going to the turn limit: fault" in text
    # Unknown fields have nothing to do with it.
    assert report.check("tolerates-unknown").outcome is not Outcome.FAILED


def test_a_bot_that_passes_alone_a_few_times_is_warned() -> None:
    """Three passes alone, then a drop: the round ends, but the passes were on a stalled table."""
    spec = replace(parse_bot_spec(str(LONE_PASSER)), env={"LONE_PASSES": "3"})
    report = trio.run(run_check, spec, fast_options())
    result = report.check("stalled-table")
    assert result.outcome is Outcome.WARNED and report.passed
    passes, longest = result.figures["stalled_passes"], result.figures["longest_stall"]
    assert passes > 0 and 2 <= longest < STALL_LIMIT
    assert result.summary == (
        f"{passes} passes on a stalled table in 8 games (at most {longest} in a row), each a chip that changed "
        "nothing: when nobody has played since your own last pass, play or drop"
    )
    text = render_text(report)
    assert f"  WARN  stalled-table                   {result.summary}" in text
    assert text.splitlines()[-1].startswith("PASSED: ") and " 1 warned, 0 failed" in text.splitlines()[-1]
    assert "warning: " + result.summary in junit_xml(report)


def test_honest_bots_pass_it_without_a_warning() -> None:
    report = trio.run(run_check, runner_bot("honest"), fast_options(games=3))
    result = report.check("stalled-table")
    assert result.outcome is Outcome.PASSED
    assert result.summary == "no round stalled in 3 games"
    assert result.figures == {"stalled_passes": 0, "longest_stall": 0}


def test_a_stalled_table_is_the_own_last_pass_with_no_play_since() -> None:
    me_alone = [player(3, "dropped"), player(3, "playing")]
    assert stalled_turn(turn()) == (False, False)
    passed = [{"seat": 1, "action": "pass", "force": False, "penalty": 1}]
    assert stalled_turn(turn(history=passed)) == (True, False)
    assert stalled_turn(turn(history=passed, players=me_alone)) == (True, True)
    # Someone played since: the table moved.
    moved = [*passed, {"seat": 0, "action": "play", "value": 8, "count": 1, "bonus": 0, "penalty": 0}]
    assert stalled_turn(turn(history=moved)) == (False, False)
    # Another seat's pass, or a drop, does not move it.
    waited = [*passed, {"seat": 0, "action": "pass", "force": False, "penalty": 1}]
    assert stalled_turn(turn(history=waited)) == (True, False)
    assert STALL_LIMIT == 10


def test_the_same_fault_under_several_checks_is_one_fault() -> None:
    a = Evidence("unsolicited: a line arrived", "check-01", 1, 2, "{}", "x")
    b = Evidence("unsolicited: a line arrived", "check-02", 2, 5, "{}", "x")
    c = Evidence("crash: the bot exited: exit code 3", "check-03", 1, 1, "{}", None)
    checks = (
        CheckResult("stdout-protocol-only", "t", Outcome.FAILED, "s", (a, b)),
        CheckResult("games-2-seats", "t", Outcome.FAILED, "s", (a, c)),
        CheckResult("games-3-seats", "t", Outcome.FAILED, "s", (b,)),
        CheckResult("handshake", "t", Outcome.PASSED, "ok"),
    )
    faults = distinct_faults(checks)
    assert [(f.evidence, f.checks, f.times) for f in faults] == [
        (a, ("stdout-protocol-only", "games-2-seats", "games-3-seats"), 2),
        (c, ("games-2-seats",), 1),
    ]


def test_a_round_that_ran_to_the_turn_limit_fails_the_check() -> None:
    """A round that ends by the turn limit fails it even when no pass streak stopped the game (a bot that stalls
    with a ruleset's lower limit, or that waits with other moves)."""
    planned = plan_games(1, ("greedy",))[0]
    record = GameRecord(planned.game_id, False, limit_rounds=[2], max_turns=40)
    result = GameResult(planned.game_id, ("a", "b"), (5, 9), (1, 2), (), (), None, None, planned.deal)
    obs = Observations(move_time=1.0, grace=2.0, games=[SuiteGame(planned, False, result, record)])
    check = next(c for c in evaluate(obs) if c.name == "stalled-table")
    assert check.outcome is Outcome.FAILED
    assert check.evidence == (
        Evidence(
            "round 2 ran to the 40-turn limit: everyone still playing was dropped with a chip per card; when nobody "
            "has played since your own last pass, play or drop instead",
            planned.game_id,
            2,
        ),
    )
