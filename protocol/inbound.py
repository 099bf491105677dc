"""The referee's messages as a bot reads them: the json module and small named tuples, no pydantic.

``parse_message`` here accepts and refuses what ``protocol.codec.parse_message`` (the pydantic models, the
protocol's contract) does: the same fields and defaults, strict types (an integer field takes only a JSON
integer), the same ranges, unknown fields ignored, and the same ``ProtocolViolation`` kinds. It gives frozen
named tuples with the models' class and field names. The Python SDK reads with it, so that a bot starts in a few
tens of milliseconds; the tests hold both parsers to the same answers over the same lines.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, NamedTuple, NoReturn

from protocol.errors import ViolationKind
from protocol.jsonline import PROTOCOL_VERSION, load_object, show, violate
from referee.engine.actions import Drop, Pass, Play
from referee.engine.cards import HIGHEST

if TYPE_CHECKING:
    from referee.engine import Event, Observation, PlayerView

# ------------------------------------------------------------------------------------------ messages


class PlayerEntry(NamedTuple):
    name: str
    cards: int
    penalty: int
    bonus: int
    status: Literal["playing", "finished", "dropped"]


class PlayEntry(NamedTuple):
    seat: int
    value: int
    count: int  # type: ignore[assignment]  # shadows tuple.count, as the engine's Play does
    bonus: int
    penalty: int
    finished: bool = False
    forfeit: bool = False
    action: Literal["play"] = "play"


class PassEntry(NamedTuple):
    seat: int
    force: bool
    penalty: int
    action: Literal["pass"] = "pass"


class DropEntry(NamedTuple):
    seat: int
    penalty: int
    forfeit: bool = False
    limit: bool = False
    action: Literal["drop"] = "drop"


class PlayReply(NamedTuple):
    value: int
    count: int  # type: ignore[assignment]
    bonus: int
    type: Literal["play"] = "play"


class PassReply(NamedTuple):
    force: bool = False
    type: Literal["pass"] = "pass"


class DropReply(NamedTuple):
    type: Literal["drop"] = "drop"


class TimeControl(NamedTuple):
    move_ms: int
    bank_ms: int | None = None


class Hello(NamedTuple):
    protocol: int = PROTOCOL_VERSION
    type: Literal["hello"] = "hello"


class GameStart(NamedTuple):
    game: str
    seat: int
    players: list[str]
    rules: dict[str, Any]
    time: TimeControl
    rng_seed: str | None = None
    type: Literal["game_start"] = "game_start"


class DealMessage(NamedTuple):
    game: str
    round: int
    hand: list[int]
    discard: int
    type: Literal["deal"] = "deal"


class Turn(NamedTuple):
    game: str
    round: int
    seat: int
    hand: list[int]
    last: int | None
    forced: bool
    players: list[PlayerEntry]
    history: list[PlayEntry | PassEntry | DropEntry]
    legal: list[PlayReply | PassReply | DropReply] | None = None
    type: Literal["turn"] = "turn"


class RoundEnd(NamedTuple):
    game: str
    round: int
    players: list[PlayerEntry]
    history: list[PlayEntry | PassEntry | DropEntry]
    type: Literal["round_end"] = "round_end"


class GameEnd(NamedTuple):
    game: str
    scores: list[int]
    ranks: list[int]
    forfeits: list[int]
    type: Literal["game_end"] = "game_end"


class ErrorMessage(NamedTuple):
    message: str
    type: Literal["error"] = "error"


class Bye(NamedTuple):
    type: Literal["bye"] = "bye"


Message = Hello | GameStart | DealMessage | Turn | RoundEnd | GameEnd | ErrorMessage | Bye
HistoryEntry = PlayEntry | PassEntry | DropEntry
TurnReply = PlayReply | PassReply | DropReply

# ------------------------------------------------------------------------------------------ parsing


class _Bad(Exception):
    """The first field that breaks the models' rules: where, why, and the value (``missing`` for none)."""

    def __init__(self, where: str, why: str, value: object = None, *, missing: bool = False, tag: bool = False):
        super().__init__(where)
        self.where, self.why, self.value, self.missing, self.tag = where, why, value, missing, tag


_MISSING: Any = object()


def _get(obj: dict[str, Any], key: str, at: str, default: Any = _MISSING) -> Any:
    value = obj.get(key, _MISSING)
    if value is _MISSING:
        if default is _MISSING:
            raise _Bad(at + key, "is missing", missing=True)
        return default
    return value


def _int(value: Any, where: str, low: int | None = None, high: int | None = None) -> int:
    if type(value) is not int:
        raise _Bad(where, "must be an integer", value)
    if low is not None and value < low:
        raise _Bad(where, f"must be at least {low}", value)
    if high is not None and value > high:
        raise _Bad(where, f"must be at most {high}", value)
    return value


def _card(value: Any, where: str) -> int:
    return _int(value, where, 1, HIGHEST)


def _bool(value: Any, where: str) -> bool:
    if type(value) is not bool:
        raise _Bad(where, "must be true or false", value)
    return value


def _text(value: Any, where: str) -> str:
    if type(value) is not str:
        raise _Bad(where, "must be a string", value)
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise _Bad(where, "must be valid Unicode text (it holds a lone surrogate escape)", value) from None
    return value


def _list(value: Any, where: str, item: Callable[[Any, str], Any]) -> list[Any]:
    if type(value) is not list:
        raise _Bad(where, "must be a list", value)
    return [item(v, f"{where}[{i}]") for i, v in enumerate(value)]


def _object(value: Any, where: str) -> dict[str, Any]:
    if type(value) is not dict:
        raise _Bad(where, "must be an object", value)
    return value


def _literal(value: Any, where: str, allowed: tuple[str, ...]) -> Any:
    if type(value) is not str or value not in allowed:
        raise _Bad(where, "has a value that is not allowed", value)
    return value


def _player(value: Any, where: str) -> PlayerEntry:
    obj, at = _object(value, where), where + "."
    return PlayerEntry(
        _text(_get(obj, "name", at), at + "name"),
        _int(_get(obj, "cards", at), at + "cards", 0),
        _int(_get(obj, "penalty", at), at + "penalty"),
        _int(_get(obj, "bonus", at), at + "bonus", 0),
        _literal(_get(obj, "status", at), at + "status", ("playing", "finished", "dropped")),
    )


def _tag(obj: dict[str, Any], key: str, where: str, tags: tuple[str, ...]) -> str:
    tag = obj.get(key, _MISSING)
    if tag is _MISSING:
        raise _Bad(where, f"needs the field {key!r}", obj)
    if type(tag) is not str or tag not in tags:
        raise _Bad(where, f"has an unknown {key} {show(tag)}", tag, tag=True)
    return tag


def _entry(value: Any, where: str) -> HistoryEntry:
    obj = _object(value, where)
    action = _tag(obj, "action", where, ("play", "pass", "drop"))
    at = f"{where}.{action}."
    seat = _int(_get(obj, "seat", at), at + "seat", 0)
    if action == "play":
        return PlayEntry(
            seat,
            _card(_get(obj, "value", at), at + "value"),
            _int(_get(obj, "count", at), at + "count", 1),
            _int(_get(obj, "bonus", at), at + "bonus", 0),
            _int(_get(obj, "penalty", at), at + "penalty"),
            _bool(_get(obj, "finished", at, False), at + "finished"),
            _bool(_get(obj, "forfeit", at, False), at + "forfeit"),
        )
    if action == "pass":
        return PassEntry(
            seat, _bool(_get(obj, "force", at), at + "force"), _int(_get(obj, "penalty", at), at + "penalty")
        )
    return DropEntry(
        seat,
        _int(_get(obj, "penalty", at), at + "penalty"),
        _bool(_get(obj, "forfeit", at, False), at + "forfeit"),
        _bool(_get(obj, "limit", at, False), at + "limit"),
    )


def _reply(value: Any, where: str) -> TurnReply:
    obj = _object(value, where)
    kind = _tag(obj, "type", where, ("play", "pass", "drop"))
    at = f"{where}.{kind}."
    if kind == "play":
        return PlayReply(
            _card(_get(obj, "value", at), at + "value"),
            _int(_get(obj, "count", at), at + "count", 1),
            _int(_get(obj, "bonus", at), at + "bonus", 0),
        )
    if kind == "pass":
        return PassReply(_bool(_get(obj, "force", at, False), at + "force"))
    return DropReply()


def _time(value: Any, where: str) -> TimeControl:
    obj, at = _object(value, where), where + "."
    bank = _get(obj, "bank_ms", at, None)
    return TimeControl(
        _int(_get(obj, "move_ms", at), at + "move_ms", 1), None if bank is None else _int(bank, at + "bank_ms", 0)
    )


def _rules(value: Any, where: str) -> dict[str, Any]:
    return _object(value, where)


def _build(kind: str, o: dict[str, Any]) -> Message:
    g = _get
    if kind == "hello":
        return Hello(_int(g(o, "protocol", "", PROTOCOL_VERSION), "protocol"))
    if kind == "game_start":
        return GameStart(
            _text(g(o, "game", ""), "game"),
            _int(g(o, "seat", ""), "seat", 0),
            _list(g(o, "players", ""), "players", _text),
            _rules(g(o, "rules", ""), "rules"),
            _time(g(o, "time", ""), "time"),
            None if (rng := g(o, "rng_seed", "", None)) is None else _text(rng, "rng_seed"),
        )
    if kind == "deal":
        return DealMessage(
            _text(g(o, "game", ""), "game"),
            _int(g(o, "round", ""), "round", 1),
            _list(g(o, "hand", ""), "hand", _card),
            _int(g(o, "discard", ""), "discard", 0),
        )
    if kind == "turn":
        game = _text(g(o, "game", ""), "game")
        round_ = _int(g(o, "round", ""), "round", 1)
        seat = _int(g(o, "seat", ""), "seat", 0)
        hand = _list(g(o, "hand", ""), "hand", _card)
        last = g(o, "last", "")
        last = None if last is None else _card(last, "last")
        forced = _bool(g(o, "forced", ""), "forced")
        players = _list(g(o, "players", ""), "players", _player)
        history = _list(g(o, "history", ""), "history", _entry)
        legal = g(o, "legal", "", None)
        legal = None if legal is None else _list(legal, "legal", _reply)
        return Turn(game, round_, seat, hand, last, forced, players, history, legal)
    if kind == "round_end":
        return RoundEnd(
            _text(g(o, "game", ""), "game"),
            _int(g(o, "round", ""), "round", 1),
            _list(g(o, "players", ""), "players", _player),
            _list(g(o, "history", ""), "history", _entry),
        )
    if kind == "game_end":
        return GameEnd(
            _text(g(o, "game", ""), "game"),
            _list(g(o, "scores", ""), "scores", _int),
            _list(g(o, "ranks", ""), "ranks", lambda v, w: _int(v, w, 1)),
            _list(g(o, "forfeits", ""), "forfeits", lambda v, w: _int(v, w, 0)),
        )
    if kind == "error":
        return ErrorMessage(_text(g(o, "message", ""), "message"))
    return Bye()


_KINDS = ("hello", "game_start", "deal", "turn", "round_end", "game_end", "error", "bye")


def parse_message(line: bytes | str) -> Message:
    """A referee message, as ``protocol.codec.parse_message`` reads it but as a named tuple. No length
    limit: a turn late in a long round is long.

    Raises ``ProtocolViolation``: kind ``unknown_type`` for a type this protocol version does not define (a bot
    should skip such lines), other kinds for malformed lines.
    """
    raw = line.encode("utf-8", "surrogatepass") if isinstance(line, str) else line
    obj = load_object(raw, "message", limit=None)
    kind = obj.get("type")
    if not isinstance(kind, str):
        violate(ViolationKind.BAD_FIELD, "the message has no string field 'type'")
    if kind not in _KINDS:
        violate(ViolationKind.UNKNOWN_TYPE, f"unknown message type {show(kind)}")
    try:
        return _build(kind, obj)
    except _Bad as bad:
        _refuse(kind, bad)


def _refuse(kind: str, bad: _Bad) -> NoReturn:
    if bad.tag:  # as the models' tagged unions report it
        violate(ViolationKind.UNKNOWN_TYPE, f"{kind} message: field {bad.where!r} {bad.why}")
    if bad.missing:
        violate(ViolationKind.BAD_FIELD, f"{kind} message: field {bad.where!r} is missing")
    violate(ViolationKind.BAD_FIELD, f"{kind} message: field {bad.where!r} {bad.why}, got {show(bad.value)}")


# ------------------------------------------------------------------------------------------ to the engine


def entry_to_event(entry: HistoryEntry) -> Event:
    """The engine event of a ``history`` entry (of these named tuples or of the pydantic models: the same
    fields)."""
    from referee.engine.events import DropEvent, PassEvent, PlayEvent

    if entry.action == "play":
        return PlayEvent(
            entry.seat, entry.value, entry.count, entry.bonus, entry.penalty, entry.finished, entry.forfeit
        )
    if entry.action == "pass":
        return PassEvent(entry.seat, entry.force, entry.penalty)
    return DropEvent(entry.seat, entry.penalty, entry.forfeit, entry.limit)


def player_view(entry: PlayerEntry) -> PlayerView:
    """The engine's view of one ``players`` entry (the name is not part of it)."""
    from referee.engine.state import PlayerView, Status

    return PlayerView(entry.cards, entry.penalty, entry.bonus, Status(entry.status))


def observation_from_turn(turn: Turn) -> Observation:
    """The engine observation a ``turn`` message carries (the bot's seat is the one to move)."""
    from referee.engine.observation import Observation

    return Observation(
        seat=turn.seat,
        round=turn.round,
        hand=tuple(sorted(turn.hand)),
        last=turn.last,
        forced=turn.forced,
        to_move=turn.seat,
        players=tuple(player_view(p) for p in turn.players),
        history=tuple(entry_to_event(e) for e in turn.history),
    )


def reply_to_action(reply: TurnReply) -> Play | Pass | Drop:
    """The engine action of a turn reply (of these named tuples or of the pydantic models)."""
    if reply.type == "play":
        return Play(reply.value, reply.count, reply.bonus)
    if reply.type == "pass":
        return Pass(reply.force)
    return Drop()
