"""The referee's light reply reader (``protocol.replies.read_reply``) answers exactly as ``parse_reply`` (the pydantic
models, the protocol's contract): for every line and every awaited reply, both accept it with the same fields and
types, or both refuse it with the same kind and the same detail. The lines: every reply of the golden tournament's
real games (honest, greedy, and bots that send illegal moves, broken JSON and bad fields), the hellos those bots
sent, the replies of random games, generated reply-shaped objects with wrong types, random JSON and bytes, and
edge cases. Also held to the models: the referee's own hello, bye and error lines, and the hello as logged. (That a
run of bots that behave never loads pydantic: ``tests/cli/test_run_imports.py``.)
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_parse_fuzz import FIELD_VALUES, JSON, REPLY_LIKE

from protocol import Bye, ErrorMessage, Expect, Hello, ProtocolViolation, action_to_reply, encode, parse_reply, replies
from protocol.messages import HelloOptions as HelloOptionsModel
from protocol.messages import HelloReply as HelloReplyModel
from protocol.replies import hello_json, light_reply, read_reply
from protocol.session import BYE_LINE, HELLO_LINE, error_line
from referee.engine import Phase, apply, legal_actions, new_game

GOLDEN = Path(__file__).resolve().parents[1] / "golden"


def _plain(value: Any) -> Any:
    """A reply (named tuple or model) as nested plain values with their exact types: the fields by name, in the
    model's order for a model and in the named tuple's for a named tuple, compared as sets of (name, value)."""
    if hasattr(value, "_asdict"):
        return ("reply", type(value).__name__, frozenset((k, _plain(v)) for k, v in value._asdict().items()))
    if hasattr(type(value), "model_fields"):
        fields = type(value).model_fields
        return ("reply", type(value).__name__, frozenset((k, _plain(getattr(value, k))) for k in fields))
    if isinstance(value, list):
        return ("list", tuple(_plain(v) for v in value))
    return (type(value).__name__, value)


def _answer(parse: Any, line: bytes, expect: Expect) -> Any:
    try:
        return "accepted", _plain(parse(line, expect))
    except ProtocolViolation as exc:
        return "refused", exc.kind, exc.detail


def agree(line: bytes, expects: tuple[Expect, ...] = tuple(Expect)) -> list[str]:
    """Both readers' answers to ``line`` for each awaited reply are equal; their outcomes."""
    outcomes = []
    for expect in expects:
        light, models = _answer(read_reply, line, expect), _answer(parse_reply, line, expect)
        assert light == models, (line[:300], expect)
        outcomes.append(light[0])
    return outcomes


def _golden_lines() -> tuple[list[bytes], list[bytes]]:
    """Every reply line the bots of the golden tournament (and of its two logged games) sent, and their hellos."""
    data = json.loads(gzip.decompress((GOLDEN / "tournament.json.gz").read_bytes()))
    events = [e for log in data["logs"].values() for seat in log["wire"].values() for e in seat]
    events += [e for log in data["logs"].values() for e in log["events"]]
    for path in sorted((GOLDEN / "logs").glob("*.jsonl")):
        events += [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    replies = [e["line"].encode("utf-8", "surrogatepass") for e in events if e.get("event") == "recv"]
    hellos = [json.dumps(e["hello"]).encode() for e in events if e.get("event") == "player" and e.get("hello")]
    return replies, hellos


REPLIES, HELLOS = _golden_lines()


def test_the_golden_games_have_replies_and_hellos_of_every_kind() -> None:
    assert len(REPLIES) > 500 and len(HELLOS) > 10
    outcomes = [o for line in set(REPLIES) for o in agree(line, (Expect.TURN, Expect.DISCARD))]
    assert "accepted" in outcomes and "refused" in outcomes


def test_every_reply_of_the_golden_games_reads_the_same() -> None:
    for line in REPLIES:
        agree(line)


def test_every_hello_of_the_golden_games_reads_the_same() -> None:
    for line in HELLOS:
        assert agree(line, (Expect.HELLO,)) == ["accepted"]


def _random_game_replies(seed: int) -> list[bytes]:
    """The reply lines of a random game's every move, as a bot on json.dumps (spaces) and as the models write."""
    rng = random.Random(seed)
    state = new_game(rng.randint(2, 4), seed=seed)
    lines = []
    while state.phase is not Phase.OVER:
        action = rng.choice(legal_actions(state))
        line = encode(action_to_reply(action))
        lines += [line, json.dumps(json.loads(line)).encode()]
        state = apply(state, action)
    return lines


def test_the_replies_of_random_games_read_the_same() -> None:
    for seed in range(20):
        for line in _random_game_replies(seed):
            assert agree(line, (Expect.TURN, Expect.DISCARD)).count("accepted") == 1


@settings(max_examples=800, deadline=None)
@given(REPLY_LIKE)
def test_reply_shaped_objects_read_the_same(value: dict[str, Any]) -> None:
    agree(json.dumps(value).encode())


HELLO_LIKE = st.fixed_dictionaries(
    {"type": st.just("hello"), "protocol": st.sampled_from([1, 1, 1, 2, True, 1.0, "1", None])},
    optional={
        "name": st.text(max_size=8) | FIELD_VALUES,
        "version": st.none() | st.text(max_size=5) | FIELD_VALUES,
        "author": st.none() | st.text(max_size=5) | FIELD_VALUES,
        "options": st.none()
        | st.fixed_dictionaries({}, optional={"legal_moves": st.booleans() | FIELD_VALUES, "x": FIELD_VALUES})
        | FIELD_VALUES,
        "extra": FIELD_VALUES,
    },
)


@settings(max_examples=800, deadline=None)
@given(HELLO_LIKE)
def test_hello_shaped_objects_read_the_same(value: dict[str, Any]) -> None:
    agree(json.dumps(value).encode(), (Expect.HELLO,))


@settings(max_examples=600, deadline=None)
@given(JSON | st.binary(max_size=200))
def test_random_json_and_bytes_read_the_same(value: Any) -> None:
    agree(value if isinstance(value, bytes) else json.dumps(value).encode())


@pytest.mark.parametrize(
    "line",
    [
        b'{"type":"play","value":8,"count":1,"bonus":0}\r\n',
        b'{"type":"play","value":8,"count":1,"bonus":' + b"9" * 60 + b"}",
        b'{"type":"play","value":8,"count":1,"bonus":' + b"9" * 65 + b"}",
        b'{"type":"play","value":8,"count":1,"bonus":-0}',
        b'{"type":"play","value":8.0,"count":1,"bonus":0}',
        b'{"type":"play","value":true,"count":1,"bonus":0}',
        b'{"type":"play","value":24,"count":1,"bonus":0}',
        b'{"type":"play","value":8,"count":0,"bonus":0}',
        b'{"type":"play","value":8,"count":1}',
        b'{"type":"play","value":8,"count":1,"bonus":0,"type":"play"}',
        b'{"type":"pass","force":null}',
        b'{"type":"pass","force":0}',
        b'{"type":"pass","force":false,"value":"x"}',
        b'{"type":"drop","seat":3}',
        b'{"type":"discard","cards":[]}',
        b'{"type":"discard","cards":[1,23,23]}',
        b'{"type":"discard","cards":[0]}',
        b'{"type":"discard","cards":null}',
        b'{"type":"discard","cards":{"0":1}}',
        b'{"type":"hello","protocol":1,"name":"\\ud800"}',
        b'{"type":"hello","protocol":1,"name":"a","version":"\\udfff"}',
        b'{"type":"hello","protocol":1,"name":"a","options":null,"version":null,"author":null}',
        b'{"type":"hello","protocol":1,"name":"a","options":{}}',
        b'{"type":"hello","protocol":1,"name":"a","options":{"legal_moves":1}}',
        b'{"type":"hello","protocol":1,"name":"a","options":[]}',
        b'{"type":"hello","protocol":2,"name":"a"}',
        b'{"type":"hello","protocol":true,"name":"a"}',
        b'{"type":"hello","name":"a"}',
        b'{"type":"hello","protocol":1}',
        b'{"type":"PLAY"}',
        b'{"type":null}',
        b"{}",
        b"[]",
        b"",
        b"\xff",
        b"x" * 70_000,
    ],
)
def test_edge_cases_read_the_same(line: bytes) -> None:
    agree(line)


@pytest.mark.parametrize(
    ("line", "expect"),
    [
        (b'{"type":"play","value":8,"count":2,"bonus":1}', Expect.TURN),
        (b'{"type":"pass"}', Expect.TURN),
        (b'{"type":"discard","cards":[3,4,5]}', Expect.DISCARD),
        (b'{"type":"hello","protocol":1,"name":"a","options":{"legal_moves":true}}', Expect.HELLO),
        (b'{"type":"play","value":0,"count":2,"bonus":1}', Expect.TURN),
    ],
)
def test_a_line_left_to_the_models_gets_their_answer_as_a_named_tuple(
    line: bytes, expect: Expect, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whatever the light reader leaves to the models (here: everything) comes back as the models answer it."""
    monkeypatch.setattr(replies, "_READ", dict.fromkeys(replies._READ, lambda obj: None))
    assert agree(line, (expect,))
    if agree(line, (expect,)) == ["accepted"]:
        assert isinstance(read_reply(line, expect), tuple)


@settings(max_examples=300, deadline=None)
@given(
    st.text(max_size=10),
    st.none() | st.text(max_size=10),
    st.none() | st.text(max_size=10),
    st.none() | st.booleans(),
)
def test_a_hello_is_logged_as_the_model_dumps_it(
    name: str, version: str | None, author: str | None, legal: Any
) -> None:
    options = None if legal is None else HelloOptionsModel(legal_moves=legal)
    model = HelloReplyModel(protocol=1, name=name, version=version, author=author, options=options)
    dumped = model.model_dump(mode="json")
    assert hello_json(model) == dumped and list(hello_json(model)) == list(dumped)
    light = light_reply(model)
    assert hello_json(light) == dumped and list(hello_json(light)) == list(dumped)


def test_the_referees_hello_and_bye_lines_are_the_models() -> None:
    assert encode(Hello()) == HELLO_LINE
    assert encode(Bye()) == BYE_LINE


@settings(max_examples=500, deadline=None)
@given(st.text())
def test_an_error_line_is_the_models_byte_for_byte(message: str) -> None:
    try:
        expected = encode(ErrorMessage(message=message))
    except ValueError:  # a lone surrogate: the model refuses it; the light line still goes out, readable
        expected = None
    line = error_line(message)
    if expected is not None:
        assert line == expected
    assert json.loads(line)["type"] == "error" and line.endswith(b"}\n")


def test_control_characters_and_quotes_in_an_error_line() -> None:
    message = "".join(chr(c) for c in range(0x20)) + '"\\\x7f\u2028é😀'
    assert error_line(message) == encode(ErrorMessage(message=message))
