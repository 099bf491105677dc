"""The bot side's light parser (``protocol.inbound``) answers as the pydantic models do (``protocol.codec``).

For every line, valid or not, both parsers must agree: both accept it with the same content, or both refuse it
with the same ``ProtocolViolation`` kind. The lines: every message of the protocol page's examples, the messages
of random games, and those messages mutated field by field (wrong types, out of range values, missing and
unknown fields, unknown tags), random JSON and random bytes.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_parse_fuzz import FIELD_VALUES, JSON
from test_protocol_messages import REFEREE_MESSAGES

from protocol import ProtocolViolation, codec, encode, inbound
from protocol.wire import GameWire
from referee.engine import Phase, apply, legal_actions, new_game, observation_for


def _outcome(parse: Any, line: bytes) -> tuple[str, Any]:
    try:
        msg = parse(line)
    except ProtocolViolation as exc:
        assert exc.detail and "\n" not in str(exc)
        return "refused", exc.kind
    data = _plain(msg) if isinstance(msg, tuple) else msg.model_dump()
    return "accepted", _set_fields(data)


def _plain(value: Any) -> Any:
    """A named tuple (and those inside it) as dicts, as ``model_dump`` gives a model."""
    if isinstance(value, tuple) and hasattr(value, "_asdict"):
        return {k: _plain(v) for k, v in value._asdict().items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _set_fields(value: Any) -> Any:
    """The value without its None and False fields (the models' dumps leave out unset optional fields)."""
    if isinstance(value, dict):
        return {k: _set_fields(v) for k, v in value.items() if v is not None and v is not False}
    if isinstance(value, list):
        return [_set_fields(v) for v in value]
    return value


def agree(line: bytes) -> tuple[str, Any]:
    light, models = _outcome(inbound.parse_message, line), _outcome(codec.parse_message, line)
    assert light == models, line[:300]
    return light


def _game_lines(seed: int) -> list[bytes]:
    rng = random.Random(seed)
    players = rng.randint(2, 4)
    state = new_game(players, seed=seed)
    wire = GameWire(f"g{seed}", [f"p{s}" for s in range(players)])
    lines = [wire.game_start(s, state.ruleset.to_dict(), 1000, rng.choice([None, 0, 500])) for s in range(players)]
    while state.phase is not Phase.OVER:
        if state.phase is Phase.PLAY:
            lines.append(wire.turn(observation_for(state, state.to_move), legal_actions(state)))
        else:
            lines.append(wire.deal(state.round + 1, state.hands[0], state.ruleset.discard))
        state = apply(state, rng.choice(legal_actions(state)))
    lines.extend(wire.round_end(r) for r in state.rounds_done)
    assert state.scores is not None and state.ranks is not None
    lines.append(wire.game_end(state.scores, state.ranks, state.forfeited))
    return lines


LINES = [encode(m) for m in REFEREE_MESSAGES] + [line for seed in range(3) for line in _game_lines(seed)]


@pytest.mark.parametrize("line", [encode(m) for m in REFEREE_MESSAGES], ids=lambda b: json.loads(b)["type"])
def test_every_example_message_reads_the_same(line: bytes) -> None:
    assert agree(line)[0] == "accepted"
    assert agree(line.decode())[0] == "accepted"  # type: ignore[arg-type]


def test_the_messages_of_random_games_read_the_same() -> None:
    for line in LINES:
        assert agree(line)[0] == "accepted"


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every place in a JSON value (dict keys and list indexes), outermost first."""
    out = [path]
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(_paths(v, (*path, k)))
    elif isinstance(value, list):
        for i, v in enumerate(value[:3]):
            out.extend(_paths(v, (*path, i)))
    return out


def _mutate(obj: Any, path: tuple[Any, ...], how: str, value: Any) -> Any:
    if not path:
        return value if how == "set" else obj
    head, rest = path[0], path[1:]
    if isinstance(obj, dict):
        obj = dict(obj)
        if not rest and how == "delete":
            del obj[head]
        elif not rest and how == "add":
            obj[f"x_{head}"] = value
        else:
            obj[head] = _mutate(obj[head], rest, how, value)
    else:
        obj = list(obj)
        if not rest and how == "delete":
            del obj[head]
        else:
            obj[head] = _mutate(obj[head], rest, how, value)
    return obj


TAGS = st.sampled_from(["play", "pass", "drop", "turn", "bye", "hello", "jump", "", "PLAY"])


@settings(max_examples=1500, deadline=None)
@given(
    st.sampled_from(LINES),
    st.integers(min_value=0),
    st.sampled_from(["set", "set", "delete", "add"]),
    FIELD_VALUES | TAGS,
)
def test_mutated_messages_read_the_same(line: bytes, where: int, how: str, value: Any) -> None:
    obj = json.loads(line)
    paths = _paths(obj)[1:]
    path = paths[where % len(paths)]
    agree(json.dumps(_mutate(obj, path, how, value)).encode())


@settings(max_examples=300, deadline=None)
@given(JSON)
def test_random_json_reads_the_same(value: Any) -> None:
    agree(json.dumps(value).encode())


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_read_the_same(data: bytes) -> None:
    agree(data)


@pytest.mark.parametrize(
    "line",
    [
        b'{"type":"turn","game":"g","round":1,"seat":0,"hand":[],"last":null,"forced":false,"players":[],'
        b'"history":[{"seat":0,"action":"jump","penalty":0}]}',
        b'{"type":"turn","game":"g","round":1,"seat":0,"hand":[],"last":null,"forced":false,"players":[],'
        b'"history":[{"seat":0,"penalty":0}]}',
        b'{"type":"turn","game":"g","round":0,"seat":0,"hand":[],"last":null,"forced":false,"players":[],'
        b'"history":[{"seat":0,"action":"jump","penalty":0}]}',
        b'{"type":"game_start","game":"\\ud800","seat":0,"players":[],"rules":{},"time":{"move_ms":1}}',
        b'{"type":"game_start","game":"g","seat":0,"players":[],"rules":{},"time":{"move_ms":1,"bank_ms":null}}',
        b'{"type":"deal","game":"g","round":1,"hand":[1,24],"discard":3}',
        b'{"type":"deal","game":"g","round":1,"hand":[1.0],"discard":3}',
        b'{"type":"hello"}',
        b'{"type":"nope"}',
        b'{"type":7}',
        b"[]",
    ],
)
def test_edge_cases_read_the_same(line: bytes) -> None:
    agree(line)
