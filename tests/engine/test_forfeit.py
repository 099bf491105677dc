"""Forfeits in every phase (RULES.md, "Forfeit")."""

from __future__ import annotations

import pytest

from referee.engine import (
    DROP,
    OPENING,
    PASS,
    PASS_FORCE,
    Discard,
    DropEvent,
    IllegalMove,
    Phase,
    Play,
    PlayEvent,
    Ruleset,
    Status,
    apply,
    forfeit,
    new_game,
    observation_for,
)

from .helpers import HIGH, LOW, MID, Plan, run, start

SMALL = Ruleset(rounds=1, hand_size=5, discard=3)


def test_forfeit_before_discarding_gets_the_three_highest_cards_discarded_and_drops_at_the_opening() -> None:
    """RULES.md: seat 0 holds 1 20 21 22 23 and forfeits while discarding: the referee discards 21 22 23,
    plays its 1 and drops it with 1 chip (the 20); seat 1 takes the first turn."""
    s = new_game(2, SMALL, deal=(((1, 20, 21, 22, 23), (2, 3, 4, 5, 6)),))
    s = forfeit(s, 0)
    assert s.phase is Phase.DISCARD
    assert s.discards == ((21, 22, 23), None)
    assert s.forfeited == (True, False)
    s = apply(s, Discard(1, (4, 5, 6)))
    assert s.phase is Phase.PLAY
    assert s.history == (PlayEvent(0, 1, 1, 0, 0, forfeit=True), DropEvent(0, 1, forfeit=True))
    assert s.last == 1
    assert s.penalty == (1, 0)
    assert s.to_move == 1
    assert s.status == (Status.DROPPED, Status.PLAYING)


def test_forfeit_after_discarding_keeps_the_players_own_discard() -> None:
    plan = Plan((LOW, HIGH))
    s = apply(plan.new(), Discard(1, plan.discards[0][1]))
    s = forfeit(s, 1)
    assert s.discards[1] == plan.discards[0][1]
    assert s.phase is Phase.DISCARD
    s = plan.discard(s)
    assert s.history == (DropEvent(1, 12, forfeit=True),)
    assert s.to_move == 0
    assert s.last is None  # seat 0 still opens with its 1


def test_forfeit_on_its_own_turn_moves_the_turn_on_and_ends_the_force() -> None:
    s = run(start(LOW, HIGH, MID), OPENING, PASS_FORCE)
    assert (s.to_move, s.forced) == (2, True)
    s = forfeit(s, 2)
    assert s.history[-1] == DropEvent(2, 12, forfeit=True)
    assert s.penalty == (0, 2, 12)
    assert (s.to_move, s.forced) == (0, False)
    assert s.turns == 2  # a forfeit is not a turn


def test_forfeit_out_of_turn_leaves_the_turn_where_it_is() -> None:
    s = run(start(LOW, HIGH, MID), OPENING)
    s = forfeit(s, 2)
    assert s.to_move == 1
    assert s.status[2] is Status.DROPPED
    s = run(s, PASS)
    assert s.to_move == 0  # seat 2 is skipped


def test_holder_of_the_unplayed_1_forfeits_the_referee_plays_it_then_drops_them() -> None:
    """RULES.md: seat 1 holds the 1 and forfeits before playing it: a play of the 1 (no penalty) and a drop
    (11 chips for the 11 cards left), both marked as forfeits; seat 2 moves next with last = 1."""
    s = start(HIGH, LOW, MID)
    assert s.to_move == 1
    s = forfeit(s, 1)
    assert s.history == (PlayEvent(1, 1, 1, 0, 0, forfeit=True), DropEvent(1, 11, forfeit=True))
    assert s.last == 1
    assert s.to_move == 2
    assert s.penalty == (0, 11, 0)
    assert [e.to_dict() for e in s.history] == [
        {"seat": 1, "action": "play", "value": 1, "count": 1, "bonus": 0, "penalty": 0, "forfeit": True},
        {"seat": 1, "action": "drop", "penalty": 11, "forfeit": True},
    ]


def test_another_seat_forfeiting_before_the_opening_does_not_play_the_1() -> None:
    s = forfeit(start(HIGH, LOW, MID), 0)
    assert s.history == (DropEvent(0, 12, forfeit=True),)
    assert s.last is None
    assert s.to_move == 1


def test_forfeit_of_the_last_playing_seat_ends_the_round_and_it_drops_first_in_the_next() -> None:
    plan = Plan((LOW, HIGH))
    s = run(plan.start(), OPENING, DROP)
    s = forfeit(s, 0)
    assert len(s.rounds_done) == 1
    assert s.rounds_done[0].history[-1] == DropEvent(0, 11, forfeit=True)
    # Round 2: the referee discards for seat 0 at once; seat 0 holds the 1 this round (default plan).
    assert s.phase is Phase.DISCARD
    dealt = plan.deal[1][0]
    assert s.discards[0] == tuple(sorted(c for c in dealt if c != 1)[-3:])
    s = plan.discard(s)
    assert s.history == (PlayEvent(0, 1, 1, 0, 0, forfeit=True), DropEvent(0, 11, forfeit=True))
    assert s.to_move == 1
    assert s.penalty == (11 + 11, 12 + 0)


def test_forfeit_after_finishing_adds_no_entry_this_round_but_drops_in_the_next() -> None:
    ruleset = Ruleset(hand_size=5, discard=3)
    plan = Plan(((1, 4), (2, 3)), ((2, 3), (1, 4)), ruleset=ruleset)
    s = run(plan.start(), OPENING, Play(2), Play(4))  # seat 0 finishes
    before = s.history
    s = forfeit(s, 0)
    assert s.history == before
    assert s.status[0] is Status.FINISHED
    assert s.forfeited == (True, False)
    s = run(s, DROP)  # seat 1 drops; round 2
    s = plan.discard(s)
    assert s.history[0] == DropEvent(0, 2, forfeit=True)
    assert s.to_move == 1


def test_a_forfeiter_is_ranked_below_every_other_player_whatever_its_score() -> None:
    """RULES.md: seat 0 forfeits on 11 chips (score 11 - 6 = 5), seat 1 ends on 13 (score 7): ranks 2 and 1."""
    s = run(start(LOW, HIGH, ruleset=Ruleset(rounds=1)), OPENING, PASS)
    s = forfeit(s, 0)
    s = run(s, DROP)
    assert s.phase is Phase.OVER
    assert s.scores == (5, 7)
    assert s.ranks == (2, 1)


def test_every_player_forfeiting_still_ends_the_game() -> None:
    plan = Plan((LOW, HIGH))
    s = forfeit(forfeit(plan.new(), 0), 1)
    assert s.phase is Phase.OVER
    assert len(s.rounds_done) == 2
    for record in s.rounds_done:
        assert all(e.forfeit for e in record.history)
    # Each round: seat 0 (holding the 1) gets it played and drops 11 cards, seat 1 drops 12.
    assert s.penalty == (22, 24)
    assert s.scores == (22 - 6, 24 - 6)
    assert s.ranks == (1, 2)  # forfeiters among themselves by score


def test_many_rounds_of_forfeiters_end_without_deep_recursion() -> None:
    """Regression: rounds that end as they begin were chained by recursion (RecursionError past ~330 rounds)."""
    ruleset = Ruleset(rounds=3000, hand_size=2, discard=1)
    s = new_game(2, ruleset, seed=5)
    s = forfeit(forfeit(s, 0), 1)
    assert s.phase is Phase.OVER
    assert len(s.rounds_done) == 3000


def test_forfeit_is_public_in_the_other_seats_observation() -> None:
    s = forfeit(run(start(LOW, HIGH), OPENING), 1)
    obs = observation_for(s, 0)
    assert obs.history[-1].to_dict() == {"seat": 1, "action": "drop", "penalty": 12, "forfeit": True}


@pytest.mark.parametrize(
    ("make", "seat", "reason"),
    [
        (lambda: forfeit(start(LOW, HIGH), 1), 1, "seat 1 has already forfeited"),
        (lambda: start(LOW, HIGH), 2, "there is no seat 2"),
        (lambda: start(LOW, HIGH), -1, "there is no seat -1"),
        (lambda: start(LOW, HIGH), "0", "there is no seat '0'"),
        (lambda: run(start(LOW, HIGH, ruleset=Ruleset(rounds=1)), OPENING, DROP, DROP), 0, "the game is over"),
    ],
)
def test_forfeit_refuses_what_cannot_forfeit(make, seat, reason) -> None:  # type: ignore[no-untyped-def]
    s = make()
    with pytest.raises(IllegalMove) as err:
        forfeit(s, seat)
    assert err.value.detail == reason
