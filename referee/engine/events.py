"""Public history entries of a round, as PROTOCOL.md's ``history`` carries them."""

from __future__ import annotations

from typing import Any, NamedTuple


class PlayEvent(NamedTuple):
    """A play. ``penalty`` is net of the finishing refund when ``finished``."""

    seat: int
    value: int
    count: int  # type: ignore[assignment]  # the field shadows tuple.count on purpose
    bonus: int
    penalty: int
    finished: bool = False
    forfeit: bool = False

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "seat": self.seat,
            "action": "play",
            "value": self.value,
            "count": self.count,
            "bonus": self.bonus,
            "penalty": self.penalty,
        }
        if self.finished:
            d["finished"] = True
        if self.forfeit:
            d["forfeit"] = True
        return d


class PassEvent(NamedTuple):
    """A pass; ``force`` when the next playing seat was forced."""

    seat: int
    force: bool
    penalty: int

    def to_dict(self) -> dict[str, Any]:
        return {"seat": self.seat, "action": "pass", "force": self.force, "penalty": self.penalty}


class DropEvent(NamedTuple):
    """A drop. ``forfeit`` marks a referee-imposed drop of a forfeiting bot; ``limit`` one by the turn limit."""

    seat: int
    penalty: int
    forfeit: bool = False
    limit: bool = False

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"seat": self.seat, "action": "drop", "penalty": self.penalty}
        if self.forfeit:
            d["forfeit"] = True
        if self.limit:
            d["limit"] = True
        return d


Event = PlayEvent | PassEvent | DropEvent
