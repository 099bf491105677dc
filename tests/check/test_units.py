"""The suite's pure parts: situations from turn messages, the game plan and its deals, latency, report forms."""

from __future__ import annotations

import dataclasses
import json
import xml.etree.ElementTree as ET
from collections import Counter

import pytest

from referee.check import (
    CheckReport,
    CheckResult,
    DealKind,
    Evidence,
    Outcome,
    Situation,
    build_deal,
    junit_xml,
    latency,
    plan_games,
    render_text,
    situations_of_turn,
)
from referee.engine import DECK, STANDARD, validate_deal


def turn(**changes: object) -> dict[str, object]:
    msg: dict[str, object] = {
        "type": "turn",
        "game": "g",
        "round": 1,
        "seat": 1,
        "hand": [3, 9, 12],
        "last": 7,
        "forced": False,
        "players": [
            {"name": "a", "cards": 10, "penalty": 0, "bonus": 3, "status": "playing"},
            {"name": "b", "cards": 3, "penalty": 0, "bonus": 2, "status": "playing"},
        ],
        "history": [],
    }
    msg.update(changes)
    return msg


def player(bonus: int, status: str) -> dict[str, object]:
    return {"name": "x", "cards": 5, "penalty": 0, "bonus": bonus, "status": status}


# ------------------------------------------------------------------------------------------------ situations


def test_an_ordinary_turn_is_no_situation() -> None:
    assert situations_of_turn(turn()) == frozenset()


def test_each_situation_is_recognised() -> None:
    assert situations_of_turn(turn(hand=[1, 5], last=None)) == {Situation.HOLDS_ONE}
    assert situations_of_turn(turn(forced=True)) == {Situation.FORCED}
    assert situations_of_turn(turn(hand=[3, 6], last=7)) == {Situation.ONLY_LOWER}
    assert situations_of_turn(turn(round=2)) == {Situation.ROUND_TWO}
    assert situations_of_turn(turn(players=[player(3, "playing"), player(0, "playing")])) == {Situation.NO_BONUS}
    alone = [player(3, "finished"), player(2, "playing"), player(1, "dropped")]
    assert situations_of_turn(turn(players=alone)) == {Situation.LAST_PLAYING}


def test_a_card_equal_to_last_is_not_lower() -> None:
    assert Situation.ONLY_LOWER not in situations_of_turn(turn(hand=[3, 7], last=7))


def test_situations_combine() -> None:
    msg = turn(round=2, forced=True, hand=[2], last=20, players=[player(0, "dropped"), player(0, "playing")])
    assert situations_of_turn(msg) == set(Situation) - {Situation.HOLDS_ONE}


# ------------------------------------------------------------------------------------------------ plan


def test_plan_is_deterministic_and_covers_seats_and_kinds() -> None:
    plan = plan_games(24, ("a", "b", "c"))
    assert plan == plan_games(24, ("a", "b", "c"))
    assert Counter(g.seats for g in plan) == {2: 8, 3: 8, 4: 8}
    assert {g.kind for g in plan} == set(DealKind)
    assert len({g.game_id for g in plan}) == 24
    for g in plan:
        assert len(g.lineup) == g.seats and g.lineup[g.seat] is None
        assert all(name in ("a", "b", "c") for s, name in enumerate(g.lineup) if s != g.seat)
        validate_deal(g.deal, STANDARD)
    assert {g.seat for g in plan if g.seats == 4} == {0, 1, 2, 3}
    assert plan_games(24, ("a",), seed=1) != plan_games(24, ("a",), seed=2)


def test_every_opponent_plays() -> None:
    plan = plan_games(12, ("a", "b", "c", "d"))
    assert {n for g in plan for n in g.lineup if n is not None} == {"a", "b", "c", "d"}


@pytest.mark.parametrize("seats", [2, 3, 4])
@pytest.mark.parametrize("seat_pick", [0, -1])
def test_deal_kinds_give_the_bot_what_they_promise(seats: int, seat_pick: int) -> None:
    seat = seat_pick % seats
    opener = build_deal(DealKind.OPENER, 5, seats, seat)
    assert all(1 in hands[seat] for hands in opener)
    under = build_deal(DealKind.UNDERDOG, 5, seats, seat)
    mine = under[0][seat]
    assert 1 in mine and all(max(mine) <= min(h) for s, h in enumerate(under[0]) if s != seat)
    closer = build_deal(DealKind.CLOSER, 5, seats, seat)
    mine = closer[0][seat]
    assert 1 in mine
    assert all(sorted(mine)[1] >= max(h) for s, h in enumerate(closer[0]) if s != seat)
    for deal in (opener, under, closer):
        validate_deal(deal, STANDARD)
        # Rearranged, never invented: each round holds the same cards as the seeded deal.
        seeded = build_deal(DealKind.SEEDED, 5, seats, seat)
        for mine_round, base_round in zip(deal, seeded, strict=True):
            assert sorted(c for h in mine_round for c in h) == sorted(c for h in base_round for c in h)
        assert all(Counter(c for h in r for c in h) <= Counter(DECK) for r in deal)


def test_plan_refuses_nonsense() -> None:
    with pytest.raises(ValueError):
        plan_games(0, ("a",))
    with pytest.raises(ValueError):
        plan_games(3, ())


# ------------------------------------------------------------------------------------------------ latency


def test_latency_figures() -> None:
    lat = latency([5.0, 1.0, 3.0, 2.0])
    assert (lat.count, lat.median_ms, lat.max_ms) == (4, 2.5, 5.0)
    assert latency([float(i) for i in range(1, 201)]).p99_ms == 198.0
    assert latency([7.0]).p99_ms == 7.0
    assert latency([]).count == 0


# ------------------------------------------------------------------------------------------------ report forms


def sample_report() -> CheckReport:
    bad = Evidence("invalid json: not JSON", "check-02", 1, 4, '{"type":"turn"}', "oops\x00\x1b[31m")
    return CheckReport(
        bot="bot",
        name="my bot",
        checks=(
            CheckResult("handshake", "answers hello", Outcome.PASSED, "answered hello as 'x'"),
            CheckResult("stdout-protocol-only", "protocol only", Outcome.FAILED, "invalid json", (bad,)),
            CheckResult("situation-forced", "being forced", Outcome.SKIPPED, "not reached"),
        ),
        games=(),
        seconds=1.5,
    )


def test_junit_has_one_case_per_check_with_failure_and_skip() -> None:
    root = ET.fromstring(junit_xml(sample_report()))
    suite = root.find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures"), suite.get("skipped")) == ("3", "1", "1")
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert set(cases) == {"handshake", "stdout-protocol-only", "situation-forced"}
    failure = cases["stdout-protocol-only"].find("failure")
    assert failure is not None and failure.text is not None
    assert "game check-02, round 1, turn 4" in failure.text and '{"type":"turn"}' in failure.text
    assert "\\x00" in failure.text  # a control character a bot sent is shown, not written raw
    assert cases["situation-forced"].find("skipped") is not None
    assert cases["handshake"].find("failure") is None
    assert suite.find("system-err") is None


def test_junit_and_text_carry_the_bots_stderr() -> None:
    report = dataclasses.replace(sample_report(), stderr_tail=("Traceback (most recent call last):", "KeyError: 'x'"))
    suite = ET.fromstring(junit_xml(report)).find("testsuite")
    assert suite is not None
    err = suite.find("system-err")
    assert err is not None and err.text is not None and "KeyError: 'x'" in err.text
    assert "    | KeyError: 'x'" in render_text(report)


def test_text_report_names_failures_with_evidence() -> None:
    text = render_text(sample_report())
    assert "FAIL  stdout-protocol-only" in text
    assert 'sent:     {"type":"turn"}' in text
    assert "game check-02, round 1, turn 4" in text
    assert "failed checks: stdout-protocol-only" in text
    assert text.splitlines()[-2].startswith("FAILED: 1 passed, 1 failed, 1 not reached")


def test_json_form_round_trips() -> None:
    data = json.loads(json.dumps(sample_report().to_dict()))
    assert data["passed"] is False
    assert [c["outcome"] for c in data["checks"]] == ["passed", "failed", "skipped"]
    assert data["checks"][1]["evidence"][0]["round"] == 1
