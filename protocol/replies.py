"""Bot replies as the referee reads them, without pydantic: the json module and small named tuples.

``read_reply`` gives, for every line it accepts, exactly ``protocol.codec.parse_reply``'s answer (the pydantic
models, the protocol's contract) as a named tuple with the model's class and field names. A line whose fields it
cannot vouch for (a fault, or anything unusual) goes to ``parse_reply``'s model validation, imported then, so a
fault keeps the models' precise reason. A run whose bots behave never imports pydantic. The tests hold both
parsers to the same answers over every reply of real games and over generated and malformed lines.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import Enum
from typing import Any, Literal, NamedTuple, TypeGuard

from protocol.errors import ViolationKind
from protocol.inbound import DropReply, PassReply, PlayReply
from protocol.jsonline import PROTOCOL_VERSION, load_object, show, violate
from referee.engine.actions import Discard
from referee.engine.cards import HIGHEST


class Expect(Enum):
    """The reply the referee awaits: to a ``hello``, a ``deal`` or a ``turn``."""

    HELLO = ("hello",)
    DISCARD = ("discard",)
    TURN = ("play", "pass", "drop")

    @property
    def types(self) -> tuple[str, ...]:
        """The reply types accepted."""
        return self.value  # type: ignore[no-any-return]

    @property
    def prompt(self) -> str:
        """The referee message this reply answers."""
        return {"HELLO": "hello", "DISCARD": "deal", "TURN": "turn"}[self.name]


class HelloOptions(NamedTuple):
    legal_moves: bool = False


class HelloReply(NamedTuple):
    protocol: int
    name: str
    version: str | None = None
    author: str | None = None
    options: HelloOptions | None = None
    type: Literal["hello"] = "hello"

    @property
    def wants_legal_moves(self) -> bool:
        return self.options is not None and self.options.legal_moves


class DiscardReply(NamedTuple):
    cards: list[int]
    type: Literal["discard"] = "discard"


Reply = HelloReply | DiscardReply | PlayReply | PassReply | DropReply

__all__ = [
    "REPLY_TYPES",
    "DiscardReply",
    "DropReply",
    "Expect",
    "HelloOptions",
    "HelloReply",
    "PassReply",
    "PlayReply",
    "Reply",
    "TurnReply",
    "discard_to_action",
    "hello_json",
    "light_reply",
    "read_reply",
    "reply_kind",
]
TurnReply = PlayReply | PassReply | DropReply

#: Every reply type, for the checks before a reply's fields are read.
REPLY_TYPES = frozenset({"hello", "discard", "play", "pass", "drop"})


def reply_kind(obj: dict[str, Any], expect: Expect) -> str:
    """The ``type`` of the reply object ``obj``, checked against the awaited ``expect`` (and a hello reply's
    protocol version); raises ``ProtocolViolation`` as ``parse_reply`` does, before any field is validated."""
    kind = obj.get("type")
    if not isinstance(kind, str):
        if "type" not in obj:
            violate(ViolationKind.BAD_FIELD, f"the reply has no field 'type'; expected {_expected(expect)}")
        violate(
            ViolationKind.BAD_FIELD, f"field 'type' must be a string, got {show(kind)}; expected {_expected(expect)}"
        )
    if kind not in REPLY_TYPES:
        violate(ViolationKind.UNKNOWN_TYPE, f"unknown reply type {show(kind)}; expected {_expected(expect)}")
    if kind not in expect.types:
        violate(
            ViolationKind.WRONG_TYPE,
            f"a {kind!r} reply does not answer a {expect.prompt}; expected {_expected(expect)}",
        )
    if kind == "hello":
        version = obj.get("protocol")
        if isinstance(version, int) and not isinstance(version, bool) and version != PROTOCOL_VERSION:
            violate(
                ViolationKind.PROTOCOL_VERSION,
                f"the bot speaks protocol {show(version)}; this referee speaks protocol {PROTOCOL_VERSION}",
            )
    return kind


def _expected(expect: Expect) -> str:
    return " or ".join(repr(t) for t in expect.types)


def read_reply(line: bytes, expect: Expect) -> Reply:
    """The bot reply on ``line`` (one trailing newline allowed), as ``parse_reply(line, expect)`` reads it, as a
    named tuple. Raises ``ProtocolViolation`` (and nothing else), with ``parse_reply``'s kind and detail."""
    obj = load_object(line, "reply")
    kind = reply_kind(obj, expect)
    reply = _READ[kind](obj)
    if reply is None:  # not a line this reader vouches for: the models decide, and say why when they refuse
        from protocol.validation import validate_reply

        reply = light_reply(validate_reply(kind, obj))
    return reply


# Each reader returns None for anything but a plainly valid reply (then the models decide). Valid means what the
# models accept: strict types (an integer is a JSON integer, not a float or a boolean), their ranges, text that
# is valid Unicode, optional fields absent or null, and any field the model does not know ignored.


def _card(value: Any) -> TypeGuard[int]:
    return type(value) is int and 1 <= value <= HIGHEST


def _text(value: Any) -> TypeGuard[str]:
    if type(value) is not str:
        return False
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate from a \ud800 escape: the models refuse it
        return False
    return True


def _read_play(obj: dict[str, Any]) -> PlayReply | None:
    value, count, bonus = obj.get("value"), obj.get("count"), obj.get("bonus")
    if _card(value) and type(count) is int and count >= 1 and type(bonus) is int and bonus >= 0:
        return PlayReply(value, count, bonus)
    return None


def _read_pass(obj: dict[str, Any]) -> PassReply | None:
    force = obj.get("force", False)
    return PassReply(force) if type(force) is bool else None


def _read_drop(obj: dict[str, Any]) -> DropReply:
    return DropReply()


def _read_discard(obj: dict[str, Any]) -> DiscardReply | None:
    cards = obj.get("cards")
    if type(cards) is list and all(_card(c) for c in cards):
        return DiscardReply(cards)
    return None


def _read_hello(obj: dict[str, Any]) -> HelloReply | None:
    protocol, name = obj.get("protocol"), obj.get("name")
    version, author, options = obj.get("version"), obj.get("author"), obj.get("options")
    if type(protocol) is not int or not _text(name):
        return None
    if (version is not None and not _text(version)) or (author is not None and not _text(author)):
        return None
    opts = None
    if options is not None:
        legal = options.get("legal_moves", False) if type(options) is dict else None
        if type(legal) is not bool:
            return None
        opts = HelloOptions(legal)
    return HelloReply(protocol, name, version, author, opts)


_READ: dict[str, Callable[[dict[str, Any]], Reply | None]] = {
    "play": _read_play,
    "pass": _read_pass,
    "drop": _read_drop,
    "discard": _read_discard,
    "hello": _read_hello,
}


def light_reply(reply: Any) -> Reply:
    """The named tuple of a reply model (or of a named tuple: the same), field by field."""
    kind = reply.type
    if kind == "play":
        return PlayReply(reply.value, reply.count, reply.bonus)
    if kind == "pass":
        return PassReply(reply.force)
    if kind == "drop":
        return DropReply()
    if kind == "discard":
        return DiscardReply(list(reply.cards))
    options = None if reply.options is None else HelloOptions(reply.options.legal_moves)
    return HelloReply(reply.protocol, reply.name, reply.version, reply.author, options)


def hello_json(hello: Any) -> dict[str, Any]:
    """A hello reply (a named tuple or the model) as ``HelloReply.model_dump(mode="json")`` gives it: the fields
    in the model's order, version, author and options left out when unset."""
    data: dict[str, Any] = {"type": "hello", "protocol": hello.protocol, "name": hello.name}
    if hello.version is not None:
        data["version"] = hello.version
    if hello.author is not None:
        data["author"] = hello.author
    if hello.options is not None:
        data["options"] = {"legal_moves": hello.options.legal_moves}
    return data


def discard_to_action(seat: int, reply: Any) -> Discard:
    """The engine action of ``seat``'s discard reply (a named tuple or the model; cards sorted; legality is the
    engine's to check)."""
    return Discard(seat, tuple(sorted(reply.cards)))
