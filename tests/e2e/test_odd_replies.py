"""A real bot that answers its hello, its first deal or its first turn with one odd line (duplicate names, floats and
booleans where integers go, huge integers, NaN, unknown and missing fields, escapes, a BOM, bytes that are not
UTF-8, an odd hello) is judged end to end exactly as the pydantic models (``protocol.codec.parse_reply``, the
protocol's contract) judge that line: a refused line forfeits the game with the models' fault kind and detail, an
accepted one plays on (and an accepted hello is kept and logged as the models read it). The referee itself reads
replies without the models (``protocol.replies``); this holds it to them through the whole runner.
"""

from __future__ import annotations

import base64
import json

import pytest
import trio

from protocol import Expect, ProtocolViolation, parse_reply
from protocol.messages import HelloReply as HelloReplyModel
from referee.engine import STANDARD, seeded_deal
from referee.runner import GameResult, read_log

from .helpers import bot, config, new_mark, play_games, processes_with

#: A seed whose first round deals the 1 to seat 0 of two.
SEED = next(s for s in range(100) if 1 in seeded_deal(s, 2, STANDARD)[0][0])
PLAY = b'{"type":"play","value":1,"count":1,"bonus":0}'
DEAL = b'{"type":"discard","cards":[23,23,23]}'

#: Lines refused at a turn, at a deal and at the hello, each by the models' reason.
REFUSED: list[bytes] = [
    b'{"type":"play","value":1.0,"count":1,"bonus":0}',
    b'{"type":"play","value":1e0,"count":1,"bonus":0}',
    b'{"type":"play","value":1,"count":1,"bonus":-0.0}',
    b'{"type":"play","value":true,"count":1,"bonus":0}',
    b'{"type":"play","value":1,"count":1,"bonus":0,"bonus":0}',
    b'{"type":"play","value":1,"count":1,"bonus":NaN}',
    b'{"type":"play","value":1,"count":1,"bonus":Infinity}',
    b'{"type":"play","value":1,"count":1,"bonus":1' + b"0" * 80 + b"}",
    b'{"type":"play","value":1,"count":1}',
    b'{"type":"play","value":1,"count":0,"bonus":0}',
    b'{"type":"play","value":1,"count":1,"bonus":null}',
    b'{"type":"pass","force":0}',
    b'{"type":"pass","force":null}',
    b'{"type":"discard","cards":[1.0,2,3]}',
    b'{"type":"discard","cards":[true,2,3]}',
    b'{"type":"discard","cards":[24,2,3]}',
    b'{"type":"discard","cards":{"0":1}}',
    b'{"type":"hello","protocol":1.0,"name":"x"}',
    b'{"type":"hello","protocol":true,"name":"x"}',
    b'{"type":"hello","protocol":1,"name":"\\ud800"}',
    b'{"type":"hello","protocol":1,"name":"x","options":{"legal_moves":1}}',
    b'{"type":"hello","protocol":1,"name":"x","options":[]}',
    b'{"type":"hello","protocol":1,"name":7}',
    b'{"type":"hello","protocol":2,"name":"x"}',
    b'{"type":"\\u0064rop","x":[[[[{"y":NaN}]]]]}',
    b'{"type":"Play","value":1,"count":1,"bonus":0}',
    b'{"type":["drop"]}',
    b'{"value":1}',
    b"\xef\xbb\xbf" + PLAY,
    b'{"type":"play","value":1,"count":1,"bonus":0,"x":"\xff"}',
    b"[" + PLAY + b"]",
    b"null",
    b"",
    PLAY + b" " + PLAY,
]

#: Lines the models accept (read as the honest line beside them): the game goes on without a fault.
ACCEPTED: list[tuple[str, bytes]] = [
    ("turn", b'{"bonus":-0,"count":1,"value":1,"type":"play","extra":{"a":[1.5,null,1e999]}}'),
    ("turn", b'  {"\\u0074ype" : "play", "value":1,"count":1,"bonus":0}\t\r'),
    ("deal", b'{"type":"discard","cards":@CARDS@,"type2":1e999,"cards2":[-0.0]}'),
    ("hello", b'{"type":"hello","protocol":1,"name":"a\\u0000b\\u2028","version":null,"author":"\\ud83d\\ude00"}'),
    (
        "hello",
        b'{"type":"hello","protocol":1,"name":"","options":{"legal_moves":true,"more":{}},"version":"'
        + b"v" * 4000
        + b'"}',
    ),
    ("hello", b'{"type":"hello","protocol":1,"name":"x","options":null,"author":null}'),
]


def _cases() -> list[tuple[str, bytes]]:
    cases = []
    for line in REFUSED:
        for at in ("hello", "deal", "turn"):
            cases.append((at, line))
    return cases


CASES = _cases() + ACCEPTED


def _play(folder_of, cases: list[tuple[str, bytes]]) -> dict[int, tuple[GameResult, object, list[int]]]:
    out: dict[int, tuple[GameResult, object, list[int]]] = {}

    async def main() -> None:
        limiter = trio.CapacityLimiter(6)

        async def one(i: int, at: str, line: bytes) -> None:
            async with limiter:
                mark = new_mark()
                odd = bot("odd_reply", mark, ODD_AT=at, ODD_REPLY=base64.b64encode(line + b"\n").decode())
                specs = [odd, bot("honest", mark)]
                # The 1 goes to seat 0 (the odd bot): its first turn opens the round, and PLAY is that opening.
                (result,), players = await play_games(specs, config("none"), folder_of(i), seeds=[SEED])
                out[i] = (result, players[0].hello, processes_with(mark))

        async with trio.open_nursery() as nursery:
            for i, (at, line) in enumerate(cases):
                nursery.start_soon(one, i, at, line)

    trio.run(main)
    return out


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[int, tuple[GameResult, object, list[int]]]:
    return _play(lambda i: tmp_path_factory.mktemp(f"odd{i}"), CASES)


_EXPECT = {"hello": Expect.HELLO, "deal": Expect.DISCARD, "turn": Expect.TURN}


@pytest.mark.parametrize("case", range(len(CASES)), ids=[f"{at}-{line[:40]!r}" for at, line in CASES])
def test_an_odd_reply_is_judged_as_the_models_judge_it(outcomes, case: int) -> None:
    at, line = CASES[case]
    result, hello, leftovers = outcomes[case]
    line = line.replace(b"@CARDS@", b"[2,3,4]")  # the models' answer is the same for any three cards
    assert leftovers == []
    try:
        model = parse_reply(line, _EXPECT[at])
    except ProtocolViolation as exc:
        assert result.forfeits == (0,), result.faults
        (fault,) = result.faults
        if at == "hello" and exc.kind != "protocol_version":
            assert (fault.kind, fault.detail) == ("startup", f"bad hello reply: {exc.detail}")
        else:
            assert fault.kind == exc.kind
            # A reply of the wrong kind right after messages needing none gets a hint on the cause after the reason.
            assert fault.detail == exc.detail or fault.detail.startswith(exc.detail + " (this line came right after")
        return
    assert result.faults == () and result.forfeits == ()
    assert CASES[case] in ACCEPTED  # every line meant to be refused is
    if at == "hello":
        assert isinstance(model, HelloReplyModel)
        assert hello is not None
        assert (hello.protocol, hello.name, hello.version, hello.author) == (
            model.protocol,
            model.name,
            model.version,
            model.author,
        )
        assert hello.wants_legal_moves == model.wants_legal_moves
        assert result.log_path is not None
        logged = [e["hello"] for e in read_log(result.log_path) if e["event"] == "player" and e["seat"] == 0]
        assert logged == [json.loads(json.dumps(model.model_dump(mode="json", exclude_none=True)))]
