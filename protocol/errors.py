"""The protocol's one error: a bot's line that breaks protocol v1."""

from __future__ import annotations

from typing import Final

from referee.engine.errors import BotError

#: Every ``ProtocolViolation.kind``.
KINDS: Final = frozenset(
    {
        "line_too_long",  # a line over MAX_LINE bytes
        "invalid_json",  # not UTF-8, not JSON, or JSON this parser refuses (NaN, huge numbers, deep nesting)
        "not_object",  # valid JSON but not an object
        "unknown_type",  # "type" is not the type of any reply
        "wrong_type",  # a reply type, but not the awaited one
        "bad_field",  # a missing, mistyped or out-of-range field
        "protocol_version",  # a hello reply with a protocol other than 1
    }
)


class ProtocolViolation(BotError):
    """A bot sent a line protocol v1 does not allow; the bot forfeits its game.

    ``kind`` is one of ``KINDS``; ``detail`` says what was wrong, in one line, for the bot's author; ``line`` is
    the offending line (or its start) when the one who read it passes it. ``str(exc)`` is
    ``"protocol violation: <detail>"``.
    """

    def __init__(self, kind: str, detail: str, *, line: bytes | str | None = None) -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown protocol violation kind {kind!r}")
        detail = " ".join(detail.split())
        super().__init__(kind, detail, line=line, message=f"protocol violation: {detail}")
