"""The human seat's words and numbers: moves read from what a person types, numbered moves with their cost, the
others' actions in words, and the engine's reason for an illegal move."""

from __future__ import annotations

import re

from protocol import DropEntry, DropReply, PassEntry, PassReply, PlayEntry, PlayerEntry, PlayReply, Turn
from referee.engine import Ruleset
from referee.runner.human_moves import (
    SHORTLIST,
    Move,
    describe_entry,
    describe_since,
    discard_problem,
    dominated,
    engine_reason,
    listed,
    move_cost,
    move_table,
    move_text,
    parse_move,
    score_cost,
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


def test_moves_are_numbered_cheapest_first_with_their_cost() -> None:
    t = turn([3, 9, 9, 12], 10)
    legal = [
        PlayReply(value=3, count=1, bonus=2),
        PlayReply(value=12, count=1, bonus=0),
        PlayReply(value=12, count=1, bonus=1),  # saves 1 chip for a bonus chip worth 2 at the end: not listed
        PlayReply(value=12, count=1, bonus=2),
        PassReply(),
        PassReply(force=True),
        DropReply(),
    ]
    moves = listed(legal, t, RULES)
    assert moves == [
        PlayReply(value=12, count=1, bonus=0),
        PassReply(),
        PassReply(force=True),
        PlayReply(value=3, count=1, bonus=2),
        DropReply(),
    ]
    assert [move_cost(m, t, RULES) for m in moves] == [
        "1 chip",
        "1 chip",
        "2 chips, forces",
        "0 chips, 2 bonus",
        "4 chips",
    ]
    assert [score_cost(m, t, RULES) for m in moves] == [1, 1, 2, 4, 4]
    # 'all': every legal move, the dominated plays too, in the same order of cost.
    every = listed(legal, t, RULES, size=None)
    assert sorted(map(str, every)) == sorted(map(str, legal)) and every.index(legal[2]) == 2
    # The last card finishes the round: the refund comes off.
    assert move_cost(PlayReply(value=12, count=1, bonus=0), turn([12], 10), RULES) == "-2 chips, out"
    rows = move_table(moves, t, RULES, width=70)  # two columns
    assert rows[0].split() == ["1)", "12x1", "1", "chip", "2)", "pass", "1", "chip"]
    assert rows[-1].split()[-4:] == ["5)", "drop", "4", "chips"]


def test_a_chip_spent_to_save_more_than_its_worth_stays_listed() -> None:
    """On a 1, a 12 costs 10 chips; one bonus chip makes it 5 (7 with the chip's 2 points), two make it 0 (4):
    each chip buys a better score, so all three are choices; a third chip saves nothing more."""
    t = turn([1, 12, 12], 1)
    legal = [PlayReply(value=12, count=2, bonus=b) for b in range(4)]
    assert listed(legal, t, RULES) == [
        PlayReply(value=12, count=2, bonus=2),
        PlayReply(value=12, count=2, bonus=1),
        PlayReply(value=12, count=2, bonus=0),
    ]
    assert dominated(legal[3], legal, t, RULES) and not dominated(legal[0], legal, t, RULES)


def test_a_long_list_is_cut_to_the_cheapest_plays_with_pass_force_and_drop() -> None:
    """The opening hand after the 1: every value, every count, every useful chip (over 40 legal moves); the list
    numbers the 12 cheapest plays and pass, force and drop, and every one of the others is accepted typed."""
    hand = [2, 3, 3, 5, 8, 8, 11, 14, 14, 14, 19, 22]
    t = turn(hand, 1)
    legal: list[Move] = [
        PlayReply(value=v, count=c, bonus=b)
        for v in sorted(set(hand))
        for c in range(1, hand.count(v) + 1)
        for b in range(4)
    ] + [PassReply(), PassReply(force=True), DropReply()]
    moves = listed(legal, t, RULES)
    plays = [m for m in moves if isinstance(m, PlayReply)]
    assert len(legal) > 40 and len(plays) == SHORTLIST and len(moves) == SHORTLIST + 3
    assert all(other in moves for other in (PassReply(), PassReply(force=True), DropReply()))
    # a 2 on the 1 is free; two 3s or one cost 1 chip; a 5 costs 3, or 0 and a bonus chip's 2 points
    assert plays[:4] == [
        PlayReply(value=2, count=1, bonus=0),
        PlayReply(value=3, count=2, bonus=0),
        PlayReply(value=3, count=1, bonus=0),
        PlayReply(value=5, count=1, bonus=1),
    ]
    costs = [score_cost(m, t, RULES) for m in moves]
    assert costs == sorted(costs)
    left_out = [m for m in legal if m not in moves]
    assert max(costs[:SHORTLIST]) <= min(score_cost(m, t, RULES) for m in left_out if not dominated(m, legal, t, RULES))
    for move in left_out:  # typed, each is read as itself (the seat then accepts it: it is legal)
        assert parse_move(move_text(move), moves) == move


def test_a_pass_that_only_comes_back_is_not_offered() -> None:
    """PROTOCOL.md's stalled-table rule: alone at the table, or after a circle of passes since one's own, a pass
    comes straight back; the short list leaves pass and force out (a newcomer following "cheapest first" passed
    338 times in a row), the whole list puts them last, and typed they are still accepted."""
    legal = [PlayReply(value=20, count=1, bonus=2), PassReply(), DropReply()]
    open_table = turn([9, 9], 15)
    assert listed(legal, open_table, RULES)[0] == PassReply()  # someone else may still play: a pass is cheapest
    alone = open_table.model_copy(
        update={"players": [open_table.players[0].model_copy(update={"status": "dropped"}), open_table.players[1]]}
    )
    circle = turn([9, 9], 15, [PassEntry(seat=1, penalty=1, force=False), PassEntry(seat=0, penalty=1, force=False)])
    moved_since = turn(
        [9, 9],
        15,
        [PassEntry(seat=1, penalty=1, force=False), PlayEntry(seat=0, value=15, count=1, bonus=0, penalty=0)],
    )
    assert listed(legal, moved_since, RULES)[0] == PassReply()
    for stalled_turn in (alone, circle):
        short = listed(legal, stalled_turn, RULES)
        assert sorted(map(move_text, short)) == ["20x1+2", "drop"]
        assert listed(legal, stalled_turn, RULES, size=None)[-1] == PassReply()
        assert parse_move("pass", short) == PassReply()


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
    assert discard_problem(hand, [3, 3, 9], 3) is None
    assert discard_problem(hand, [1, 3, 9], 3) == "the 1 may not be discarded"
    assert discard_problem(hand, [3, 3, 3], 3) == "you do not hold another 3"
    assert discard_problem(hand, [3], 3) == "name exactly 3 cards, you named 1"


def test_the_seat_says_it_has_no_time_limit_numbers_every_move_on_all_and_takes_a_move_not_listed() -> None:
    """A real opening position (seat 1 opened with the 1): the short list, then 'all' numbers every legal move,
    and a play the short list leaves out is still taken when typed."""
    import trio

    from protocol import Expect, parse_message
    from protocol.wire import GameWire
    from referee.engine import STANDARD, Discard, Play, apply, legal_actions, new_game, observation_for
    from referee.runner.human import HumanPlayer

    state = new_game(2, STANDARD, seed=next(s for s in range(100) if 1 in new_game(2, seed=s).hands[1]))
    while isinstance((acts := legal_actions(state))[0], Discard):
        state = apply(state, acts[0])
    state = apply(state, Play(1, 1, 0))
    wire = GameWire("g1", ["you", "bot"])
    line = wire.turn(observation_for(state, 0), legal_actions(state))
    msg = parse_message(line)
    assert isinstance(msg, Turn) and msg.legal is not None
    short = listed(msg.legal, msg, RULES)
    left_out = [m for m in msg.legal if m not in short]
    assert len(msg.legal) >= 30 and len(short) <= SHORTLIST + 3 and left_out
    typed = ["all", move_text(left_out[-1])]
    shown: list[str] = []
    seat = HumanPlayer(ask=lambda prompt: typed.pop(0), say=shown.append, bots_move_time=0.5)

    async def play() -> object:
        await seat.notify(wire.game_start(0, STANDARD.to_dict(), 1), 0)
        _, reply = await seat.request(line, Expect.TURN, 0)
        return reply

    assert trio.run(play) == left_out[-1].model_dump_json().encode() and typed == []
    assert "You have no time limit: the game waits for each of your moves (the bots have 0.5 s a reply)." in shown
    headers = [text for text in shown if text.startswith("Your moves")]
    assert headers[0].startswith("Your moves, cheapest first") and headers[1].startswith("Your moves, every legal")
    assert (
        f"  + {len(left_out)} more legal moves (dearer, or spending chips for nothing): 'all' numbers every one"
        in shown
    )
    numbered = [cell for text in shown for cell in re.findall(r"(\d+)\) (\S+)", text)]
    assert len(numbered) == len(short) + len(msg.legal)
