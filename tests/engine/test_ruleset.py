"""Ruleset options and their validation: an impossible ruleset is refused before any game, naming the option."""

from __future__ import annotations

import pytest

from referee.engine import STANDARD, Ruleset, RulesetError, new_game


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"rounds": 0}, "ruleset option rounds must be at least 1, got 0"),
        ({"hand_size": 0}, "ruleset option hand_size must be at least 1, got 0"),
        ({"discard": -1}, "ruleset option discard must be at least 0, got -1"),
        ({"start_bonus": -2}, "ruleset option start_bonus must be at least 0, got -2"),
        ({"bonus_step": 0}, "ruleset option bonus_step must be at least 1, got 0"),
        ({"finish_refund": -1}, "ruleset option finish_refund must be at least 0, got -1"),
        ({"bonus_refund": -1}, "ruleset option bonus_refund must be at least 0, got -1"),
        ({"max_turns_per_round": 0}, "ruleset option max_turns_per_round must be at least 1, got 0"),
        ({"chip_floor": "yes"}, "ruleset option chip_floor must be true or false, got 'yes'"),
        ({"rounds": 2.5}, "ruleset option rounds must be an integer, got 2.5"),
        ({"hand_size": True}, "ruleset option hand_size must be an integer, got True"),
        ({"discard": 15}, "ruleset option discard (15) must be smaller than hand_size (15)"),
        ({"jokers": 2}, "unknown ruleset option 'jokers'"),
    ],
)
def test_a_bad_option_is_refused_naming_the_option(options: dict[str, object], message: str) -> None:
    with pytest.raises(RulesetError) as err:
        Ruleset.from_dict(options)
    assert str(err.value).startswith(message)


def test_hands_larger_than_the_deck_are_refused_for_that_player_count() -> None:
    big = Ruleset(hand_size=17)
    big.validate(3)  # 51 cards: fine
    with pytest.raises(RulesetError, match=r"hand_size \(17\) is too large for 4 players: 68 cards needed"):
        big.validate(4)
    with pytest.raises(RulesetError, match="hand_size"):
        new_game(4, big, seed=1)


@pytest.mark.parametrize("players", [0, 1, 5, "3"])
def test_player_count_outside_2_to_4_is_refused(players: object) -> None:
    with pytest.raises(RulesetError, match="players"):
        new_game(players, STANDARD, seed=1)  # type: ignore[arg-type]


def test_options_round_trip_through_a_dict() -> None:
    custom = Ruleset(chip_floor=True, rounds=3, hand_size=10, discard=2, max_turns_per_round=50)
    assert Ruleset.from_dict(custom.to_dict()) == custom
    assert Ruleset.from_dict({}) == STANDARD
    assert Ruleset.from_dict({"chip_floor": True}) == Ruleset(chip_floor=True)


def test_from_dict_refuses_something_that_is_not_a_mapping() -> None:
    with pytest.raises(RulesetError, match="ruleset options are an object"):
        Ruleset.from_dict(["rounds"])  # type: ignore[arg-type]


def test_a_ruleset_is_immutable() -> None:
    with pytest.raises(AttributeError):
        STANDARD.rounds = 3  # type: ignore[misc]


def test_new_game_needs_exactly_one_of_seed_and_deal() -> None:
    with pytest.raises(ValueError, match="exactly one of seed and deal"):
        new_game(2)
