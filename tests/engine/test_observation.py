"""What a seat may see (observation_for), the discard phase, and the fixed order of legal_actions."""

from __future__ import annotations

import pytest

from referee.engine import (
    DROP,
    OPENING,
    PASS,
    PASS_FORCE,
    Discard,
    Observation,
    Phase,
    Play,
    PlayerView,
    Ruleset,
    Status,
    apply,
    discard_options,
    legal_actions,
    legal_actions_for,
    new_game,
    observation_for,
)

from .helpers import HIGH, LOW, MID, Plan, run, start


def test_an_observation_holds_exactly_the_turn_message_fields() -> None:
    assert Observation._fields == ("seat", "round", "hand", "last", "forced", "to_move", "players", "history")


def test_an_observation_shows_the_own_hand_and_the_public_table_only() -> None:
    plan = Plan((LOW, HIGH, MID))
    s = run(plan.start(), OPENING, PASS_FORCE)
    obs = observation_for(s, 2)
    assert obs.seat == 2
    assert obs.round == 1
    assert obs.hand == MID
    assert obs.last == 1
    assert obs.forced is True
    assert obs.to_move == 2
    assert obs.players == (
        PlayerView(11, 0, 3, Status.PLAYING),
        PlayerView(12, 2, 3, Status.PLAYING),
        PlayerView(12, 0, 3, Status.PLAYING),
    )
    assert [e.to_dict() for e in obs.history] == [
        {"seat": 0, "action": "play", "value": 1, "count": 1, "bonus": 0, "penalty": 0},
        {"seat": 1, "action": "pass", "force": True, "penalty": 2},
    ]
    other = observation_for(s, 0)
    assert other.forced is False  # the force concerns seat 2 only
    assert other.hand == LOW[1:]


def test_discards_are_private_and_simultaneous() -> None:
    plan = Plan((LOW, HIGH))
    s = plan.new()
    assert s.phase is Phase.DISCARD
    s = apply(s, Discard(1, plan.discards[0][1]))
    assert s.phase is Phase.DISCARD  # waiting for seat 0; seat 1 was free to go first
    obs = observation_for(s, 0)
    assert obs.hand == plan.deal[0][0]
    assert obs.players[1].cards == 12
    assert obs.history == ()
    s = apply(s, Discard(0, plan.discards[0][0]))
    assert s.phase is Phase.PLAY
    # Seat 0 discarded 23 23 23 and seat 1 22 22 22: neither value shows up anywhere in the other's view.
    assert plan.discards[0] == ((23, 23, 23), (22, 22, 22))
    for seat, hidden in ((0, 22), (1, 23)):
        obs = observation_for(s, seat)
        assert obs.hand == s.hands[seat]
        assert hidden not in _ints(obs)


def test_observation_for_a_seat_not_in_the_game_raises_index_error() -> None:
    with pytest.raises(IndexError, match="there is no seat 3 in a game of 2"):
        observation_for(start(LOW, HIGH), 3)


def test_legal_actions_order_plays_by_value_count_bonus_then_pass_force_drop() -> None:
    """RULES.md: on a 4, with 2 2 5 9 in hand and 1 bonus chip."""
    ruleset = Ruleset(hand_size=8, discard=3, start_bonus=1)
    s = run(start((1, 2, 2, 5, 9), (3, 4, 4, 6, 7), ruleset=ruleset), OPENING, Play(4))
    assert s.hands[0] == (2, 2, 5, 9)
    expected = [
        Play(2, 1, 1),
        Play(2, 2, 1),
        Play(5, 1, 0),
        Play(5, 1, 1),
        Play(9, 1, 0),
        Play(9, 1, 1),
        PASS,
        PASS_FORCE,
        DROP,
    ]
    assert legal_actions(s) == expected
    assert legal_actions_for(observation_for(s, 0), ruleset) == expected


def test_legal_discards_are_listed_by_seat_then_lexicographically_without_the_1_or_repeats() -> None:
    ruleset = Ruleset(rounds=1, hand_size=4, discard=2)
    s = new_game(2, ruleset, deal=(((1, 2, 3, 3), (2, 4, 4, 5)),))
    assert legal_actions(s) == [
        Discard(0, (2, 3)),
        Discard(0, (3, 3)),
        Discard(1, (2, 4)),
        Discard(1, (2, 5)),
        Discard(1, (4, 4)),
        Discard(1, (4, 5)),
    ]
    s = apply(s, Discard(1, (4, 4)))
    assert legal_actions(s) == [Discard(0, (2, 3)), Discard(0, (3, 3))]
    assert discard_options((1, 2, 2, 2), 3) == [(2, 2, 2)]
    assert discard_options((1, 5), 0) == [()]


def test_no_discard_phase_when_the_ruleset_discards_nothing() -> None:
    s = new_game(2, Ruleset(discard=0), seed=3)
    assert s.phase is Phase.PLAY
    assert s.discards == ((), ())
    assert all(len(h) == 15 for h in s.hands)


def _ints(value: object) -> list[int]:
    """Every integer anywhere inside ``value`` (tuples and named tuples, recursively)."""
    if isinstance(value, int):
        return [value]
    if isinstance(value, tuple):
        return [i for item in value for i in _ints(item)]
    return []
