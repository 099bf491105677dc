"""The situations that break naive bots, recognised from the ``turn`` messages a bot received."""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any


class Situation(StrEnum):
    """A situation a bot should meet during the suite. The value is the check's name."""

    HOLDS_ONE = "situation-holds-the-1"
    FORCED = "situation-forced"
    ONLY_LOWER = "situation-only-lower-cards"
    NO_BONUS = "situation-no-bonus-chips"
    ROUND_TWO = "situation-round-2"
    LAST_PLAYING = "situation-last-player-in-round"

    @property
    def label(self) -> str:
        return _TITLES[self]


_TITLES = {
    Situation.HOLDS_ONE: "holding the 1 (may not discard it, must open the round with it)",
    Situation.FORCED: "being forced (may not pass)",
    Situation.ONLY_LOWER: "holding only cards lower than last",
    Situation.NO_BONUS: "having no bonus chips left",
    Situation.ROUND_TWO: "playing round 2",
    Situation.LAST_PLAYING: "being the last player still in a round",
}


def situations_of_turn(message: Mapping[str, Any]) -> frozenset[Situation]:
    """The situations a protocol v1 ``turn`` message puts its receiver in.

    Reads only the message (``seat``, ``hand``, ``last``, ``forced``, ``round``, ``players``); a message
    missing one of them simply reaches fewer situations.
    """
    found: set[Situation] = set()
    seat = message.get("seat")
    hand = message.get("hand") or []
    last = message.get("last")
    players = message.get("players") or []
    if last is None and 1 in hand:
        found.add(Situation.HOLDS_ONE)
    if message.get("forced") is True:
        found.add(Situation.FORCED)
    if isinstance(last, int) and hand and max(hand) < last:
        found.add(Situation.ONLY_LOWER)
    if message.get("round") == 2:
        found.add(Situation.ROUND_TWO)
    if isinstance(seat, int) and 0 <= seat < len(players):
        me = players[seat]
        if isinstance(me, Mapping) and me.get("bonus") == 0:
            found.add(Situation.NO_BONUS)
        others = [p for s, p in enumerate(players) if s != seat]
        if others and all(isinstance(p, Mapping) and p.get("status") != "playing" for p in others):
            found.add(Situation.LAST_PLAYING)
    return frozenset(found)
