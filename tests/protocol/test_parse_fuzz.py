"""Hypothesis: whatever a bot writes, parse_reply returns a valid reply or raises ProtocolViolation."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from protocol import AnyReply, Expect, ProtocolViolation, encode, parse_reply
from protocol.messages import DiscardReply, DropReply, HelloReply, PassReply, PlayReply

JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=-(10**80), max_value=10**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
JSON = st.recursive(
    JSON_SCALARS,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=30,
)
REPLY_TYPES = st.sampled_from(["hello", "discard", "play", "pass", "drop", "turn", "", "PLAY"])
FIELD_VALUES = st.one_of(
    st.integers(min_value=-3, max_value=30),
    st.integers(),
    st.booleans(),
    st.none(),
    st.floats(),
    st.text(max_size=5),
    st.lists(st.integers(min_value=-2, max_value=25), max_size=5),
    JSON,
)
REPLY_LIKE = st.fixed_dictionaries(
    {"type": REPLY_TYPES},
    optional={
        "value": FIELD_VALUES,
        "count": FIELD_VALUES,
        "bonus": FIELD_VALUES,
        "force": FIELD_VALUES,
        "cards": FIELD_VALUES,
        "protocol": FIELD_VALUES,
        "name": FIELD_VALUES,
        "options": FIELD_VALUES,
        "version": FIELD_VALUES,
    },
)
EXPECTS = st.sampled_from(list(Expect))


def check(line: bytes, expect: Expect) -> None:
    try:
        reply = parse_reply(line, expect)
    except ProtocolViolation as exc:
        assert exc.kind and exc.detail and "\n" not in str(exc)
        return
    assert_valid(reply, expect)
    # A valid reply re-encodes to a line that parses to itself.
    assert parse_reply(encode(reply), expect) == reply


def assert_valid(reply: AnyReply, expect: Expect) -> None:
    assert reply.type in expect.types
    if isinstance(reply, HelloReply):
        assert reply.protocol == 1 and isinstance(reply.name, str)
    elif isinstance(reply, DiscardReply):
        assert all(type(c) is int and 1 <= c <= 23 for c in reply.cards)
    elif isinstance(reply, PlayReply):
        assert type(reply.value) is int and 1 <= reply.value <= 23
        assert type(reply.count) is int and reply.count >= 1
        assert type(reply.bonus) is int and reply.bonus >= 0
    elif isinstance(reply, PassReply):
        assert type(reply.force) is bool
    else:
        assert isinstance(reply, DropReply)


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=300), EXPECTS)
def test_random_bytes(data: bytes, expect: Expect) -> None:
    check(data, expect)


@settings(max_examples=400, deadline=None)
@given(JSON, EXPECTS)
def test_random_json(value: Any, expect: Expect) -> None:
    check(json.dumps(value).encode(), expect)


@settings(max_examples=600, deadline=None)
@given(REPLY_LIKE, EXPECTS)
def test_reply_shaped_objects_with_wrong_types(value: dict[str, Any], expect: Expect) -> None:
    check(json.dumps(value).encode(), expect)


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=1, max_value=70_000), st.sampled_from(["[", '{"a":', '{"type":"pass","x":[']), EXPECTS)
def test_deep_nesting(depth: int, opener: str, expect: Expect) -> None:
    check((opener * depth).encode(), expect)
    closer = "]" if opener == "[" else "}" if opener.startswith('{"a"') else "]"
    tail = "}" if opener.startswith('{"type"') else ""
    check((opener * depth + "1" + closer * depth + tail).encode(), expect)


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=1, max_value=20_000), st.sampled_from(["value", "count", "bonus", "cards"]), EXPECTS)
def test_huge_numbers(digits: int, field: str, expect: Expect) -> None:
    number = "9" * digits
    if field == "cards":
        check(f'{{"type":"discard","cards":[{number}]}}'.encode(), expect)
    else:
        fields = {"value": "8", "count": "1", "bonus": "0", field: number}
        body = ",".join(f'"{k}":{v}' for k, v in fields.items())
        check(f'{{"type":"play",{body}}}'.encode(), expect)
    check(f'{{"type":"play","value":1e{digits},"count":1,"bonus":0}}'.encode(), expect)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200), EXPECTS)
def test_random_text_including_surrogate_escapes(text: str, expect: Expect) -> None:
    check(text.encode("utf-8", "surrogatepass"), expect)
    check(json.dumps({"type": "hello", "protocol": 1, "name": text}).encode(), expect)
