"""Every protocol message survives encode → parse unchanged, and encodes as PROTOCOL.md shows it."""

from __future__ import annotations

import json

import pytest

from protocol import (
    MAX_LINE,
    Bye,
    DealMessage,
    DiscardReply,
    DropEntry,
    DropReply,
    ErrorMessage,
    Expect,
    GameEnd,
    GameStart,
    Hello,
    HelloOptions,
    HelloReply,
    PassEntry,
    PassReply,
    PlayEntry,
    PlayerEntry,
    PlayReply,
    RoundEnd,
    TimeControl,
    Turn,
    encode,
    parse_message,
    parse_reply,
)
from referee.engine import STANDARD

PLAYERS = [
    PlayerEntry(name="random", cards=11, penalty=2, bonus=3, status="playing"),
    PlayerEntry(name="greedy", cards=0, penalty=-3, bonus=1, status="finished"),
    PlayerEntry(name="you", cards=9, penalty=9, bonus=0, status="dropped"),
]
HISTORY = [
    PlayEntry(seat=0, value=1, count=1, bonus=0, penalty=0),
    PassEntry(seat=1, force=False, penalty=1),
    PassEntry(seat=2, force=True, penalty=2),
    PlayEntry(seat=0, value=3, count=2, bonus=1, penalty=-3, finished=True),
    DropEntry(seat=2, penalty=9),
    DropEntry(seat=1, penalty=4, forfeit=True),
    PlayEntry(seat=1, value=1, count=1, bonus=0, penalty=0, forfeit=True),
    DropEntry(seat=2, penalty=5, limit=True),
]

REFEREE_MESSAGES = [
    Hello(),
    GameStart(
        game="g17",
        seat=1,
        players=["random", "greedy", "you"],
        rules=STANDARD.to_dict(),
        time=TimeControl(move_ms=1000),
    ),
    DealMessage(game="g17", round=1, hand=[1, 3, 3, 7, 22, 23, 23], discard=3),
    Turn(game="g17", round=1, seat=1, hand=[3, 3, 7], last=None, forced=False, players=PLAYERS, history=[]),
    Turn(
        game="g17",
        round=2,
        seat=1,
        hand=[3, 3, 7],
        last=7,
        forced=True,
        players=PLAYERS,
        history=HISTORY,
        legal=[PlayReply(value=7, count=1, bonus=0), PassReply(), PassReply(force=True), DropReply()],
    ),
    RoundEnd(game="g17", round=1, players=PLAYERS, history=HISTORY),
    GameEnd(game="g17", scores=[4, -1, 9], ranks=[2, 1, 3], forfeits=[]),
    GameEnd(game="g17", scores=[4, -1, 9], ranks=[1, 1, 3], forfeits=[2]),
    ErrorMessage(message="illegal move: 5 is lower than last 9 and no bonus chip was spent"),
    Bye(),
]

REPLIES = [
    (HelloReply(protocol=1, name="greedy"), Expect.HELLO),
    (
        HelloReply(protocol=1, name="mc", version="2.1", author="Ann", options=HelloOptions(legal_moves=True)),
        Expect.HELLO,
    ),
    (DiscardReply(cards=[22, 23, 23]), Expect.DISCARD),
    (PlayReply(value=8, count=1, bonus=0), Expect.TURN),
    (PlayReply(value=2, count=2, bonus=3), Expect.TURN),
    (PassReply(), Expect.TURN),
    (PassReply(force=True), Expect.TURN),
    (DropReply(), Expect.TURN),
]


@pytest.mark.parametrize("msg", REFEREE_MESSAGES, ids=lambda m: m.type)
def test_referee_messages_round_trip(msg: object) -> None:
    line = encode(msg)  # type: ignore[arg-type]
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    compact = json.dumps(json.loads(line), separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
    assert line == compact
    assert parse_message(line) == msg
    assert parse_message(line.decode()) == msg


@pytest.mark.parametrize(("reply", "expect"), REPLIES, ids=lambda r: getattr(r, "type", ""))
def test_replies_round_trip(reply: object, expect: Expect) -> None:
    line = encode(reply)  # type: ignore[arg-type]
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert parse_reply(line, expect) == reply
    assert parse_reply(line.rstrip(b"\n"), expect) == reply


def test_encoding_matches_the_protocol_page() -> None:
    """The exact lines PROTOCOL.md shows."""
    assert encode(Hello()) == b'{"type":"hello","protocol":1}\n'
    assert encode(HelloReply(protocol=1, name="greedy")) == b'{"type":"hello","protocol":1,"name":"greedy"}\n'
    assert encode(DiscardReply(cards=[22, 23, 23])) == b'{"type":"discard","cards":[22,23,23]}\n'
    assert encode(PlayReply(value=8, count=1, bonus=0)) == b'{"type":"play","value":8,"count":1,"bonus":0}\n'
    assert encode(PassReply()) == b'{"type":"pass"}\n'
    assert encode(PassReply(force=True)) == b'{"type":"pass","force":true}\n'
    assert encode(DropReply()) == b'{"type":"drop"}\n'
    assert encode(Bye()) == b'{"type":"bye"}\n'
    assert encode(GameEnd(game="g17", scores=[4, -1, 9], ranks=[2, 1, 3], forfeits=[])) == (
        b'{"type":"game_end","game":"g17","scores":[4,-1,9],"ranks":[2,1,3],"forfeits":[]}\n'
    )


def test_optional_fields_are_left_out_when_unset_but_last_is_always_written() -> None:
    turn = json.loads(encode(REFEREE_MESSAGES[3]))
    assert turn["last"] is None
    assert "legal" not in turn
    history = json.loads(encode(RoundEnd(game="g", round=1, players=PLAYERS, history=HISTORY)))["history"]
    assert history[0] == {"seat": 0, "action": "play", "value": 1, "count": 1, "bonus": 0, "penalty": 0}
    assert history[1] == {"seat": 1, "action": "pass", "force": False, "penalty": 1}
    assert history[3]["finished"] is True and "forfeit" not in history[3]
    assert history[4] == {"seat": 2, "action": "drop", "penalty": 9}
    assert history[5]["forfeit"] is True and "limit" not in history[5]
    assert history[7]["limit"] is True


def test_models_are_frozen() -> None:
    reply = PlayReply(value=8, count=1, bonus=0)
    with pytest.raises(ValueError):
        reply.value = 9  # type: ignore[misc]


def test_bots_ignore_unknown_fields_and_parse_the_protocol_page_example() -> None:
    line = (
        b'{"type":"turn","game":"g17","round":1,"seat":1,"hand":[3,3,7],"last":7,"forced":false,"new":{"x":1},'
        b'"players":[{"name":"random","cards":11,"penalty":2,"bonus":3,"status":"playing","rating":9}],'
        b'"history":[{"seat":0,"action":"play","value":1,"count":1,"bonus":0,"penalty":0},'
        b'{"seat":1,"action":"pass","force":false,"penalty":1},{"seat":2,"action":"drop","penalty":9}]}'
    )
    turn = parse_message(line)
    assert isinstance(turn, Turn)
    assert turn.last == 7 and turn.players[0].name == "random"
    assert [e.action for e in turn.history] == ["play", "pass", "drop"]


def test_referee_lines_longer_than_a_reply_may_be_are_read() -> None:
    """A turn late in a long round (up to the turn limit) has a history longer than MAX_LINE bytes."""
    history = [PlayEntry(seat=s % 3, value=23, count=1, bonus=3, penalty=10) for s in range(1000)]
    turn = Turn(game="g", round=1, seat=0, hand=[5], last=9, forced=False, players=PLAYERS, history=history)
    line = encode(turn)
    assert len(line) > MAX_LINE
    assert parse_message(line) == turn
