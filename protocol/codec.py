"""Lines on the wire: encoding messages, strict parsing of bot replies, parsing referee messages.

``parse_reply`` is the referee's gate for everything a bot writes: whatever the bytes, it returns a valid
reply model or raises ``ProtocolViolation``, quickly (no unbounded recursion, no huge-number conversion).
"""

from __future__ import annotations

from pydantic import BaseModel, TypeAdapter, ValidationError

from protocol.errors import ViolationKind
from protocol.jsonline import load_object, show, violate
from protocol.messages import AnyRefereeMessage, AnyReply, RefereeMessage
from protocol.replies import Expect as Expect
from protocol.replies import reply_kind
from protocol.validation import describe, validate_reply

_REFEREE_ADAPTER: TypeAdapter[AnyRefereeMessage] = TypeAdapter(RefereeMessage)


def encode(msg: BaseModel) -> bytes:
    """One protocol line for ``msg``: compact JSON, UTF-8, ending in ``b"\\n"``."""
    return msg.model_dump_json().encode("utf-8") + b"\n"


def parse_reply(line: bytes, expect: Expect) -> AnyReply:
    """The bot reply on ``line`` (one trailing newline allowed), checked against the awaited ``expect``.

    Raises ``ProtocolViolation`` (and nothing else) when the line is over ``MAX_LINE`` bytes, not UTF-8 JSON,
    not an object, of an unknown or unawaited ``type``, has a missing/mistyped/out-of-range field, or is a
    hello reply with a protocol other than 1.
    """
    obj = load_object(line, "reply")
    return validate_reply(reply_kind(obj, expect), obj)


def parse_message(line: bytes | str) -> AnyRefereeMessage:
    """A referee message (the bot side of the wire). No length limit: a turn late in a long round is long.

    Raises ``ProtocolViolation``: kind ``unknown_type`` for a type this protocol version does not define
    (a bot should skip such lines), other kinds for malformed lines.
    """
    raw = line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line
    obj = load_object(raw, "message", limit=None)
    kind = obj.get("type")
    if not isinstance(kind, str):
        violate(ViolationKind.BAD_FIELD, "the message has no string field 'type'")
    try:
        return _REFEREE_ADAPTER.validate_python(obj)
    except ValidationError as exc:
        errors = exc.errors(include_url=False)
        if errors and errors[0]["type"] == "union_tag_invalid":
            violate(ViolationKind.UNKNOWN_TYPE, f"unknown message type {show(kind)}")
        violate(ViolationKind.BAD_FIELD, f"{kind} message: {describe(exc)}")
