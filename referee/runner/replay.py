"""The compact replay of a game, recorded as it is played (``ReplayRecorder``): what the report's replay viewer
shows, stored by ``referee run`` with each game's result (``referee.report`` also makes it from a game log).

A small JSON-ready dict from which the page builds every frame of the replay without knowing the rules (it only
applies the recorded events):

    {"n": players,
     "r": [{"h": dealt hands, "d": discards, "p": penalty at start, "b": bonus at start,
            "e": [event, ...]}, ...],          # one entry per round played
     "s": scores, "k": ranks, "f": [forfeited seats]}   # "s"/"k" only when the game is over

Each event is a flat list of small integers:

    [seat, 0, value, count, bonus, penalty, flags, next]   play  (flags: 1 finished, 2 forfeit)
    [seat, 1, force, penalty, next]                        pass  (force: 0/1)
    [seat, 2, penalty, flags, next]                        drop  (flags: 1 forfeit, 2 turn limit)

``next`` is the seat to move after the event (-1 when none). The seat after a pass with ``force`` is forced.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from referee.engine import DropEvent, Event, PassEvent, Phase, PlayEvent, State


def encode_states(states: Iterable[State]) -> dict[str, Any]:
    """Encode the successive states of one game (its start, then the state after each step), in one pass."""
    it = iter(states)
    recorder = ReplayRecorder(next(it))
    for state in it:
        recorder.step(state)
    return recorder.replay()


class ReplayRecorder:
    """The replay of a game collected while it is played: ``step(state)`` after every change of state, ``replay()``
    once it is over (or at any point: the replay so far).

    A step notes three numbers (the rounds done, the current round's events so far, the seat to move); the events
    themselves are read from the last state at the end, since a round's history only grows. So a game that keeps
    its recorder up to date pays well under a microsecond a step, and no game needs to be re-run through the engine
    for its replay (``referee run`` stores each game's replay with its result for the report).
    """

    __slots__ = ("_first", "_last", "_marks")

    def __init__(self, first: State) -> None:
        self._first = first
        self._last = first
        #: per step: (rounds done, events of the current round or -1 once the game is over, seat to move)
        self._marks: list[tuple[int, int, int]] = []

    def step(self, state: State) -> None:
        """The game moved on to ``state`` (one engine step: a discard, an action, a forfeit)."""
        self._last = state
        over = state.phase is Phase.OVER
        self._marks.append((len(state.rounds_done), -1 if over else len(state.history), state.to_move))

    def replay(self) -> dict[str, Any]:
        """The compact replay of the states seen so far (format in the module docstring)."""
        first, final = self._first, self._last
        finished_rounds = final.rounds_done
        histories = [record.history for record in finished_rounds]  # each round's events, as they ended up
        histories.append(final.history)
        encode = _encode_event
        events: list[list[list[int]]] = [[]]
        done = 0  # rounds finished so far
        seen = 0  # events of the current round already encoded
        for finished, length, to_move in self._marks:
            if finished == done:  # the usual step: within a round
                if length > seen:
                    events[done].extend([encode(e, to_move) for e in histories[done][seen:length]])
                if length >= 0:
                    seen = length
                continue
            for r in range(done, finished):
                # a round that ended inside this step: its new events have no seat to move after them
                events[r].extend([encode(e, -1) for e in histories[r][seen if r == done else 0 :]])
                events.append([])
            if length >= 0:
                events[finished].extend([encode(e, to_move) for e in histories[finished][:length]])
                seen = length
            done = finished
        rounds: list[dict[str, Any]] = []
        pen, bon = list(first.penalty), list(first.bonus)
        played = len(finished_rounds) + (0 if final.phase is Phase.OVER else 1)
        for r in range(played):
            if r < len(finished_rounds):
                record = finished_rounds[r]
                discards = [list(d) for d in record.discards]
            else:
                discards = [list(d) if d is not None else [] for d in final.discards]
            rounds.append({"h": [list(h) for h in final.deal[r]], "d": discards, "p": pen, "b": bon, "e": events[r]})
            if r < len(finished_rounds):
                table = finished_rounds[r].players
                pen, bon = [p.penalty for p in table], [p.bonus for p in table]
        out: dict[str, Any] = {"n": first.players, "r": rounds, "f": [s for s, f in enumerate(final.forfeited) if f]}
        if final.phase is Phase.OVER:
            assert final.scores is not None and final.ranks is not None
            out["s"] = list(final.scores)
            out["k"] = list(final.ranks)
        return out


def _encode_event(event: Event, nxt: int) -> list[int]:
    if isinstance(event, PlayEvent):
        seat, value, count, bonus, penalty, finished, forfeit = event
        return [seat, 0, value, count, bonus, penalty, (1 if finished else 0) | (2 if forfeit else 0), nxt]
    if isinstance(event, PassEvent):
        seat, force, penalty = event
        return [seat, 1, int(force), penalty, nxt]
    assert isinstance(event, DropEvent)
    seat, penalty, forfeit, limit = event
    return [seat, 2, penalty, (1 if forfeit else 0) | (2 if limit else 0), nxt]
