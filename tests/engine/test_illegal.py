"""Illegal actions raise IllegalMove with a reason a bot author understands, and change nothing."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from referee.engine import (
    DROP,
    OPENING,
    PASS,
    Action,
    Discard,
    IllegalMove,
    Pass,
    Play,
    Ruleset,
    State,
    apply,
    legal_actions,
)

from .helpers import HIGH, LOW, Plan, run, start


def opened() -> State:
    return run(start(LOW, HIGH), OPENING, Play(9))  # seat 0 to move, last 9


def discarding() -> State:
    return Plan((LOW, HIGH)).new()


CASES: list[tuple[Callable[[], State], object, str]] = [
    (opened, Play(5), "5 is lower than last 9 and no bonus chip was spent"),
    (opened, Play(13), "you hold no 13"),
    (opened, Play(10, 2), "you play 2 cards of 10 but hold 1"),
    (opened, Play(10, 0), "count must be at least 1, got 0"),
    (opened, Play(10, 1, -1), "bonus must not be negative, got -1"),
    (opened, Play(10, 1, 4), "you spend 4 bonus chips but hold 3"),
    (opened, Play(10.0, 1, 0), "value, count and bonus of a play are integers, got 10.0, 1, 0"),  # type: ignore[arg-type]
    (opened, Play(10, True, 0), "value, count and bonus of a play are integers, got 10, True, 0"),
    (opened, Pass("yes"), "force of a pass is true or false, got 'yes'"),  # type: ignore[arg-type]
    (opened, Discard(0, (10, 11, 12)), "discards are made at the start of a round, not in the play phase"),
    (opened, (10, 1, 0), "not an action: (10, 1, 0)"),
    (lambda: start(LOW, HIGH), DROP, "the round opens with the 1: play value 1, count 1, bonus 0"),
    (lambda: start(LOW, HIGH), Play(1, 1, 1), "the round opens with the 1: play value 1, count 1, bonus 0"),
    (discarding, PASS, "no turn is due: the game is in the discard phase"),
    (discarding, Discard(0, (1, 23, 23)), "the 1 may not be discarded"),
    (discarding, Discard(0, (23, 23)), "a discard names exactly 3 cards, got 2"),
    (discarding, Discard(0, (13, 23, 23)), "you discard 13 but hold no 13"),
    (discarding, Discard(0, (2, 2, 23)), "you discard 2 cards of 2 but hold 1"),
    (discarding, Discard(2, (2, 3, 4)), "there is no seat 2 in a game of 2"),
    (discarding, Discard(0, "abc"), "a discard is a list of cards (integers), got 'abc'"),  # type: ignore[arg-type]
    (discarding, Discard(0, (2, 3, "4")), "a discard is a list of cards (integers), got (2, 3, '4')"),  # type: ignore[arg-type]
    (lambda: apply(discarding(), Discard(0, (23, 23, 23))), Discard(0, (2, 3, 4)), "seat 0 has already discarded"),
]


# Fields of the wrong type are refused even where they compare equal to a legal action (10.0 == 10, True == 1):
# the engine records what it accepts, and a history entry must carry integers.
@pytest.mark.parametrize(("make", "action", "reason"), CASES)
def test_illegal_action_is_refused_with_a_reason_and_the_state_is_unchanged(make, action, reason) -> None:  # type: ignore[no-untyped-def]
    state = make()
    snapshot = tuple(state)
    with pytest.raises(IllegalMove) as err:
        apply(state, action)
    assert err.value.detail.startswith(reason)
    assert tuple(state) == snapshot


def test_no_action_is_legal_once_the_game_is_over() -> None:
    s = run(start(LOW, HIGH, ruleset=Ruleset(rounds=1)), OPENING, DROP, DROP)
    assert legal_actions(s) == []
    for action in (PASS, DROP, Play(2)):
        with pytest.raises(IllegalMove, match="no turn is due: the game is in the over phase"):
            apply(s, action)


def test_a_legal_action_after_a_refused_one_still_works() -> None:
    s = opened()
    with pytest.raises(IllegalMove):
        apply(s, Play(5))
    after: Action = Play(5, 1, 1)
    assert apply(s, after).last == 5
