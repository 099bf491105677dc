"""The human seat's words and numbers: moves read from what a person types, numbered moves with their cost, the
others' actions in words, and the engine's reason for an illegal move."""

from __future__ import annotations

from protocol import DropEntry, DropReply, PassEntry, PassReply, PlayEntry, PlayerEntry, PlayReply, Turn
from referee.engine import Ruleset
from referee.runner.human import _discard_problem
from referee.runner.human_moves import (
    describe_entry,
    describe_since,
    engine_reason,
    listed,
    move_cost,
    move_table,
    parse_move,
)

RULES = Ruleset()
LEGAL = [
    PlayReply(value=8, count=1, bonus=0),
    PlayReply(value=8, count=2, bonus=0),
    PlayReply(value=8, count=1, bonus=1),
    PassReply(),
    PassReply(force=True),
    DropReply(),
]


def turn(hand: list[int], last: int | None, history: list[PlayEntry | PassEntry | DropEntry] | None = None) -> Turn:
    table = [
        PlayerEntry(name="greedy", cards=9, penalty=2, bonus=3, status="playing"),
        PlayerEntry(name="you", cards=len(hand), penalty=0, bonus=1, status="playing"),
    ]
    return Turn(game="g", round=1, seat=1, hand=hand, last=last, forced=False, players=table, history=history or [])


def test_a_move_is_read_by_number_shorthand_or_words() -> None:
    assert parse_move("1", LEGAL) == PlayReply(value=8, count=1, bonus=0)
    assert parse_move("6", LEGAL) == DropReply()
    assert parse_move("8x2", LEGAL) == PlayReply(value=8, count=2, bonus=0)
    assert parse_move("8x1+1", LEGAL) == PlayReply(value=8, count=1, bonus=1)
    assert parse_move("8+1", LEGAL) == PlayReply(value=8, count=1, bonus=1)
    assert parse_move("play 8", LEGAL) == PlayReply(value=8, count=1, bonus=0)
    assert parse_move("play 8x2 b1", LEGAL) == PlayReply(value=8, count=2, bonus=1)
    assert parse_move("Pass", LEGAL) == PassReply()
    assert parse_move("force", LEGAL) == PassReply(force=True)
    assert parse_move("drop", LEGAL) == DropReply()


def test_what_names_no_move_says_why() -> None:
    assert parse_move("7", LEGAL) == "there is no move 7: pick a number from 1 to 6, or type '7x1' to play one 7"
    assert parse_move("40", LEGAL) == "there is no move 40: pick a number from 1 to 6"
    assert str(parse_move("jump", LEGAL)).startswith("cannot read 'jump'; moves: the number of a listed move")
    assert parse_move("24x1", LEGAL) == "'24x1' is not a move: card values are 1 to 23, and at least 1 card"
    assert parse_move("", LEGAL) == "type a move (or '?')"


def test_the_engine_says_why_a_move_is_illegal() -> None:
    t = turn([3, 9, 9, 12], 10)
    assert engine_reason(PlayReply(value=5, count=1, bonus=0), t, RULES) == "you hold no 5"
    assert engine_reason(PlayReply(value=9, count=3, bonus=0), t, RULES) == "you play 3 cards of 9 but hold 2"
    assert engine_reason(PlayReply(value=3, count=1, bonus=0), t, RULES) == (
        "3 is lower than last 10 and no bonus chip was spent"
    )
    assert engine_reason(PlayReply(value=9, count=1, bonus=2), t, RULES) == "you spend 2 bonus chips but hold 1"
    opening = turn([1, 3], None)
    assert engine_reason(PassReply(), opening, RULES) == "the round opens with the 1: play value 1, count 1, bonus 0"


def test_moves_are_numbered_with_their_cost() -> None:
    t = turn([3, 9, 9, 12], 10)
    legal = [
        PlayReply(value=3, count=1, bonus=2),
        PlayReply(value=12, count=1, bonus=0),
        PlayReply(value=12, count=1, bonus=1),
        PlayReply(value=12, count=1, bonus=2),  # saves nothing more than one chip: legal, not listed
        PassReply(),
        PassReply(force=True),
        DropReply(),
    ]
    moves = listed(legal, t, RULES)
    assert PlayReply(value=12, count=1, bonus=2) not in moves and len(moves) == 6
    assert [move_cost(m, t, RULES) for m in moves] == [
        "0 chips, 2 bonus",
        "1 chip",
        "0 chips, 1 bonus",
        "1 chip",
        "2 chips, forces",
        "4 chips",
    ]
    # The last card finishes the round: the refund comes off.
    assert move_cost(PlayReply(value=12, count=1, bonus=0), turn([12], 10), RULES) == "-2 chips, out"
    rows = move_table(moves, t, RULES, width=70)  # two columns
    assert rows[0].split() == ["1)", "3x1+2", "0", "chips,", "2", "bonus", "2)", "12x1", "1", "chip"]
    assert rows[-1].split()[-4:] == ["6)", "drop", "4", "chips"]


def test_the_others_actions_in_words() -> None:
    names = ["greedy", "you"]
    assert describe_entry(PlayEntry(seat=0, value=8, count=2, bonus=1, penalty=0), names) == (
        "seat 0 greedy played 2x 8 with 1 bonus chip (0 chips)"
    )
    assert describe_entry(PlayEntry(seat=0, value=20, count=1, bonus=0, penalty=-3, finished=True), names) == (
        "seat 0 greedy played a 20 (-3 chips): out of cards"
    )
    assert describe_entry(PassEntry(seat=0, force=True, penalty=2), names) == (
        "seat 0 greedy passed and forced the next player (2 chips)"
    )
    assert describe_entry(DropEntry(seat=0, penalty=7, limit=True), names) == (
        "seat 0 greedy was dropped at the turn limit (7 chips)"
    )
    history = [
        PassEntry(seat=1, force=True, penalty=2),  # the person's own: not repeated
        PlayEntry(seat=0, value=9, count=1, bonus=0, penalty=0),
        PassEntry(seat=1, force=False, penalty=1),
        DropEntry(seat=0, penalty=8),
    ]
    assert describe_since(history, 0, names, me=1) == [
        "seat 0 greedy (forced) played a 9 (0 chips)",
        "seat 0 greedy dropped out (8 chips)",
    ]
    assert describe_since(history, 3, names, me=1) == ["seat 0 greedy dropped out (8 chips)"]


def test_discard_problems() -> None:
    hand = [1, 3, 3, 9]
    assert _discard_problem(hand, [3, 3, 9], 3) is None
    assert _discard_problem(hand, [1, 3, 9], 3) == "the 1 may not be discarded"
    assert _discard_problem(hand, [3, 3, 3], 3) == "you do not hold another 3"
    assert _discard_problem(hand, [3], 3) == "name exactly 3 cards, you named 1"
