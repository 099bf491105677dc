"""Replays: re-run a game through the engine and encode it compactly for the page.

A game is given as its players, ruleset, seed or deal and the ordered ``steps`` that drove it: engine
actions (``Discard``, ``Play``, ``Pass``, ``Drop``) and ``Forfeit(seat)`` for a referee-imposed forfeit.
``encode_replay`` plays them through ``referee.engine`` and returns a small JSON-ready dict from which the
page builds every frame of the replay without knowing the rules (it only applies the recorded events):

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

from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from referee.engine import (
    Action,
    Deal,
    DropEvent,
    Event,
    IllegalMove,
    PassEvent,
    Phase,
    PlayEvent,
    Ruleset,
    State,
    apply,
    forfeit,
    new_game,
)
from referee.report.errors import ReplayError


class Forfeit(NamedTuple):
    """The referee forfeits ``seat`` (a bot fault) at this point of the game."""

    seat: int


Step = Action | Forfeit


def iter_states(
    players: int, ruleset: Ruleset, steps: Iterable[Step], *, seed: int | None = None, deal: Deal | None = None
) -> Iterator[State]:
    """Every state of the game: the start, then one after each step.

    Raises ``ReplayError`` when a step is illegal or the game cannot start (a log that does not fit the rules).
    """
    try:
        state = new_game(players, ruleset, seed=seed, deal=deal)
    except (ValueError, IllegalMove) as exc:  # RulesetError and DealError are ValueErrors
        raise ReplayError(f"the game cannot start: {exc}") from None
    yield state
    for i, step in enumerate(steps, start=1):
        try:
            state = forfeit(state, step.seat) if isinstance(step, Forfeit) else apply(state, step)
        except IllegalMove as exc:
            raise ReplayError(f"step {i} ({_describe(step)}) does not replay: {exc}") from None
        yield state


def run_steps(
    players: int, ruleset: Ruleset, steps: Iterable[Step], *, seed: int | None = None, deal: Deal | None = None
) -> list[State]:
    """``iter_states`` as a list. Raises ``ReplayError`` like it."""
    return list(iter_states(players, ruleset, steps, seed=seed, deal=deal))


def encode_replay(
    players: int, ruleset: Ruleset, steps: Iterable[Step], *, seed: int | None = None, deal: Deal | None = None
) -> dict[str, Any]:
    """The compact replay of a game (format in the module docstring). Raises ``ReplayError`` like ``iter_states``."""
    return encode_states(iter_states(players, ruleset, steps, seed=seed, deal=deal))


def encode_states(states: Iterable[State]) -> dict[str, Any]:
    """Encode the successive states of one game (as ``iter_states`` yields them), in one pass."""
    it = iter(states)
    first = next(it)
    events: list[list[list[int]]] = [[]]
    done = 0  # rounds finished so far
    seen = 0  # events of the current round already encoded
    final = first
    for state in it:
        final = state
        finished = len(state.rounds_done)
        for r in range(done, finished):
            # a round that ended inside this step: its new events have no seat to move after them
            history = state.rounds_done[r].history
            events[r].extend(_encode_event(e, -1) for e in history[seen if r == done else 0 :])
            events.append([])
        if state.phase is not Phase.OVER:
            start = seen if finished == done else 0
            events[finished].extend(_encode_event(e, state.to_move) for e in state.history[start:])
            seen = len(state.history)
        done = finished
    rounds: list[dict[str, Any]] = []
    pen, bon = list(first.penalty), list(first.bonus)
    played = len(final.rounds_done) + (0 if final.phase is Phase.OVER else 1)
    for r in range(played):
        if r < len(final.rounds_done):
            record = final.rounds_done[r]
            discards = [list(d) for d in record.discards]
        else:
            discards = [list(d) if d is not None else [] for d in final.discards]
        rounds.append({"h": [list(h) for h in final.deal[r]], "d": discards, "p": pen, "b": bon, "e": events[r]})
        if r < len(final.rounds_done):
            table = final.rounds_done[r].players
            pen, bon = [p.penalty for p in table], [p.bonus for p in table]
    out: dict[str, Any] = {"n": first.players, "r": rounds, "f": [s for s, f in enumerate(final.forfeited) if f]}
    if final.phase is Phase.OVER:
        assert final.scores is not None and final.ranks is not None
        out["s"] = list(final.scores)
        out["k"] = list(final.ranks)
    return out


def _encode_event(event: Event, nxt: int) -> list[int]:
    if isinstance(event, PlayEvent):
        flags = (1 if event.finished else 0) | (2 if event.forfeit else 0)
        return [event.seat, 0, event.value, event.count, event.bonus, event.penalty, flags, nxt]
    if isinstance(event, PassEvent):
        return [event.seat, 1, int(event.force), event.penalty, nxt]
    assert isinstance(event, DropEvent)
    flags = (1 if event.forfeit else 0) | (2 if event.limit else 0)
    return [event.seat, 2, event.penalty, flags, nxt]


def _describe(step: Step) -> str:
    if isinstance(step, Forfeit):
        return f"forfeit of seat {step.seat}"
    return repr(step)
