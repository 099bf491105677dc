"""Reading one JSON line of protocol v1, safely: size limit, UTF-8, no NaN, no huge numbers, no deep nesting.

Shared by the referee's strict reply parser (``protocol.codec``) and the bot side's light message parser
(``protocol.inbound``); it needs only the json module, so a bot that uses it starts fast.
"""

from __future__ import annotations

import json
from typing import Any, NoReturn

from protocol.errors import ProtocolViolation, ViolationKind

#: The protocol version this package speaks.
PROTOCOL_VERSION = 1

#: The longest line (in bytes, without its newline) a bot may write.
MAX_LINE = 65536

#: Integers longer than this many digits are refused before conversion (no field needs more than a few).
_MAX_INT_DIGITS = 64


def violate(kind: ViolationKind, detail: str) -> NoReturn:
    raise ProtocolViolation(kind, detail)


def _refuse_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON")


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > _MAX_INT_DIGITS:
        raise ValueError(f"an integer of {len(text)} digits is too large")
    return int(text)


def _unique_names(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj = dict(pairs)
    if len(obj) != len(pairs):
        seen: set[str] = set()
        for name, _ in pairs:
            if name in seen:
                raise ValueError(f"the name {json.dumps(name)[:80]} appears twice in one object")
            seen.add(name)
    return obj


#: One decoder for every line (building one per call costs more than decoding a short reply). An object that
#: repeats a name is refused: which of the two values counts differs between JSON parsers (RFC 8259, section 4),
#: so a game log holding such a line could be read back differently from how the referee judged it.
_DECODER = json.JSONDecoder(parse_constant=_refuse_constant, parse_int=_parse_int, object_pairs_hook=_unique_names)


def load_object(line: bytes, what: str, limit: int | None = MAX_LINE) -> dict[str, Any]:
    if line.endswith(b"\n"):
        line = line[:-1]
        if line.endswith(b"\r"):
            line = line[:-1]
    if limit is not None and len(line) > limit:
        violate(ViolationKind.LINE_TOO_LONG, f"the {what} line has {len(line)} bytes, the limit is {limit}")
    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        violate(ViolationKind.INVALID_JSON, f"the {what} line is not UTF-8 (byte {exc.start})")
    if not text.strip():
        violate(ViolationKind.INVALID_JSON, f"the {what} line is empty; expected one JSON object")
    try:
        obj = _DECODER.decode(text)
    except RecursionError:
        violate(ViolationKind.INVALID_JSON, f"the {what} line nests JSON too deeply")
    except ValueError as exc:  # json.JSONDecodeError and our own refusals
        violate(ViolationKind.INVALID_JSON, f"the {what} line is not valid JSON: {_first_line(str(exc))}")
    if not isinstance(obj, dict):
        violate(ViolationKind.NOT_OBJECT, f"the {what} line is {_json_kind(obj)}, not a JSON object")
    return obj


def _first_line(text: str) -> str:
    return text.splitlines()[0][:200] if text else "unreadable"


def _json_kind(value: object) -> str:
    if isinstance(value, list):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool) or value is None:
        return f"JSON {json.dumps(value)}"
    return "a number"


def show(value: object) -> str:
    """A short one-line rendering of a bad value for an error message."""
    try:
        text = json.dumps(value, ensure_ascii=True)
    except (TypeError, ValueError, RecursionError):
        text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
