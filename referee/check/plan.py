"""Which games the suite plays: seat counts, opponents, the seat of the bot under check, and the deals.

The plan is a pure function of its inputs, so the same options check a bot against the same games on any
machine. Deals are explicit and built to lead the bot into the situations of ``situations.py``:

- ``opener``: the bot holds the 1 in both rounds, so it must open each round with it;
- ``underdog``: the bot gets the lowest cards of the round (the 1 among them) and the opponents the
  highest ones in runs of equal values: after the opening every card it holds is lower than last, it has
  to spend bonus chips to play at all, and the opponents tend to empty their hands first;
- ``closer``: the bot gets the 1 and the highest cards of the round, the opponents the low ones: once it
  plays high, opponents that cannot follow drop out or pass, and the bot often plays on alone;
- ``seeded``: an ordinary seeded deal, the bot seated in turn at every seat.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from referee.check.errors import CheckError
from referee.engine import STANDARD, Deal, Hand, Ruleset, seeded_deal, validate_deal

SEATS = (2, 3, 4)


class DealKind(StrEnum):
    OPENER = "opener"
    UNDERDOG = "underdog"
    CLOSER = "closer"
    SEEDED = "seeded"


_KINDS = (DealKind.OPENER, DealKind.UNDERDOG, DealKind.CLOSER, DealKind.SEEDED)


@dataclass(frozen=True, slots=True)
class PlannedGame:
    """One game: ``lineup`` names the bot at each seat (``None`` marks the bot under check)."""

    game_id: str
    seats: int
    seat: int
    lineup: tuple[str | None, ...]
    kind: DealKind
    seed: int
    deal: Deal


def _give(hands: tuple[Hand, ...], seat: int, pick: int) -> tuple[Hand, ...]:
    """``hands`` with the hands at ``seat`` and ``pick`` swapped."""
    out = list(hands)
    out[seat], out[pick] = out[pick], out[seat]
    return tuple(out)


def _opener_round(hands: tuple[Hand, ...], seat: int) -> tuple[Hand, ...]:
    holder = next(s for s, h in enumerate(hands) if 1 in h)
    return _give(hands, seat, holder)


def _underdog_round(hands: tuple[Hand, ...], seat: int) -> tuple[Hand, ...]:
    return _split(sorted(c for h in hands for c in h), len(hands), len(hands[0]), seat)


def _closer_round(hands: tuple[Hand, ...], seat: int) -> tuple[Hand, ...]:
    cards = sorted(c for h in hands for c in h)  # the 1 first
    size = len(hands[0])
    top = [1, *cards[len(cards) - size + 1 :]]
    rest = cards[1 : len(cards) - size + 1]
    return _split(top + rest, len(hands), size, seat)


def _split(cards: list[int], players: int, size: int, seat: int) -> tuple[Hand, ...]:
    """The first ``size`` cards to ``seat``, the next ``size`` to each other seat in order."""
    hands = [tuple(sorted(cards[i * size : (i + 1) * size])) for i in range(players)]
    out: list[Hand] = [()] * players
    out[seat] = hands[0]
    others = [s for s in range(players) if s != seat]
    for s, hand in zip(others, hands[1:], strict=True):
        out[s] = hand
    return tuple(out)


def build_deal(kind: DealKind, seed: int, seats: int, seat: int, ruleset: Ruleset = STANDARD) -> Deal:
    """The deal of one planned game. Raises ``RulesetError`` when the ruleset cannot deal ``seats`` hands."""
    base = seeded_deal(seed, seats, ruleset)
    if kind is DealKind.SEEDED:
        return base
    if kind is DealKind.OPENER:
        deal = tuple(_opener_round(hands, seat) for hands in base)
    else:
        # Round 1 is the special one; round 2 gives the bot the 1 again so it opens a second time.
        first = _underdog_round if kind is DealKind.UNDERDOG else _closer_round
        deal = (first(base[0], seat), *(_opener_round(h, seat) for h in base[1:]))
    validate_deal(deal, ruleset)
    return deal


def plan_games(
    games: int, opponents: tuple[str, ...], *, seed: int = 23, ruleset: Ruleset = STANDARD
) -> tuple[PlannedGame, ...]:
    """``games`` games cycling through 2, 3 and 4 seats and the deal kinds, opponents in turn.

    Raises ``CheckError`` for fewer than one game or no opponents.
    """
    if games < 1:
        raise CheckError("the suite plays at least one game")
    if not opponents:
        raise CheckError("the suite needs at least one opponent")
    out = []
    for i in range(games):
        seats = SEATS[i % len(SEATS)]
        kind = _KINDS[(i // len(SEATS)) % len(_KINDS)]
        seat = (i // (len(SEATS) * len(_KINDS)) + i) % seats
        first = i // len(SEATS)
        lineup: list[str | None] = [opponents[(first + k) % len(opponents)] for k in range(seats - 1)]
        lineup.insert(seat, None)
        game_seed = seed * 10_000 + i
        deal = build_deal(kind, game_seed, seats, seat, ruleset)
        out.append(PlannedGame(f"check-{i + 1:02d}", seats, seat, tuple(lineup), kind, game_seed, deal))
    return tuple(out)
