"""A recorded fault of a bot in a game, and the fault kinds."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from enum import StrEnum
from typing import Any

from protocol.errors import ViolationKind


class FaultKind(StrEnum):
    """Every fault kind a game records: the runner's, the engine's illegal actions and the protocol's violations
    (``protocol.ViolationKind``, the same strings). The value is the string game logs, databases and JSON hold."""

    TIMEOUT = "timeout"
    CRASH = "crash"
    UNSOLICITED = "unsolicited"
    OUTPUT_CAP = "output_cap"
    STARTUP = "startup"
    ILLEGAL_MOVE = "illegal_move"
    ILLEGAL_DISCARD = "illegal_discard"
    LINE_TOO_LONG = ViolationKind.LINE_TOO_LONG.value
    INVALID_JSON = ViolationKind.INVALID_JSON.value
    NOT_OBJECT = ViolationKind.NOT_OBJECT.value
    UNKNOWN_TYPE = ViolationKind.UNKNOWN_TYPE.value
    WRONG_TYPE = ViolationKind.WRONG_TYPE.value
    BAD_FIELD = ViolationKind.BAD_FIELD.value
    PROTOCOL_VERSION = ViolationKind.PROTOCOL_VERSION.value


#: Every fault kind a game records.
FAULT_KINDS = frozenset(FaultKind)


@dataclass(frozen=True)
class Fault:
    """Seat ``seat`` faulted: ``kind`` (one of ``FAULT_KINDS``: a ``FaultKind`` as a game makes it, its string as
    read back), when (``round`` 1-based, 0 before the first deal; ``turn`` 1-based within the round, 0 outside a
    turn), ``detail`` for the bot's author, and the offending ``line`` (truncated), if a line was to blame."""

    seat: int
    kind: str
    round: int
    turn: int
    detail: str
    line: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Fault:
        return cls(
            seat=int(data["seat"]),
            kind=str(data["kind"]),
            round=int(data["round"]),
            turn=int(data["turn"]),
            detail=str(data["detail"]),
            line=data.get("line"),
        )

    def describe(self, names: tuple[str, ...] | list[str] | None = None) -> str:
        """One line: ``seat 1 (greedy): timeout (round 2, turn 7): no reply before the deadline``."""
        who = f"seat {self.seat}" + (f" ({names[self.seat]})" if names else "")
        if self.round == 0:
            when = "" if self.kind == FaultKind.STARTUP else " (start-up)"
        else:
            when = f" (round {self.round}" + (f", turn {self.turn})" if self.turn else ")")
        return f"{who}: {self.kind}{when}: {self.detail}"
