"""Every misbehaving bot fails `referee check` with the right check named; honest bots pass."""

from __future__ import annotations

import pytest

from referee.check import CheckReport, Outcome
from tests.check.conftest import check_all, fast_options, flawed_bot, runner_bot

# The runner's misbehaving bots (tests/bots/) and the check each must fail. network.py, snoop.py, tmp_filler.py
# and inspect_env.py test the sandbox and the limits (they misbehave only when those let them through), and
# JavaBot.java needs a JVM: none of them is a protocol fault.
RUNNER_CASES: dict[str, tuple[str, dict[str, str], str]] = {
    "crash_start": ("crash_start", {}, "handshake"),
    "old_protocol": ("old_protocol", {}, "protocol-version"),
    "invalid_json": ("invalid_json", {}, "stdout-protocol-only"),
    "not_object": ("not_object", {}, "stdout-protocol-only"),
    "long_line": ("long_line", {}, "stdout-protocol-only"),
    "flood": ("flood", {}, "stdout-protocol-only"),
    # It answers round_end: whether the line is found before the next deal or read as its reply, a stdout fault.
    "stray": ("stray", {}, "stdout-protocol-only"),
    "bad_fields": ("bad_fields", {}, "reply-fields"),
    "unknown_type": ("unknown_type", {}, "reply-fields"),
    "wrong_type": ("wrong_type", {}, "reply-fields"),
    "crash_mid": ("crash_mid", {}, "stays-alive"),
    "closed_stdout": ("closed_stdout", {}, "stays-alive"),
    "fork_child": ("fork_child", {}, "stays-alive"),
    "hang": ("hang", {}, "move-time"),
    "slow": ("slow", {"SLOW_SECONDS": "3"}, "move-time"),
    "ignore_term": ("ignore_term", {}, "move-time"),
    "deaf": ("deaf", {}, "move-time"),
    "fork_bomb": ("fork_bomb", {}, "move-time"),
    # Its memory cap (the OOM kill: a crash) or its move deadline, whichever comes first on the machine: both stop it.
    "memory_hog": ("memory_hog", {}, "move-time|stays-alive"),
    "illegal-opening": ("illegal", {"ILLEGAL": "opening"}, "situation-holds-the-1"),
    "illegal-too_low": ("illegal", {"ILLEGAL": "too_low"}, "situation-only-lower-cards"),
    "illegal-pass_forced": ("illegal", {"ILLEGAL": "pass_forced"}, "situation-forced"),
    "illegal-force_alone": ("illegal", {"ILLEGAL": "force_alone"}, "situation-last-player-in-round"),
    "illegal-not_held": ("illegal", {"ILLEGAL": "not_held"}, "legal-moves"),
    "illegal-bonus_over": ("illegal", {"ILLEGAL": "bonus_over"}, "legal-moves"),
    "illegal-discard_count": ("illegal", {"ILLEGAL": "discard_count"}, "legal-discards"),
    "illegal-discard_one": ("illegal", {"ILLEGAL": "discard_one"}, "situation-holds-the-1"),
    "illegal-discard_unheld": ("illegal", {"ILLEGAL": "discard_unheld"}, "legal-discards"),
}
# Flaws only the conformance suite looks for (tests/bots/flawed.py).
FLAWED_CASES = {
    "ignores-bye": "exit-on-bye",
    "strict-fields": "tolerates-unknown",
    "answers-unknown": "tolerates-unknown",
    "junk-in-round-2": "situation-round-2",
    "crash-when-forced": "situation-forced",
    "lower-without-bonus": "situation-only-lower-cards",
    "slow-without-bonus": "situation-no-bonus-chips",
    "force-when-alone": "situation-last-player-in-round",
    "skips-the-1": "situation-holds-the-1",
    "version-2": "protocol-version",
    "wrong-discard-count": "legal-discards",
    "chatty-at-end": "stdout-protocol-only",
}
HONEST = ("honest", "legal_random", "forcer", "stderr_flood")


@pytest.fixture(scope="module")
def reports() -> dict[str, CheckReport]:
    specs = {key: runner_bot(bot, **env) for key, (bot, env, _) in RUNNER_CASES.items()}
    specs.update({f"flawed-{flaw}": flawed_bot(flaw) for flaw in FLAWED_CASES})
    specs.update({name: runner_bot(name) for name in HONEST})
    specs["flawed-none"] = flawed_bot("none")
    # A fault that shows on the first turn needs few games; a situation needs every deal kind.
    situational = {k for k, (_, _, check) in RUNNER_CASES.items() if check.startswith("situation")}
    situational |= {f"flawed-{f}" for f, check in FLAWED_CASES.items() if check.startswith("situation")}
    situational |= {*HONEST, "flawed-none"}
    options = {k: fast_options() if k in situational else fast_options(games=3) for k in specs}
    return check_all(specs, options, at_once=8)


@pytest.mark.parametrize("key", sorted(RUNNER_CASES))
def test_runner_misbehaving_bot_fails_the_right_check(reports: dict[str, CheckReport], key: str) -> None:
    report = reports[key]
    either = RUNNER_CASES[key][2].split("|")
    assert not report.passed
    expected = next((name for name in either if name in report.failed_names), None)
    assert expected is not None, report.failed_names
    failed = report.check(expected)
    assert failed.evidence, "a failed check says where"


@pytest.mark.parametrize("flaw", sorted(FLAWED_CASES))
def test_flawed_bot_fails_the_right_check(reports: dict[str, CheckReport], flaw: str) -> None:
    report = reports[f"flawed-{flaw}"]
    expected = FLAWED_CASES[flaw]
    assert expected in report.failed_names, report.failed_names


@pytest.mark.parametrize("key", [*HONEST, "flawed-none"])
def test_honest_bots_pass(reports: dict[str, CheckReport], key: str) -> None:
    report = reports[key]
    assert report.passed, report.failed_names


def test_evidence_names_game_round_message_and_line(reports: dict[str, CheckReport]) -> None:
    e = reports["invalid_json"].check("stdout-protocol-only").evidence[0]
    assert e.game is not None and e.game.startswith("check-")
    assert e.round == 1 and e.turn is not None
    assert e.sent is not None and '"type":"turn"' in e.sent
    assert e.received is not None and e.received.strip()


def test_discarding_the_1_fails_both_its_check_and_its_situation(reports: dict[str, CheckReport]) -> None:
    failed = reports["illegal-discard_one"].failed_names
    assert "legal-discards" in failed and "situation-holds-the-1" in failed
    e = reports["illegal-discard_one"].check("situation-holds-the-1").evidence[0]
    assert e.sent is not None and '"type":"deal"' in e.sent


def test_a_fault_fails_only_the_checks_it_concerns(reports: dict[str, CheckReport]) -> None:
    failed = set(reports["flawed-wrong-discard-count"].failed_names)
    assert "legal-discards" in failed
    assert not failed & {"handshake", "protocol-version", "legal-moves", "move-time", "exit-on-bye"}


def test_situation_fault_names_the_situation_not_others(reports: dict[str, CheckReport]) -> None:
    report = reports["flawed-crash-when-forced"]
    assert report.check("situation-forced").outcome is Outcome.FAILED
    assert report.check("situation-holds-the-1").outcome is Outcome.PASSED
    assert report.check("stays-alive").outcome is Outcome.FAILED


def test_handshake_failure_skips_what_it_cannot_reach(reports: dict[str, CheckReport]) -> None:
    report = reports["crash_start"]
    assert report.failed_names == ("handshake",)
    assert report.check("games-2-seats").outcome is Outcome.SKIPPED
    assert report.games == ()


def test_an_answer_to_round_end_is_a_stdout_fault_that_names_round_end(reports: dict[str, CheckReport]) -> None:
    report = reports["stray"]
    assert "reply-fields" not in report.failed_names
    assert all("after round_end, which needs no reply" in f.evidence.what for f in report.faults)


def test_a_failed_gate_quotes_the_offending_line(reports: dict[str, CheckReport]) -> None:
    """The ladder's gate reason for a bot that broke the wire names the check and shows the line it sent, as
    ``referee check`` does; an author sees what to fix without running the check locally."""
    from referee.ladder.gate import gate_reasons

    reasons = gate_reasons(reports["invalid_json"].to_dict())
    line = next(r for r in reasons if r.startswith("stdout-protocol-only: "))
    assert line.endswith(
        '(received: {"type": "play", "value": 8,); stdout carries protocol lines only: write logs and debug lines '
        "to stderr"
    ), line
    assert all("\n" not in r for r in reasons)


def test_a_gate_failed_by_a_bot_that_ended_says_its_last_stderr_line(reports: dict[str, CheckReport]) -> None:
    """A bot that ends before its hello (a script not found, an exception) left why on stderr: the gate's first
    reason ends with that line (a newcomer saw only "the bot closed its input: exit code 2 before its hello
    reply"); the reason quoting a received line has no need of it."""
    from referee.ladder.gate import gate_reasons

    ended = reports["crash_start"].to_dict()
    assert gate_reasons(ended) == [r for r in gate_reasons(ended) if "stderr" not in r]  # it wrote nothing
    ended["stderr_tail"] = ["Traceback (most recent call last):", "FileNotFoundError: weights.bin\x1b[2J", "  "]
    first = gate_reasons(ended)[0]
    assert first.startswith("handshake: ") and first.endswith(
        "(its stderr ends: FileNotFoundError: weights.bin\\x1b[2J)"
    )
    quoting = reports["invalid_json"].to_dict() | {"stderr_tail": ["debug"]}
    assert not any("its stderr ends" in r for r in gate_reasons(quoting))
