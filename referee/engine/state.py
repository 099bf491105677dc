"""The immutable game state and its public parts."""

from __future__ import annotations

from enum import StrEnum
from typing import NamedTuple

from referee.engine.deck import Deal, Hand, RoundDeal
from referee.engine.events import Event
from referee.engine.ruleset import Ruleset


class Phase(StrEnum):
    """Where a game stands: players discarding, players taking turns, or over."""

    DISCARD = "discard"
    PLAY = "play"
    OVER = "over"


class Status(StrEnum):
    """A player's standing in the current round."""

    PLAYING = "playing"
    FINISHED = "finished"
    DROPPED = "dropped"


class PlayerView(NamedTuple):
    """What everybody sees of one player: cards in hand, chips and round status."""

    cards: int
    penalty: int
    bonus: int
    status: Status


class RoundRecord(NamedTuple):
    """A finished round: the deal, the private discards, the public history and the table at its end."""

    round: int
    hands: RoundDeal
    discards: tuple[Hand, ...]
    history: tuple[Event, ...]
    players: tuple[PlayerView, ...]


class State(NamedTuple):
    """A game of 23 at one moment. Never mutated: ``apply`` returns a new one.

    Holds every hand; never hand it to a bot. Bots get ``observation_for(state, seat)``.
    ``round`` is 0-based here (protocol messages count rounds from 1); ``to_move`` is -1 when no turn is due.
    ``discards[seat]`` is ``None`` until that seat has discarded this round.
    ``scores`` and ``ranks`` are set once the phase is ``OVER``.
    """

    ruleset: Ruleset
    players: int
    deal: Deal
    seed: int | None
    phase: Phase
    round: int
    hands: tuple[Hand, ...]
    discards: tuple[Hand | None, ...]
    penalty: tuple[int, ...]
    bonus: tuple[int, ...]
    status: tuple[Status, ...]
    forfeited: tuple[bool, ...]
    to_move: int
    last: int | None
    forced: bool
    turns: int
    history: tuple[Event, ...]
    rounds_done: tuple[RoundRecord, ...]
    scores: tuple[int, ...] | None
    ranks: tuple[int, ...] | None

    def table(self) -> tuple[PlayerView, ...]:
        """The public table: every player's card count, chips and status, indexed by seat."""
        new = tuple.__new__  # skips NamedTuple's Python-level __new__; a plain loop beats a comprehension here
        hands, penalty, bonus, status = self.hands, self.penalty, self.bonus, self.status
        views = []
        for s in range(self.players):
            views.append(new(PlayerView, (len(hands[s]), penalty[s], bonus[s], status[s])))
        return tuple(views)

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER
