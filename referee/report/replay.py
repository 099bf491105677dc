"""Replays from a game log: re-run a game through the engine and encode it as ``referee.runner.replay`` does.

A game is given as its players, ruleset, seed or deal and the ordered ``steps`` that drove it: engine
actions (``Discard``, ``Play``, ``Pass``, ``Drop``) and ``Forfeit(seat)`` for a referee-imposed forfeit.
``encode_replay`` plays them through ``referee.engine`` and returns the compact replay the page shows (its format:
``referee.runner.replay``). ``referee run`` records each game's replay as it is played; this is for the games
stored without one (by an older referee) and for tests.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

from referee.engine import (
    Action,
    Deal,
    IllegalMove,
    Ruleset,
    State,
    apply,
    forfeit,
    new_game,
)
from referee.report.errors import ReplayError
from referee.runner.replay import encode_states


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


def _describe(step: Step) -> str:
    if isinstance(step, Forfeit):
        return f"forfeit of seat {step.seat}"
    return repr(step)
