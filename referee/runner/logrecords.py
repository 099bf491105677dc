"""The game log's records: one frozen, typed record per event kind, and the one parser from a log line's object.

The writer (``play_game``, through ``GameLogWriter.record``) builds these records and writes ``to_json()``; every
reader (``verify_log``, ``render_log``, the report's ``read_game_log``, ``verify-deals``) gets them back from
``parse_header`` and ``parse_event``, so what a field holds and how an action is decoded is said once, here. The
lines of a log and their order are described in ``referee.runner.gamelog``.

A record read from a file knows its line (``line``, 1-based; 0 for a record being written). The parser raises
``LogError`` (with that ``line``) for an event whose fields are missing or of the wrong type; an event kind it
does not know is skipped (None), so a newer log with more kinds of event still reads.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from protocol.errors import ProtocolViolation
from protocol.inbound import DropReply, PassReply, PlayReply, reply_to_action
from protocol.replies import Expect, read_reply
from referee.engine import (
    Deal,
    DealError,
    Drop,
    Pass,
    Play,
    RefereeError,
    Ruleset,
    RulesetError,
    TurnAction,
    deal_from_json,
    deal_to_json,
)
from referee.memo import Memo
from referee.runner.faults import Fault

LOG_FORMAT = 1

#: One JSON object of the log as written (a history entry, a round's table row, a message, a hello).
JsonObject = dict[str, Any]


class LogError(RefereeError, ValueError):
    """A game log cannot be read. ``reason`` says why; the message puts the file (``path``) and ``line`` before it,
    when known."""

    def __init__(self, reason: str, *, path: Path | None = None, line: int | None = None) -> None:
        where = f"{path}:{line}: " if path and line else f"{path}: " if path else f"line {line}: " if line else ""
        super().__init__(where + reason)
        self.reason = reason
        self.path = path
        self.line = line

    def at(self, path: Path) -> LogError:
        """The same error, naming the file it is in."""
        return type(self)(self.reason, path=path, line=self.line)


class NoHeader(LogError):
    """A file that is ``empty`` or does not begin with the ``game`` header: not a game log. Its ``reason`` names the
    file already."""

    def __init__(self, reason: str, *, empty: bool = False) -> None:
        super().__init__(reason)
        self.empty = empty

    def at(self, path: Path) -> LogError:
        """This error, with ``path`` (which its reason already names)."""
        self.path = path
        return self


# ---------------------------------------------------------------------------------------------- actions


def action_to_json(action: TurnAction) -> JsonObject:
    """The wire form of an engine turn action (as the bot's reply would read: ``action_to_reply``'s fields)."""
    if isinstance(action, Play):
        return {"type": "play", "value": action.value, "count": action.count, "bonus": action.bonus}
    if isinstance(action, Pass):
        return {"type": "pass", "force": True} if action.force else {"type": "pass"}
    return {"type": "drop"}


#: Logged actions already read, by their fields with the fields' types (a game has a few dozen actions, and the
#: same few hundred recur across a tournament's logs); engine actions are immutable, so they can be shared.
_ACTIONS: Memo[tuple[tuple[str, type, Any], ...], Play | Pass | Drop] = Memo("runner.logrecords.ACTIONS", 4096)


def action_from_json(data: Any) -> Play | Pass | Drop:
    """The engine action of a logged ``action``, read as protocol v1 reads a bot's turn reply. Raises
    ``ValueError`` for what is not one (naming the offending type or field)."""
    key = None
    if type(data) is dict and all(type(v) in (int, str, bool) for v in data.values()):
        key = tuple((k, type(v), v) for k, v in data.items())
        known = _ACTIONS.get(key)
        if known is not None:
            return known
    try:
        reply = read_reply(json.dumps(data).encode(), Expect.TURN)
    except ProtocolViolation as exc:
        raise ValueError(f"not a turn reply: {exc}") from None
    assert isinstance(reply, PlayReply | PassReply | DropReply)  # what read_reply gives for Expect.TURN
    action = reply_to_action(reply)
    return action if key is None else _ACTIONS.keep(key, action)


# ---------------------------------------------------------------------------------------------- records


@dataclass(frozen=True, slots=True)
class LogHeader:
    """The ``game`` line: who played (``names`` by seat), by which rules, on which deal (from ``seed``, or given),
    and each seat's move time in milliseconds (None: no limit). ``wire`` False: a compact log, without the ``send``
    and ``recv`` lines (the header then says ``"wire":false``)."""

    game: str
    names: tuple[str, ...]
    ruleset: Ruleset
    seed: int | None
    deal: Deal
    move_ms: tuple[int | None, ...]
    format: int = LOG_FORMAT
    wire: bool = True
    line: int = 0

    def to_json(self) -> JsonObject:
        data: JsonObject = {
            "event": "game",
            "format": self.format,
            "game": self.game,
            "names": list(self.names),
            "rules": self.ruleset.to_dict(),
            "seed": self.seed,
            "deal": deal_to_json(self.deal),
            "move_ms": list(self.move_ms),
        }
        if not self.wire:
            data["wire"] = False
        return data


@dataclass(frozen=True, slots=True)
class SendEvent:
    """A message the referee sent to ``seat`` (``msg``: the object, as on the wire)."""

    t: float
    seat: int
    msg: JsonObject
    line: int = 0


@dataclass(frozen=True, slots=True)
class RecvEvent:
    """A line ``seat`` wrote (``text``: as read, whole when it was an accepted reply), ``ms`` milliseconds after the
    request; ``cpu_ms`` the CPU time it used under ``--clock cpu``."""

    t: float
    seat: int
    ms: float
    text: str
    cpu_ms: float | None = None
    line: int = 0


@dataclass(frozen=True, slots=True)
class PlayerEvent:
    """A seat's bot after start-up: its tournament ``name`` and its ``hello`` reply (None: it gave none)."""

    seat: int
    name: str
    hello: JsonObject | None
    line: int = 0

    def to_json(self) -> JsonObject:
        return {"event": "player", "seat": self.seat, "name": self.name, "hello": self.hello}


@dataclass(frozen=True, slots=True)
class DiscardEvent:
    """A discard as applied in ``round`` (1-based), made by the bot, or by the referee for a forfeiter."""

    t: float
    round: int
    seat: int
    cards: tuple[int, ...]
    by: Literal["bot", "referee"] | None
    line: int = 0

    def to_json(self) -> JsonObject:
        return {
            "event": "discard", "t": self.t, "round": self.round, "seat": self.seat, "cards": list(self.cards),
            "by": self.by,
        }  # fmt: skip


@dataclass(frozen=True, slots=True)
class ActionEvent:
    """A turn action as applied, with the engine's history entries (``Event.to_dict``) it produced."""

    t: float
    round: int
    turn: int
    seat: int
    action: TurnAction
    entries: tuple[JsonObject, ...]
    line: int = 0

    def to_json(self) -> JsonObject:
        return {
            "event": "action", "t": self.t, "round": self.round, "turn": self.turn, "seat": self.seat,
            "action": action_to_json(self.action), "entries": list(self.entries),
        }  # fmt: skip


@dataclass(frozen=True, slots=True)
class FaultEvent:
    """A recorded fault."""

    t: float
    fault: Fault
    line: int = 0

    def to_json(self) -> JsonObject:
        return {"event": "fault", "t": self.t, **self.fault.to_dict()}


@dataclass(frozen=True, slots=True)
class ForfeitEvent:
    """The referee's forfeit of ``seat`` (``forfeited`` False: the game was already over, the result stands), with
    the history entries it produced (None when not logged)."""

    t: float
    seat: int
    forfeited: bool
    entries: tuple[JsonObject, ...] | None = None
    line: int = 0

    def to_json(self) -> JsonObject:
        data: JsonObject = {"event": "forfeit", "t": self.t, "seat": self.seat, "forfeited": self.forfeited}
        if self.entries is not None:
            data["entries"] = list(self.entries)
        return data


@dataclass(frozen=True, slots=True)
class RoundEndEvent:
    """A finished round: each seat's discard and its row of the table (cards, penalty, bonus, status)."""

    t: float
    round: int
    discards: tuple[tuple[int, ...], ...]
    table: tuple[JsonObject, ...]
    line: int = 0

    def to_json(self) -> JsonObject:
        return {
            "event": "round_end", "t": self.t, "round": self.round, "discards": [list(d) for d in self.discards],
            "table": list(self.table),
        }  # fmt: skip


@dataclass(frozen=True, slots=True)
class ResultEvent:
    """The game's end: scores, ranks, the seats that forfeited, every fault."""

    t: float
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    forfeits: tuple[int, ...]
    faults: tuple[Fault, ...]
    line: int = 0

    def to_json(self) -> JsonObject:
        return {
            "event": "result", "t": self.t, "scores": list(self.scores), "ranks": list(self.ranks),
            "forfeits": list(self.forfeits), "faults": [f.to_dict() for f in self.faults],
        }  # fmt: skip


LogEvent = (
    SendEvent | RecvEvent | PlayerEvent | DiscardEvent | ActionEvent | FaultEvent | ForfeitEvent | RoundEndEvent
    | ResultEvent
)  # fmt: skip

# ---------------------------------------------------------------------------------------------- the parser


def parse_header(obj: Mapping[str, Any], line: int = 1) -> LogHeader:
    """The ``game`` header from its line's object. Raises ``LogError`` (with ``line``) when a field is missing or its
    rules or deal are invalid."""
    try:
        ruleset = Ruleset.from_dict(obj["rules"])
        deal = deal_from_json(obj["deal"], ruleset)
        names = tuple(str(n) for n in obj["names"])
        seed = obj.get("seed")
        move_ms = tuple(None if m is None else int(m) for m in obj.get("move_ms") or ())
        return LogHeader(
            game=str(obj.get("game", "?")),
            names=names,
            ruleset=ruleset,
            seed=None if seed is None else int(seed),
            deal=deal,
            move_ms=move_ms,
            format=int(obj.get("format", LOG_FORMAT)),
            wire=obj.get("wire", True) is not False,
            line=line,
        )
    except (KeyError, TypeError) as exc:
        raise LogError(f"the game header lacks {exc}", line=line) from None
    except (RulesetError, DealError, ValueError) as exc:
        raise LogError(f"the game header's rules or deal are invalid: {exc}", line=line) from None


def parse_event(obj: Mapping[str, Any], line: int = 0) -> LogEvent | None:
    """The record of one event line's object (not the header); None for an event kind this referee does not log.
    Raises ``LogError`` (with ``line``) naming the event when a field is missing or of the wrong type."""
    kind = obj.get("event")
    parse = _PARSERS.get(kind) if isinstance(kind, str) else None
    if parse is None:
        return None
    try:
        return parse(obj, line)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise LogError(f"malformed {kind} event: {exc}", line=line) from None


def _ints(values: Any) -> tuple[int, ...]:
    return tuple(int(v) for v in values)


def _objects(values: Any) -> tuple[JsonObject, ...]:
    out = tuple(values)
    if not all(isinstance(v, dict) for v in out):
        raise TypeError(f"a list of objects, got {values!r}")
    return out


def _send(o: Mapping[str, Any], line: int) -> SendEvent:
    msg = o["msg"]
    if not isinstance(msg, dict):
        raise TypeError(f"a message is an object, got {msg!r}")
    return SendEvent(float(o.get("t", 0.0)), int(o["seat"]), msg, line)


def _recv(o: Mapping[str, Any], line: int) -> RecvEvent:
    cpu = o.get("cpu_ms")
    text = o["line"]
    return RecvEvent(
        float(o.get("t", 0.0)), int(o["seat"]), float(o.get("ms", 0.0)), str(text),
        None if cpu is None else float(cpu), line,
    )  # fmt: skip


def _player(o: Mapping[str, Any], line: int) -> PlayerEvent:
    hello = o.get("hello")
    return PlayerEvent(int(o["seat"]), str(o.get("name", "")), hello if isinstance(hello, dict) else None, line)


def _discard(o: Mapping[str, Any], line: int) -> DiscardEvent:
    by = o.get("by")
    if by not in ("bot", "referee", None):
        raise ValueError(f"'by' is 'bot' or 'referee', got {by!r}")
    cards = tuple(sorted(_ints(o["cards"])))
    return DiscardEvent(float(o.get("t", 0.0)), int(o["round"]), int(o["seat"]), cards, by, line)


def _action(o: Mapping[str, Any], line: int) -> ActionEvent:
    action = action_from_json(o["action"])  # first: what a reader of the moves most needs
    return ActionEvent(
        float(o.get("t", 0.0)), int(o["round"]), int(o["turn"]), int(o["seat"]), action, _objects(o["entries"]), line
    )


def _fault(o: Mapping[str, Any], line: int) -> FaultEvent:
    return FaultEvent(float(o.get("t", 0.0)), Fault.from_dict(dict(o)), line)


def _forfeit(o: Mapping[str, Any], line: int) -> ForfeitEvent:
    entries = o.get("entries")
    return ForfeitEvent(
        float(o.get("t", 0.0)), int(o["seat"]), bool(o.get("forfeited", True)),
        None if entries is None else _objects(entries), line,
    )  # fmt: skip


def _round_end(o: Mapping[str, Any], line: int) -> RoundEndEvent:
    discards = tuple(_ints(d) for d in o.get("discards") or ())
    return RoundEndEvent(float(o.get("t", 0.0)), int(o["round"]), discards, _objects(o["table"]), line)


def _result(o: Mapping[str, Any], line: int) -> ResultEvent:
    return ResultEvent(
        float(o.get("t", 0.0)), _ints(o["scores"]), _ints(o["ranks"]), _ints(o["forfeits"]),
        tuple(Fault.from_dict(f) for f in o.get("faults", ())), line,
    )  # fmt: skip


_PARSERS: dict[str, Callable[[Mapping[str, Any], int], LogEvent]] = {
    "send": _send,
    "recv": _recv,
    "player": _player,
    "discard": _discard,
    "action": _action,
    "fault": _fault,
    "forfeit": _forfeit,
    "round_end": _round_end,
    "result": _result,
}
