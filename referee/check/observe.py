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

from protocol import Expect, ProtocolViolation
from protocol.replies import HelloReply, PassReply
from protocol.replies import Reply as AnyReply
from referee.check.situations import Situation, situations_of_turn
from referee.runner import BotCrashed, BotFault, Player
from referee.runner.safe_text import line_text

#: What a tolerance game adds to each message and sends as messages of unknown type: names a later protocol could
#: use, none of them saying "check" (everything else of a check game looks like a contest's to the bot).
EXTRA_FIELD = "ext"
UNKNOWN_TYPE = "notice"


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
    #: CPU milliseconds the bot's processes used for the reply (None when they cannot be measured).
    cpu_ms: float | None = None
    error: str | None = None
    situations: frozenset[Situation] = frozenset()


@dataclass(slots=True)
class GameRecord:
    """The exchanges of the bot under check in one game, in order.

    ``stalled_passes``: its passes on a stalled table (see ``stalled_turn``), ``longest_stall`` the most in a row;
    ``limit_rounds``: the rounds that ran to the turn limit (``max_turns``, from ``game_start``).
    """

    game_id: str
    tolerance: bool
    exchanges: list[Exchange] = field(default_factory=list)
    stalled_passes: int = 0
    longest_stall: int = 0
    streak: int = 0
    limit_rounds: list[int] = field(default_factory=list)
    max_turns: int = 1000


#: Passes in a row on a stalled table after which the suite stops the game: the round would run to the turn limit.
STALL_LIMIT = 10


class StalledTable(BotFault):
    """The bot under check kept passing on a stalled table; the suite ends the game (a check-only fault)."""

    kind = "stalled"


def stalled_turn(msg: dict[str, Any]) -> tuple[bool, bool]:
    """For a ``turn`` message: whether the table is stalled for the seat to move (its own last action this round
    was a pass and nobody has played since, so passing again changes nothing), and whether it is alone."""
    seat = msg.get("seat")
    stalled = False
    for entry in reversed(msg.get("history") or []):
        if not isinstance(entry, dict):
            continue
        if entry.get("action") == "play" and not entry.get("forfeit"):
            break
        if entry.get("action") == "pass" and entry.get("seat") == seat:
            stalled = True
            break
    players = msg.get("players") or []
    alone = not any(isinstance(p, dict) and p.get("status") == "playing" for i, p in enumerate(players) if i != seat)
    return stalled, alone


def _stall_detail(passes: int, alone: bool, max_turns: int) -> str:
    where = "alone in the round" if alone else "nobody played in between"
    return (
        f"passed {passes} times in a row on a stalled table ({where}): each pass costs a penalty chip and changes "
        f"nothing, so in a contest this round runs on to the {max_turns:,}-turn limit. When nobody has played since "
        "your own last pass (and always when you are alone), play or drop instead (the stalled-table rule); "
        "the check stopped this game here"
    )


def dress(line: bytes) -> bytes:
    """``line`` (one encoded referee message) with unknown fields added at the top and in nested objects."""
    msg: dict[str, Any] = json.loads(line)
    msg[EXTRA_FIELD] = {"v": 2, "list": [1, 2, 3]}
    for key in ("players", "history", "legal"):
        items = msg.get(key)
        if isinstance(items, list):
            msg[key] = [{**item, EXTRA_FIELD: True} if isinstance(item, dict) else item for item in items]
    if isinstance(msg.get("time"), dict):
        msg["time"] = {**msg["time"], EXTRA_FIELD: 0}
    return json.dumps(msg, separators=(",", ":")).encode("utf-8") + b"\n"


def unknown_message(about: str) -> bytes:
    """A message of a type protocol v1 does not define; it needs no reply."""
    body = {"type": UNKNOWN_TYPE, "about": about, "text": "v2"}
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
    """A ``Participant`` for ``play_game`` that records the bot's exchanges; see the module docstring.

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
    def game_output(self) -> int | None:
        return self.player.game_output

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
        ex = Exchange(
            str(msg.get("type")),
            int(msg.get("round") or 0),
            line_text(line, bare=True) or "",
            situations=_situations(msg),
        )
        self.record.exchanges.append(ex)
        start = trio.current_time()
        cpu_start = self.player.cpu_seconds()
        try:
            reply, raw = await self.player.request(line, expect, deadline)
        except (BotFault, ProtocolViolation) as exc:
            ex.error = exc.kind
            ex.received = line_text(exc.line, bare=True)
            raise
        ex.ms = (trio.current_time() - start) * 1000
        cpu_end = self.player.cpu_seconds()
        if cpu_start is not None and cpu_end is not None:
            ex.cpu_ms = max(0.0, cpu_end - cpu_start) * 1000
        ex.received = line_text(raw, bare=True)
        if ex.kind == "turn":
            self._watch_stall(msg, reply, ex, raw)
        return reply, raw

    def _watch_stall(self, msg: dict[str, Any], reply: AnyReply, ex: Exchange, raw: bytes) -> None:
        """Count passes on a stalled table; raise ``StalledTable`` once they reach ``STALL_LIMIT`` in a row."""
        record = self.record
        stalled, alone = stalled_turn(msg)
        # A pass with force does change the game: the next player must play or drop.
        if not (stalled and isinstance(reply, PassReply) and not reply.force):
            record.streak = 0
            return
        record.stalled_passes += 1
        record.streak += 1
        record.longest_stall = max(record.longest_stall, record.streak)
        if record.streak >= STALL_LIMIT:
            ex.error = StalledTable.kind
            raise StalledTable(_stall_detail(record.streak, alone, record.max_turns), line=raw)

    async def notify(self, line: bytes, deadline: float) -> None:
        msg = json.loads(line)
        kind = str(msg.get("type"))
        if kind == "game_start":
            turns = (msg.get("rules") or {}).get("max_turns_per_round")
            self.record.max_turns = turns if isinstance(turns, int) else self.record.max_turns
        elif kind == "round_end" and any(isinstance(e, dict) and e.get("limit") for e in msg.get("history") or []):
            self.record.limit_rounds.append(int(msg.get("round") or 0))
        if self.record.tolerance:
            if kind in ("game_start", "round_end"):
                await self._notify(unknown_message(kind), UNKNOWN_TYPE, 0, deadline)
            line = dress(line)
        await self._notify(line, kind, int(msg.get("round") or 0), deadline)

    async def _notify(self, line: bytes, kind: str, round_: int, deadline: float) -> None:
        ex = Exchange(kind, round_, line_text(line, bare=True) or "")
        self.record.exchanges.append(ex)
        try:
            await self.player.notify(line, deadline)
        except BotFault as exc:
            ex.error = exc.kind
            ex.received = line_text(exc.line, bare=True)
            raise

    async def end(self, message: str | None = None) -> None:
        await self.player.end(message)

    async def aclose(self) -> None:
        await self.player.aclose()

    def exited(self) -> BotCrashed | None:
        return self.player.exited()
