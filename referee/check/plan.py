"""Which games the suite plays: seat counts, opponents, the seat of the bot under check, and the deals.

The plan is a pure function of its inputs, so the same options check a bot against the same games on any
machine. Deals are explicit and built to lead the bot into the situations of ``situations.py``:

- ``opener``: the bot holds the 1 in both rounds, so it must open each round with it;
- ``underdog``: the bot gets the lowest cards of the round (the 1 among them) and the opponents the
  highest ones in runs of equal values: after the opening every card it holds is lower than last, it has
  to spend bonus chips to play at all, and the opponents tend to empty their hands first;
- ``seeded``: an ordinary seeded deal, the bot seated in turn at every seat.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from referee.engine import STANDARD, Deal, Hand, Ruleset, seeded_deal, validate_deal

SEATS = (2, 3, 4)


class DealKind(StrEnum):
    OPENER = "opener"
    UNDERDOG = "underdog"
    SEEDED = "seeded"


_KINDS = (DealKind.OPENER, DealKind.UNDERDOG, DealKind.SEEDED)


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
    size = len(hands[0])
    cards = sorted(c for h in hands for c in h)
    chunks = [tuple(cards[i * size : (i + 1) * size]) for i in range(len(hands))]
    out: list[Hand] = [()] * len(hands)
    out[seat] = chunks[0]
    others = [s for s in range(len(hands)) if s != seat]
    for s, chunk in zip(others, chunks[1:], strict=True):
        out[s] = chunk
    return tuple(out)


def build_deal(kind: DealKind, seed: int, seats: int, seat: int, ruleset: Ruleset = STANDARD) -> Deal:
    """The deal of one planned game. Raises ``RulesetError`` when the ruleset cannot deal ``seats`` hands."""
    base = seeded_deal(seed, seats, ruleset)
    if kind is DealKind.SEEDED:
        return base
    if kind is DealKind.OPENER:
        deal = tuple(_opener_round(hands, seat) for hands in base)
    else:
        # Round 1 is the hard one; round 2 gives the bot the 1 again so it opens a second time.
        deal = (_underdog_round(base[0], seat), *(_opener_round(h, seat) for h in base[1:]))
    validate_deal(deal, ruleset)
    return deal


def plan_games(
    games: int, opponents: tuple[str, ...], *, seed: int = 23, ruleset: Ruleset = STANDARD
) -> tuple[PlannedGame, ...]:
    """``games`` games cycling through 2, 3 and 4 seats and the three deal kinds, opponents in turn.

    Raises ``ValueError`` for fewer than one game or no opponents.
    """
    if games < 1:
        raise ValueError("the suite plays at least one game")
    if not opponents:
        raise ValueError("the suite needs at least one opponent")
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
