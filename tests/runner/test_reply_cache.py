"""The runner parses a reply line it has seen before from its cache of parsed replies: the answer must be the one
``parse_reply`` gives for that line and that awaited reply (as the named tuple of ``protocol.replies``), every time
(a cached line is never accepted where it does not answer, and a bad line is refused every time)."""

from __future__ import annotations

import pytest

from protocol import Expect, ProtocolViolation, parse_reply
from protocol.replies import light_reply
from referee.runner import player

LINES = [
    b'{"type": "play", "value": 5, "count": 1, "bonus": 0}',
    b'{"type":"pass","force":true}',
    b'{"type": "drop"}',
    b'{"type": "discard", "cards": [21, 22, 23]}',
    b'{"type": "play", "value": 0, "count": 1, "bonus": 0}',
    b'{"type": "pass", "force": 1}',
    b'{"type": "discard", "cards": [21, 22]',
    b"[]",
]


def _answer(line: bytes, expect: Expect, parse: object) -> object:
    try:
        return light_reply(parse(line, expect))  # type: ignore[operator]
    except ProtocolViolation as exc:
        return ("refused", exc.kind, exc.detail)


@pytest.mark.parametrize("line", LINES)
def test_a_line_gets_parse_replys_answer_for_each_awaited_reply_however_often_it_comes(line: bytes) -> None:
    for _ in range(3):
        for expect in (Expect.TURN, Expect.DISCARD, Expect.HELLO):
            assert _answer(line, expect, player._parse) == _answer(line, expect, parse_reply)


def test_the_cache_keeps_only_short_deal_and_turn_replies() -> None:
    player._parse(b'{"type": "drop"}', Expect.TURN)
    assert (b'{"type": "drop"}', Expect.TURN) in player._PARSED
    long_line = b'{"type": "drop", "note": "' + b"x" * 200 + b'"}'
    player._parse(long_line, Expect.TURN)
    assert (long_line, Expect.TURN) not in player._PARSED
    player._parse(b'{"type": "hello", "protocol": 1, "name": "a"}', Expect.HELLO)
    assert not any(expect is Expect.HELLO for _, expect in player._PARSED)
    assert len(player._PARSED) <= player._PARSED.size
