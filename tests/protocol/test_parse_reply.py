"""parse_reply: strict, one clear line per fault, the right kind for each."""

from __future__ import annotations

import pytest

from protocol import MAX_LINE, DiscardReply, Expect, HelloReply, PassReply, PlayReply, ProtocolViolation, parse_reply


def violation(line: bytes, expect: Expect = Expect.TURN) -> ProtocolViolation:
    with pytest.raises(ProtocolViolation) as info:
        parse_reply(line, expect)
    exc = info.value
    assert "\n" not in str(exc)
    assert str(exc) == f"protocol violation: {exc.detail}"
    return exc


@pytest.mark.parametrize(
    ("line", "kind", "words"),
    [
        (b"x" * (MAX_LINE + 1), "line_too_long", "65536"),
        (b"\xff\xfe{}", "invalid_json", "UTF-8"),
        (b"", "invalid_json", "empty"),
        (b"\n", "invalid_json", "empty"),
        (b'{"type":"pass"', "invalid_json", "not valid JSON"),
        (b'{"type":"pass"}{"type":"pass"}', "invalid_json", "not valid JSON"),
        (b'{"type":"play","value":NaN,"count":1,"bonus":0}', "invalid_json", "NaN"),
        (b'{"type":"play","value":Infinity,"count":1,"bonus":0}', "invalid_json", "Infinity"),
        (b'{"type":"play","value":23,"count":1,"bonus":0,"value":5}', "invalid_json", '"value" appears twice'),
        (b'{"type":"pass","x":{"a":1,"a":2}}', "invalid_json", '"a" appears twice'),
        (b"[" * 100_000, "line_too_long", ""),
        (b"[" * 60_000, "invalid_json", "deeply"),
        (b'{"a":' * 10_000 + b"1" + b"}" * 10_000, "invalid_json", "deeply"),
        (b'{"type":"play","value":' + b"9" * 5000 + b',"count":1,"bonus":0}', "invalid_json", "too large"),
        (b"[]", "not_object", "array"),
        (b'"pass"', "not_object", "string"),
        (b"null", "not_object", "null"),
        (b"7", "not_object", "number"),
        (b"{}", "bad_field", "'type'"),
        (b'{"type":3}', "bad_field", "'type' must be a string"),
        (b'{"type":"fold"}', "unknown_type", '"fold"'),
        (b'{"type":"turn"}', "unknown_type", '"turn"'),
        (b'{"type":"discard","cards":[23,23,22]}', "wrong_type", "turn"),
        (b'{"type":"hello","protocol":1,"name":"x"}', "wrong_type", "turn"),
        (b'{"type":"play","value":"8","count":1,"bonus":0}', "bad_field", "'value' must be an integer"),
        (b'{"type":"play","value":8.0,"count":1,"bonus":0}', "bad_field", "'value' must be an integer"),
        (b'{"type":"play","value":true,"count":1,"bonus":0}', "bad_field", "'value' must be an integer"),
        (b'{"type":"play","value":8,"count":1}', "bad_field", "'bonus' is missing"),
        (b'{"type":"play","value":24,"count":1,"bonus":0}', "bad_field", "'value' must be at most 23"),
        (b'{"type":"play","value":0,"count":1,"bonus":0}', "bad_field", "'value' must be at least 1"),
        (b'{"type":"play","value":8,"count":0,"bonus":0}', "bad_field", "'count' must be at least 1"),
        (b'{"type":"play","value":8,"count":1,"bonus":-1}', "bad_field", "'bonus' must be at least 0"),
        (b'{"type":"play","value":8,"count":1,"bonus":1e400}', "bad_field", "'bonus' must be an integer"),
        (b'{"type":"pass","force":"yes"}', "bad_field", "'force' must be true or false"),
        (b'{"type":"pass","force":1}', "bad_field", "'force' must be true or false"),
    ],
)
def test_faults_have_their_kind_and_a_clear_message(line: bytes, kind: str, words: str) -> None:
    exc = violation(line)
    assert exc.kind == kind
    assert words in exc.detail


def test_discard_faults() -> None:
    assert violation(b'{"type":"discard"}', Expect.DISCARD).kind == "bad_field"
    exc = violation(b'{"type":"discard","cards":[22,"23"]}', Expect.DISCARD)
    assert exc.kind == "bad_field" and "'cards[1]' must be an integer" in exc.detail
    exc = violation(b'{"type":"discard","cards":{"a":1}}', Expect.DISCARD)
    assert "'cards' must be a list" in exc.detail
    assert violation(b'{"type":"pass"}', Expect.DISCARD).kind == "wrong_type"


def test_hello_faults() -> None:
    exc = violation(b'{"type":"hello","protocol":2,"name":"x"}', Expect.HELLO)
    assert exc.kind == "protocol_version" and "protocol 2" in exc.detail
    assert violation(b'{"type":"hello","protocol":0}', Expect.HELLO).kind == "protocol_version"
    assert violation(b'{"type":"hello","name":"x"}', Expect.HELLO).kind == "bad_field"
    assert violation(b'{"type":"hello","protocol":"1","name":"x"}', Expect.HELLO).kind == "bad_field"
    assert violation(b'{"type":"hello","protocol":1}', Expect.HELLO).kind == "bad_field"
    assert violation(b'{"type":"hello","protocol":1,"name":7}', Expect.HELLO).kind == "bad_field"
    exc = violation(b'{"type":"hello","protocol":1,"name":"\\ud800"}', Expect.HELLO)
    assert exc.kind == "bad_field" and "'name'" in exc.detail
    exc = violation(b'{"type":"hello","protocol":1,"name":"x","options":{"legal_moves":"yes"}}', Expect.HELLO)
    assert "'options.legal_moves'" in exc.detail
    assert violation(b'{"type":"play","value":8,"count":1,"bonus":0}', Expect.HELLO).kind == "wrong_type"


def test_valid_replies_with_unknown_fields_and_whitespace() -> None:
    assert parse_reply(b' {"type":"pass", "why":[1,{"x":null}]} \r\n', Expect.TURN) == PassReply()
    assert parse_reply(b'{"bonus":0,"count":2,"value":8,"type":"play"}', Expect.TURN) == PlayReply(
        value=8, count=2, bonus=0
    )
    assert parse_reply(b'{"type":"discard","cards":[23,22,23]}', Expect.DISCARD) == DiscardReply(cards=[23, 22, 23])
    hello = parse_reply('{"type":"hello","protocol":1,"name":"Zoë ♠"}'.encode(), Expect.HELLO)
    assert isinstance(hello, HelloReply) and hello.name == "Zoë ♠" and not hello.wants_legal_moves
    hello = parse_reply(b'{"type":"hello","protocol":1,"name":"a","options":{"legal_moves":true}}', Expect.HELLO)
    assert isinstance(hello, HelloReply) and hello.wants_legal_moves


def test_a_line_of_exactly_max_line_bytes_is_not_too_long() -> None:
    body = b'{"type":"pass","pad":"' + b"x" * (MAX_LINE - 24) + b'"}'
    assert len(body) == MAX_LINE
    assert parse_reply(body + b"\n", Expect.TURN) == PassReply()
    assert violation(body[:-2] + b'xx"}').kind == "line_too_long"
