"""The pydantic models' judgement of a line: a bot reply validated by its model, and a model's refusal in one line.

``protocol.codec.parse_reply`` and ``protocol.replies.read_reply`` (for a line its light reader does not vouch for)
both end here, so a fault keeps the models' precise reason whichever reader met it.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from protocol.errors import ViolationKind
from protocol.jsonline import show, violate
from protocol.messages import AnyReply, DiscardReply, DropReply, HelloReply, PassReply, PlayReply

__all__ = ["describe", "validate_reply"]

_REPLY_MODELS: dict[str, type[AnyReply]] = {
    "hello": HelloReply,
    "discard": DiscardReply,
    "play": PlayReply,
    "pass": PassReply,
    "drop": DropReply,
}


def validate_reply(kind: str, obj: dict[str, Any]) -> AnyReply:
    """The reply model of type ``kind`` (checked by ``protocol.replies.reply_kind``) for the decoded line ``obj``;
    raises ``ProtocolViolation`` (kind ``bad_field``) naming the first field the model refuses."""
    try:
        return _REPLY_MODELS[kind].model_validate(obj)
    except ValidationError as exc:
        violate(ViolationKind.BAD_FIELD, f"{kind} reply: {describe(exc)}")


_WHY = {
    "missing": "is missing",
    "int_type": "must be an integer",
    "bool_type": "must be true or false",
    "string_type": "must be a string",
    "list_type": "must be a list",
    "model_type": "must be an object",
    "dict_type": "must be an object",
    "literal_error": "has a value that is not allowed",
}


def describe(exc: ValidationError) -> str:
    """The first validation error as ``field 'cards[2]' must be at least 1, got 0``."""
    err = exc.errors(include_url=False)[0]
    field = ""
    for part in err["loc"]:
        field += f"[{part}]" if isinstance(part, int) else (f".{part}" if field else str(part))
    kind = err["type"]
    ctx = err.get("ctx") or {}
    if kind == "greater_than_equal":
        why = f"must be at least {ctx.get('ge')}"
    elif kind == "less_than_equal":
        why = f"must be at most {ctx.get('le')}"
    elif kind == "value_error":
        why = str(ctx.get("error", err["msg"]))
    else:
        why = _WHY.get(kind, err["msg"][:1].lower() + err["msg"][1:])
    if kind == "missing":
        return f"field {field!r} is missing"
    return f"field {field!r} {why}, got {show(err['input'])}"
