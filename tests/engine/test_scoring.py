"""Final scores and ranks (RULES.md, "Scoring")."""

from __future__ import annotations

from referee.engine import (
    DROP,
    OPENING,
    STANDARD,
    Phase,
    Play,
    PlayEvent,
    Ruleset,
    final_scores,
    rank,
)

from .helpers import run, start


def short_game(ruleset: Ruleset):  # type: ignore[no-untyped-def]
    """Seat 0 holds 1 12, seat 1 holds 5 9; one round: 1, 9 (7 chips), 12 (2 chips, finished), 5 with 2 chips."""
    s = start((1, 12), (5, 9), ruleset=ruleset)
    return run(s, OPENING, Play(9), Play(12), Play(5, 1, 2))


def test_score_is_the_penalty_less_the_bonus_refund_per_remaining_chip() -> None:
    """RULES.md: seat 0 ends on -1 with 3 chips left: -1 - 2*3 = -7; seat 1 ends on 7 - 3 = 4 with 1 chip: 2."""
    s = short_game(Ruleset(rounds=1, hand_size=5, discard=3))
    assert s.phase is Phase.OVER
    assert s.history[-1] == PlayEvent(1, 5, 1, 2, -3, finished=True)
    assert s.penalty == (-1, 4)
    assert s.bonus == (3, 1)
    assert s.scores == (-7, 2)
    assert s.ranks == (1, 2)


def test_chip_floor_floors_the_finish_and_the_final_conversion_at_zero() -> None:
    """RULES.md: with chip_floor seat 0 finishes on 0, not -1: it gives back only the 2 chips the 12 cost it
    (the event's net penalty is 0); its score is 0, not -6. Seat 1 scores 4 - 2 = 2."""
    s = short_game(Ruleset(rounds=1, hand_size=5, discard=3, chip_floor=True))
    assert s.rounds_done[0].history[2] == PlayEvent(0, 12, 1, 0, 0, finished=True)
    assert s.penalty == (0, 4)
    assert s.scores == (0, 2)


def test_refund_options_change_the_arithmetic() -> None:
    s = short_game(Ruleset(rounds=1, hand_size=5, discard=3, finish_refund=1, bonus_refund=0))
    assert s.penalty == (2 - 1, 7 - 1)
    assert s.scores == (1, 6)


def test_scores_and_ranks_appear_only_when_the_game_is_over() -> None:
    s = start((1, 12), (5, 9), ruleset=Ruleset(rounds=1, hand_size=5, discard=3))
    assert s.scores is None and s.ranks is None
    s = run(s, OPENING, DROP, DROP)
    assert s.is_over
    assert s.scores == (1 - 6, 2 - 6)


def test_equal_scores_share_a_rank_1_2_2_4() -> None:
    """RULES.md: scores 3, 5, 5, 9 rank 1, 2, 2, 4."""
    assert rank((3, 5, 5, 9), (False,) * 4) == (1, 2, 2, 4)
    assert rank((9, 5, 3, 5), (False,) * 4) == (4, 2, 1, 2)
    assert rank((0, 0), (False, False)) == (1, 1)  # two winners
    assert rank((-4, 2, 2), (False,) * 3) == (1, 2, 2)


def test_forfeiters_rank_below_everyone_else_and_among_themselves_by_score() -> None:
    assert rank((1, 10, 0, 5), (True, False, True, False)) == (4, 2, 3, 1)
    assert rank((3, 3, 7), (True, True, False)) == (2, 2, 1)


def test_final_scores_formula() -> None:
    assert final_scores((10, -2, 1), (0, 3, 1), STANDARD) == (10, -8, -1)
    assert final_scores((10, -2, 1), (0, 3, 1), Ruleset(chip_floor=True)) == (10, 0, 0)
