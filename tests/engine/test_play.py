"""Play, pass, force, drop, finishing and the turn limit (RULES.md, "Playing a round", with its examples)."""

from __future__ import annotations

import pytest

from referee.engine import (
    DROP,
    OPENING,
    PASS,
    PASS_FORCE,
    STANDARD,
    DropEvent,
    IllegalMove,
    PassEvent,
    Phase,
    Play,
    PlayEvent,
    Ruleset,
    Status,
    apply,
    legal_actions,
)

from .helpers import HIGH, LOW, Plan, run, start


def two() -> object:
    return start(LOW, HIGH)


# --------------------------------------------------------------------------------------------- the opening


def test_the_holder_of_the_1_opens_and_that_is_the_only_legal_first_move() -> None:
    s = start(HIGH, LOW)  # seat 1 holds the 1
    assert s.phase is Phase.PLAY
    assert s.to_move == 1
    assert s.last is None
    assert legal_actions(s) == [OPENING]
    for wrong in (PASS, PASS_FORCE, DROP, Play(2), Play(1, 1, 1)):
        with pytest.raises(IllegalMove, match="the round opens with the 1"):
            apply(s, wrong)
    s = apply(s, OPENING)
    assert s.history == (PlayEvent(1, 1, 1, 0, 0),)
    assert s.last == 1
    assert s.to_move == 0  # seat 1 is followed by seat 0 in a game of 2
    assert s.penalty == (0, 0)
    assert s.bonus == (3, 3)


def test_play_moves_to_the_next_seat_up_and_wraps() -> None:
    s = start((2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13), (1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13), (*LOW[1:], 14))
    assert s.to_move == 1
    s = run(s, OPENING)
    assert s.to_move == 2
    s = run(s, PASS)
    assert s.to_move == 0
    s = run(s, PASS)
    assert s.to_move == 1


# --------------------------------------------------------------------------------------------- penalty arithmetic


def test_a_4_on_a_1_costs_2() -> None:
    """RULES.md, seed example: a 4 on a 1 skips 2 and 3."""
    s = run(two(), OPENING, Play(4))
    assert s.history[-1] == PlayEvent(1, 4, 1, 0, 2)
    assert s.penalty == (0, 2)
    assert s.last == 4


def test_an_11_on_an_8_costs_2() -> None:
    """RULES.md, seed example: seat 1 plays 8 on the 1 (6 chips), seat 0 an 11 on the 8 (2 chips)."""
    s = run(two(), OPENING, Play(8))
    assert s.penalty == (0, 6)
    s = run(s, Play(11))
    assert s.history[-1] == PlayEvent(0, 11, 1, 0, 2)
    assert s.penalty == (2, 6)


def test_an_equal_card_or_one_higher_is_free() -> None:
    """RULES.md: 2 on the 1 (one higher) and 2 on a 2 (equal) cost nothing."""
    s = run(two(), OPENING, Play(2), Play(2))
    assert [e.penalty for e in s.history] == [0, 0, 0]
    assert s.last == 2


def test_several_cards_of_one_value_cost_as_one() -> None:
    """RULES.md: three 7s on a 4 cost 2 chips, the same as one 7."""
    s = start((1, 4, 5, 6, 8, 9, 10, 11, 12, 13, 14, 15), (4, 7, 7, 7, 8, 9, 10, 11, 12, 13, 14, 15))
    s = run(s, OPENING, Play(4), Play(4), Play(7, 3))
    assert s.history[-1] == PlayEvent(1, 7, 3, 0, 2)
    assert s.hands[1] == (8, 9, 10, 11, 12, 13, 14, 15)


def test_a_bonus_chip_lets_a_lower_card_be_played() -> None:
    """RULES.md: on a 9, a 5 with one bonus chip is legal (5 >= 9 - 5) and free."""
    s = run(two(), OPENING, Play(9))
    s = run(s, Play(5, 1, 1))
    assert s.history[-1] == PlayEvent(0, 5, 1, 1, 0)
    assert s.bonus == (2, 3)
    assert s.last == 5


def test_a_bonus_chip_reduces_the_penalty() -> None:
    """RULES.md: a 10 on the 1 costs 8; with one bonus chip it costs 10 - (1 + 5) - 1 = 3."""
    s = run(two(), OPENING, Play(10, 1, 1))
    assert s.history[-1] == PlayEvent(1, 10, 1, 1, 3)
    assert s.penalty == (0, 3)
    assert s.bonus == (3, 2)


def test_spending_more_chips_than_needed_is_allowed_and_the_chips_are_gone() -> None:
    """RULES.md: a 3 on the 1 with 2 bonus chips: no penalty, both chips spent."""
    s = run(two(), OPENING, Play(3, 1, 2))
    assert s.history[-1] == PlayEvent(1, 3, 1, 2, 0)
    assert s.bonus == (3, 1)
    assert s.penalty == (0, 0)


def test_a_lower_card_without_a_bonus_chip_is_refused() -> None:
    s = run(two(), OPENING, Play(9))
    with pytest.raises(IllegalMove) as err:
        apply(s, Play(5))
    assert err.value.detail == "5 is lower than last 9 and no bonus chip was spent"


def test_too_few_bonus_chips_are_refused_with_the_number_needed() -> None:
    """RULES.md: on a 13, a 2 needs 3 chips (2 >= 13 - 5b first holds for b = 3)."""
    s = run(two(), OPENING, Play(13, 1, 2))
    assert s.penalty == (0, 1)  # 13 - (1 + 10) - 1
    with pytest.raises(IllegalMove) as err:
        apply(s, Play(2, 1, 2))
    assert err.value.detail == "2 is lower than last 13 even with 2 bonus chips (it needs 3)"
    s = apply(s, Play(2, 1, 3))
    assert s.history[-1] == PlayEvent(0, 2, 1, 3, 0)
    assert s.bonus == (0, 1)


def test_plays_are_legal_exactly_with_enough_chips() -> None:
    s = run(two(), OPENING, Play(9))
    plays = {(a.value, a.bonus) for a in legal_actions(s) if isinstance(a, Play)}
    # Seat 0 holds 2..12 and 3 chips: value v needs ceil((9 - v) / 5) chips and may spend more.
    expected = {(v, b) for v in range(2, 13) for b in range(4) if v >= 9 - 5 * b}
    assert plays == expected


def test_bonus_step_option_changes_what_a_chip_is_worth() -> None:
    s = run(start(LOW, HIGH, ruleset=Ruleset(bonus_step=2)), OPENING, Play(9))
    with pytest.raises(IllegalMove, match="it needs 3"):
        apply(s, Play(4, 1, 2))
    s = apply(s, Play(4, 1, 3))  # 4 >= 9 - 6
    assert s.history[-1].penalty == 0
    s = apply(s, Play(10, 1, 1))  # 10 - (4 + 2) - 1
    assert s.history[-1].penalty == 3


# --------------------------------------------------------------------------------------------- pass, force, drop


def test_pass_costs_1_and_does_not_change_last() -> None:
    s = run(two(), OPENING, PASS)
    assert s.history[-1] == PassEvent(1, False, 1)
    assert s.penalty == (0, 1)
    assert s.last == 1
    assert s.to_move == 0
    assert not s.forced


def test_pass_and_force_costs_2_and_forces_the_next_playing_seat() -> None:
    """RULES.md: the forced seat may play or drop, not pass (neither kind); the force ends with its action."""
    s = run(two(), OPENING, PASS_FORCE)
    assert s.history[-1] == PassEvent(1, True, 2)
    assert s.penalty == (0, 2)
    assert s.to_move == 0
    assert s.forced
    actions = legal_actions(s)
    assert PASS not in actions
    assert PASS_FORCE not in actions
    assert actions[-1] == DROP
    for wrong in (PASS, PASS_FORCE):
        with pytest.raises(IllegalMove) as err:
            apply(s, wrong)
        assert err.value.detail == "you are forced: you must play or drop, not pass"
    s = apply(s, Play(2))
    assert not s.forced
    assert PASS in legal_actions(s)


def test_force_falls_on_the_next_playing_seat_skipping_dropped_ones() -> None:
    s = start(LOW, HIGH, (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14))
    s = run(s, OPENING, DROP, PASS_FORCE)  # seat 1 drops; seat 2 forces seat 0
    assert s.to_move == 0
    assert s.forced


def test_a_forced_player_may_drop() -> None:
    s = run(two(), OPENING, PASS_FORCE, DROP)
    assert s.history[-1] == DropEvent(0, 11)
    assert s.status == (Status.DROPPED, Status.PLAYING)
    assert s.to_move == 1
    assert not s.forced


def test_force_is_not_allowed_when_nobody_else_is_playing() -> None:
    s = run(two(), OPENING, DROP)  # seat 1 drops; seat 0 plays on alone
    assert s.to_move == 0
    actions = legal_actions(s)
    assert PASS in actions
    assert PASS_FORCE not in actions
    with pytest.raises(IllegalMove) as err:
        apply(s, PASS_FORCE)
    assert err.value.detail == "pass and force needs another player still playing"


def test_drop_costs_one_chip_per_card_and_the_seat_is_skipped() -> None:
    three = start(LOW, HIGH, (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14))
    s = run(three, OPENING, DROP)
    assert s.history[-1] == DropEvent(1, 12)
    assert s.penalty == (0, 12, 0)
    assert s.status[1] is Status.DROPPED
    assert s.last == 1
    s = run(s, PASS)
    assert s.to_move == 0
    s = run(s, PASS)
    assert s.to_move == 2


def test_a_lone_player_plays_on_until_it_finishes_or_drops() -> None:
    s = run(two(), OPENING, DROP)
    s = run(s, PASS, Play(2), PASS)
    assert s.to_move == 0
    assert s.phase is Phase.PLAY
    s = run(s, DROP)
    assert s.round == 1  # the round ended: nobody is playing any more
    assert len(s.rounds_done) == 1
    assert s.rounds_done[0].history[-1] == DropEvent(0, 10)


# --------------------------------------------------------------------------------------------- finishing


def test_finishing_gives_back_the_refund_net_in_the_event() -> None:
    """RULES.md: a last card 12 on a 9 costs 2, less the refund of 3: the event says -1."""
    ruleset = Ruleset(hand_size=5, discard=3)
    s = start((1, 12), (5, 9), ruleset=ruleset)
    s = run(s, OPENING, Play(9))  # seat 1 pays 7
    s = run(s, Play(12, 1, 0))
    assert s.history[-1] == PlayEvent(0, 12, 1, 0, -1, finished=True)
    assert s.history[-1].to_dict() == {
        "seat": 0,
        "action": "play",
        "value": 12,
        "count": 1,
        "bonus": 0,
        "penalty": -1,
        "finished": True,
    }
    assert s.status == (Status.FINISHED, Status.PLAYING)
    assert s.penalty == (-1, 7)


def test_finishing_may_take_the_count_below_zero() -> None:
    """RULES.md: a player with no chips who finishes with a free play ends the round on -3."""
    s = start((1, 2, 2), (3, 4, 5), ruleset=Ruleset(hand_size=6, discard=3))
    s = run(s, OPENING, Play(3), Play(2, 2, 1))  # 2 on 3 with a chip, free; seat 0's hand is empty
    assert s.history[-1] == PlayEvent(0, 2, 2, 1, -3, finished=True)
    assert s.penalty[0] == -3


def test_chip_floor_stops_the_refund_at_zero_and_the_event_shows_the_actual_change() -> None:
    """RULES.md: with chip_floor, a player on 1 chip who finishes with a free play goes to 0 (event -1)."""
    ruleset = Ruleset(hand_size=6, discard=3, chip_floor=True)
    s = start((1, 2, 2), (3, 4, 5), ruleset=ruleset)
    s = run(s, OPENING, PASS, PASS, Play(3))  # one chip for each pass, seat 1 one more for the 3 on the 1
    assert s.penalty == (1, 2)
    s = run(s, Play(2, 2, 1))
    assert s.history[-1] == PlayEvent(0, 2, 2, 1, -1, finished=True)
    assert s.penalty == (0, 2)


def test_a_finished_player_is_skipped() -> None:
    s = start((1, 4), (2, 3), (5, 6), ruleset=Ruleset(hand_size=5, discard=3))
    s = run(s, OPENING, Play(2), PASS, Play(4))  # seat 0 finishes
    assert s.status[0] is Status.FINISHED
    assert s.to_move == 1
    s = run(s, PASS)
    assert s.to_move == 2
    s = run(s, PASS)
    assert s.to_move == 1


def test_the_opening_1_can_finish_a_one_card_hand() -> None:
    s = start((1,), (2,), ruleset=Ruleset(hand_size=4, discard=3))
    s = run(s, OPENING)
    assert s.history[-1] == PlayEvent(0, 1, 1, 0, -3, finished=True)


# ------------------------------------------------------------------------------------ rounds and the turn limit


def test_chips_carry_over_and_round_2_is_dealt_afresh() -> None:
    plan = Plan((LOW, HIGH), ((2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13), (1, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)))
    s = run(plan.start(), OPENING, Play(10, 1, 1), DROP, DROP)
    assert s.round == 1
    assert s.phase is Phase.DISCARD
    assert s.penalty == (11, 3 + 11)
    assert s.bonus == (3, 2)  # no new bonus chips in round 2
    assert s.hands == plan.deal[1]
    s = plan.discard(s)
    assert s.to_move == 1  # seat 1 holds the 1 in round 2
    assert s.history == ()
    assert s.last is None


def test_turn_limit_drops_everyone_still_playing() -> None:
    """RULES.md: with max_turns_per_round 4, after the 4th turn both players drop with the card penalty."""
    plan = Plan((LOW, HIGH), ruleset=Ruleset(max_turns_per_round=4))
    s = run(plan.start(), OPENING, PASS, Play(2), PASS)
    record = s.rounds_done[0]
    assert record.history[-2:] == (DropEvent(0, 10, limit=True), DropEvent(1, 12, limit=True))
    assert record.history[-1].to_dict() == {"seat": 1, "action": "drop", "penalty": 12, "limit": True}
    assert s.penalty == (10, 2 + 12)
    assert s.round == 1


def test_turn_limit_spares_players_who_are_done() -> None:
    plan = Plan((LOW, HIGH, (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14)), ruleset=Ruleset(max_turns_per_round=3))
    s = run(plan.start(), OPENING, DROP, PASS)
    assert s.rounds_done[0].history[-2:] == (DropEvent(0, 11, limit=True), DropEvent(2, 12, limit=True))


def test_a_round_that_ends_on_the_last_allowed_turn_has_no_limit_drops() -> None:
    s = run(start(LOW, HIGH, ruleset=Ruleset(max_turns_per_round=3, rounds=1)), OPENING, DROP, DROP)
    assert s.phase is Phase.OVER
    assert not any(getattr(e, "limit", False) for e in s.rounds_done[0].history)


def test_standard_ruleset_has_the_ruled_values() -> None:
    assert STANDARD.to_dict() == {
        "chip_floor": False,
        "rounds": 2,
        "hand_size": 15,
        "discard": 3,
        "start_bonus": 3,
        "bonus_step": 5,
        "finish_refund": 3,
        "bonus_refund": 2,
        "max_turns_per_round": 1000,
    }
