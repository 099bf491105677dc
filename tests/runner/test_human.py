"""Reading a person's move: the legal move named, or a clear reason."""

from __future__ import annotations

from protocol import DropReply, PassReply, PlayReply
from referee.runner.human import _discard_problem, _legal_summary, _parse_move

LEGAL = [
    PlayReply(value=8, count=1, bonus=0),
    PlayReply(value=8, count=2, bonus=0),
    PlayReply(value=8, count=1, bonus=1),
]
LEGAL += [PassReply(), PassReply(force=True), DropReply()]


def test_moves_are_read() -> None:
    assert _parse_move("play 8", LEGAL)[0] == PlayReply(value=8, count=1, bonus=0)
    assert _parse_move("play 8x2", LEGAL)[0] == PlayReply(value=8, count=2, bonus=0)
    assert _parse_move("play 8 b1", LEGAL)[0] == PlayReply(value=8, count=1, bonus=1)
    assert _parse_move("pass", LEGAL)[0] == PassReply()
    assert _parse_move("force", LEGAL)[0] == PassReply(force=True)
    assert _parse_move("drop", LEGAL)[0] == DropReply()


def test_bad_moves_say_why() -> None:
    assert _parse_move("play 9", LEGAL)[1] == "play 9x1 b0 is not legal now"
    assert "cannot read" in _parse_move("jump", LEGAL)[1]
    assert "not a move" in _parse_move("play 0", LEGAL)[1]
    assert "may not pass" in _parse_move("pass", [DropReply()])[1]


def test_discard_problems() -> None:
    hand = [1, 3, 3, 9]
    assert _discard_problem(hand, [3, 3, 9], 3) is None
    assert _discard_problem(hand, [1, 3, 9], 3) == "the 1 may not be discarded"
    assert _discard_problem(hand, [3, 3, 3], 3) == "you do not hold another 3"
    assert _discard_problem(hand, [3], 3) == "name exactly 3 cards, you named 1"


def test_legal_summary_is_compact() -> None:
    assert _legal_summary(LEGAL) == "play 8x1..2 b0..1, pass, force, drop"
