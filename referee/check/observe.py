"""The bot under check as a game entrant that records every exchange (and can dress messages up).

``ObservedBot`` wraps the runner's ``Player``: ``play_game`` uses it like any entrant, and it keeps, per game,
every message sent to the bot with the line that came back, the reply time and the situations the message
put the bot in. In a *tolerance* game it also adds unknown fields to every message (top level and nested)
and sends messages of an unknown type, which protocol v1 lets a bot receive and obliges it to ignore.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import trio

from protocol import AnyReply, Expect, HelloReply, ProtocolViolation
from referee.check.situations import Situation, situations_of_turn
from referee.runner import BotCrashed, BotFault, Player

#: What a tolerance game adds to each message and sends as messages of unknown type.
EXTRA_FIELD = "x_check_extension"
UNKNOWN_TYPE = "x_check_notice"


@dataclass(slots=True)
class Exchange:
    """One message to the bot: ``sent`` (the line), ``received`` (its reply line, when one came) and ``ms``.

    ``error`` is the fault kind when the exchange failed; ``situations`` are those of a ``turn`` message
    (and, for a ``deal``, holding the 1 and round 2).
    """

    kind: str
    round: int
    sent: str
    received: str | None = None
    ms: float | None = None
    error: str | None = None
    situations: frozenset[Situation] = frozenset()


@dataclass(slots=True)
class GameRecord:
    """The exchanges of the bot under check in one game, in order."""

    game_id: str
    tolerance: bool
    exchanges: list[Exchange] = field(default_factory=list)


def _text(line: bytes | str | None) -> str | None:
    if line is None:
        return None
    if isinstance(line, bytes):
        return line.decode("utf-8", "replace").rstrip("\n")
    return line.rstrip("\n")


def dress(line: bytes) -> bytes:
    """``line`` (one encoded referee message) with unknown fields added at the top and in nested objects."""
    msg: dict[str, Any] = json.loads(line)
    msg[EXTRA_FIELD] = {"note": "an unknown field: bots ignore it", "list": [1, 2, 3]}
    for key in ("players", "history", "legal"):
        items = msg.get(key)
        if isinstance(items, list):
            msg[key] = [{**item, EXTRA_FIELD: True} if isinstance(item, dict) else item for item in items]
    if isinstance(msg.get("time"), dict):
        msg["time"] = {**msg["time"], EXTRA_FIELD: 0}
    return json.dumps(msg, separators=(",", ":")).encode("utf-8") + b"\n"


def unknown_message(about: str) -> bytes:
    """A message of a type protocol v1 does not define; it needs no reply."""
    body = {"type": UNKNOWN_TYPE, "about": about, "text": "a message type this bot does not know: ignore it"}
    return json.dumps(body, separators=(",", ":")).encode("utf-8") + b"\n"


def _situations(msg: dict[str, Any]) -> frozenset[Situation]:
    if msg.get("type") == "turn":
        return situations_of_turn(msg)
    if msg.get("type") == "deal":
        # Holding the 1 at the deal: it may not be discarded.
        found = {Situation.HOLDS_ONE} if 1 in (msg.get("hand") or []) else set()
        if msg.get("round") == 2:
            found.add(Situation.ROUND_TWO)
        return frozenset(found)
    return frozenset()


class ObservedBot:
    """An ``Entrant`` for ``play_game`` that records the bot's exchanges; see the module docstring.

    Call ``begin(game_id, tolerance=...)`` before each game; ``record`` then holds that game's exchanges.
    """

    def __init__(self, player: Player) -> None:
        self.player = player
        self.record = GameRecord("", False)

    # ----------------------------------------------------------------------------- entrant interface

    @property
    def name(self) -> str:
        return self.player.name

    @property
    def ready(self) -> bool:
        return self.player.ready

    @property
    def wants_legal_moves(self) -> bool:
        return self.player.wants_legal_moves

    @property
    def move_time(self) -> float | None:
        return self.player.move_time

    @property
    def time_bank(self) -> float | None:
        return self.player.time_bank

    @property
    def startup_fault(self) -> BotFault | ProtocolViolation | None:
        return self.player.startup_fault

    @startup_fault.setter
    def startup_fault(self, value: BotFault | ProtocolViolation | None) -> None:
        self.player.startup_fault = value

    @property
    def hello(self) -> HelloReply | None:
        return self.player.hello

    @hello.setter
    def hello(self, value: HelloReply | None) -> None:
        self.player.hello = value

    def begin(self, game_id: str, *, tolerance: bool = False) -> None:
        """Start recording a new game (``tolerance``: dress messages up and send unknown types)."""
        self.record = GameRecord(game_id, tolerance)

    async def ensure_started(self) -> None:
        await self.player.ensure_started()

    async def request(self, line: bytes, expect: Expect, deadline: float) -> tuple[AnyReply, bytes]:
        if self.record.tolerance:
            line = dress(line)
        msg = json.loads(line)
        ex = Exchange(str(msg.get("type")), int(msg.get("round") or 0), _text(line) or "", situations=_situations(msg))
        self.record.exchanges.append(ex)
        start = trio.current_time()
        try:
            reply, raw = await self.player.request(line, expect, deadline)
        except (BotFault, ProtocolViolation) as exc:
            ex.error = getattr(exc, "kind", "fault")
            ex.received = _text(getattr(exc, "line", None))
            raise
        ex.ms = (trio.current_time() - start) * 1000
        ex.received = _text(raw)
        return reply, raw

    async def notify(self, line: bytes, deadline: float) -> None:
        msg = json.loads(line)
        kind = str(msg.get("type"))
        if self.record.tolerance:
            if kind in ("game_start", "round_end"):
                await self._notify(unknown_message(kind), UNKNOWN_TYPE, 0, deadline)
            line = dress(line)
        await self._notify(line, kind, int(msg.get("round") or 0), deadline)

    async def _notify(self, line: bytes, kind: str, round_: int, deadline: float) -> None:
        ex = Exchange(kind, round_, _text(line) or "")
        self.record.exchanges.append(ex)
        try:
            await self.player.notify(line, deadline)
        except BotFault as exc:
            ex.error = exc.kind
            ex.received = _text(exc.line)
            raise

    async def end(self, message: str | None = None) -> None:
        await self.player.end(message)

    async def aclose(self) -> None:
        await self.player.aclose()

    def exited(self) -> BotCrashed | None:
        return self.player.exited()
