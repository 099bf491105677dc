"""What one seat may see: ``observation_for(state, seat)``."""

from __future__ import annotations

from typing import Any, NamedTuple

from referee.engine.deck import Hand
from referee.engine.events import Event
from referee.engine.state import PlayerView, State


class Observation(NamedTuple):
    """One seat's view, exactly what PROTOCOL.md's ``turn`` message carries.

    Its own hand, the public table and this round's public history; never another seat's hand or discards.
    ``round`` counts from 1. ``forced`` is true only when this seat is to move and forced.
    ``to_move`` is the seat whose turn it is (-1 when none).
    """

    seat: int
    round: int
    hand: Hand
    last: int | None
    forced: bool
    to_move: int
    players: tuple[PlayerView, ...]
    history: tuple[Event, ...]


def observation_for(state: State, seat: int) -> Observation:
    """The view of ``seat`` (0..players-1). Raises ``IndexError`` for a seat not in the game."""
    if not 0 <= seat < state.players:
        raise IndexError(f"there is no seat {seat} in a game of {state.players}")
    to_move = state.to_move
    # The fields in Observation's order (seat, round, hand, last, forced, to_move, players, history), made without
    # NamedTuple's keyword handling: the runner asks for one view every turn.
    view: Observation = _tuple_new(
        Observation,
        (
            seat,
            state.round + 1,
            state.hands[seat],
            state.last,
            state.forced and to_move == seat,
            to_move,
            state.table(),
            state.history,
        ),
    )
    return view


_tuple_new: Any = tuple.__new__
