"""Actions a player can take. Immutable values; the acting seat of a turn action is ``state.to_move``."""

from __future__ import annotations

from typing import NamedTuple


class Play(NamedTuple):
    """Play ``count`` cards of ``value``, spending ``bonus`` bonus chips."""

    value: int
    count: int = 1  # type: ignore[assignment]  # the field shadows tuple.count on purpose
    bonus: int = 0


class Pass(NamedTuple):
    """Pass (1 penalty chip) or, with ``force``, pass and force the next playing seat (2 chips)."""

    force: bool = False


class Drop(NamedTuple):
    """Drop out of the round: one penalty chip per card in hand."""


class Discard(NamedTuple):
    """Seat ``seat`` discards ``cards`` (a multiset, sorted) face down at the start of a round."""

    seat: int
    cards: tuple[int, ...]


TurnAction = Play | Pass | Drop
Action = Play | Pass | Drop | Discard

PASS = Pass(False)
PASS_FORCE = Pass(True)
DROP = Drop()
