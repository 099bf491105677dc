"""The protocol's one error: a bot's line that breaks protocol v1."""

from __future__ import annotations

from enum import StrEnum
from typing import Final

from referee.engine.errors import BotError


class ViolationKind(StrEnum):
    """Every ``ProtocolViolation.kind``; the value is the string a game log, a database and JSON record."""

    LINE_TOO_LONG = "line_too_long"  # a line over MAX_LINE bytes
    INVALID_JSON = "invalid_json"  # not UTF-8, not JSON, or JSON this parser refuses (NaN, huge numbers, deep nesting)
    NOT_OBJECT = "not_object"  # valid JSON but not an object
    UNKNOWN_TYPE = "unknown_type"  # "type" is not the type of any reply
    WRONG_TYPE = "wrong_type"  # a reply type, but not the awaited one
    BAD_FIELD = "bad_field"  # a missing, mistyped or out-of-range field
    PROTOCOL_VERSION = "protocol_version"  # a hello reply with a protocol other than 1


#: Every ``ProtocolViolation.kind``.
KINDS: Final = frozenset(ViolationKind)


class ProtocolViolation(BotError):
    """A bot sent a line protocol v1 does not allow; the bot forfeits its game.

    ``kind`` is one of ``KINDS`` (a ``ViolationKind``); ``detail`` says what was wrong, in one line, for the bot's
    author; ``line`` is the offending line (or its start) when the one who read it passes it. ``str(exc)`` is
    ``"protocol violation: <detail>"``.
    """

    def __init__(self, kind: str, detail: str, *, line: bytes | str | None = None) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown protocol violation kind {kind!r}")
        detail = " ".join(detail.split())
        super().__init__(kind, detail, line=line, message=f"protocol violation: {detail}")
