"""The deck of 66 cards, seeded deals and explicit deals (deal files)."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from referee.engine.cards import HIGHEST as HIGHEST
from referee.engine.errors import DealError
from referee.engine.ruleset import MAX_PLAYERS, MIN_PLAYERS, Ruleset
from referee.memo import Policy, memoized

#: The full deck, sorted: one 1, two 2s, three each of 3..23.
DECK: tuple[int, ...] = (1, 2, 2, *(v for v in range(3, HIGHEST + 1) for _ in range(3)))

#: How many copies of each value the deck holds (index = value; index 0 unused).
COPIES: tuple[int, ...] = tuple(DECK.count(v) for v in range(HIGHEST + 1))

Hand = tuple[int, ...]
#: One round's hands, indexed by seat.
RoundDeal = tuple[Hand, ...]
#: Every round's hands: ``deal[round_index][seat]``.
Deal = tuple[RoundDeal, ...]


#: Kept by (seed, players, ruleset): a tournament plays each deal once per seat rotation (four games for four seats),
#: and each game starts from it; the deal is a tuple of tuples, so every game may share it.
@memoized("engine.deck.seeded_deal", 256, Policy.RENEW)
def seeded_deal(seed: int, players: int, ruleset: Ruleset) -> Deal:
    """Deal every round of a game from ``seed`` (same seed, same deal, on any machine).

    As RULES.md ("Setting up a round") says: take the 1 out, shuffle the other 65, draw
    ``hand_size * players - 1``, add the 1, shuffle those and deal ``hand_size`` to each player; each round
    starts from the full deck again.
    Raises ``RulesetError`` when the ruleset cannot deal ``players`` hands.
    """
    ruleset.validate(players)
    bits = random.Random(seed).getrandbits
    size = ruleset.hand_size
    need = size * players
    rounds = []
    for _ in range(ruleset.rounds):
        pool = list(_REST)
        _shuffle(pool, bits)
        drawn = pool[: need - 1]
        drawn.append(1)
        _shuffle(drawn, bits)
        rounds.append(tuple([tuple(sorted(drawn[s : s + size])) for s in range(0, need, size)]))
    return tuple(rounds)


#: The deck without its 1, from which each round's cards are drawn.
_REST = DECK[1:]


def _shuffle(cards: list[int], bits: Callable[[int], int]) -> None:
    """Shuffle ``cards`` in place from the Mersenne Twister stream ``bits`` (``Random.getrandbits``).

    The same draws, in the same order, as CPython 3.11's ``random.Random.shuffle``; written out here so that a
    seed deals the same cards whatever Python runs the referee (and without two calls per card).
    """
    for i, k in _fisher_yates_steps(len(cards)):
        j = bits(k)
        while j > i:  # a draw of k bits above i is drawn again, as random's _randbelow(i + 1) does
            j = bits(k)
        cards[i], cards[j] = cards[j], cards[i]


@memoized("engine.deck.fisher_yates_steps", 128)
def _fisher_yates_steps(length: int) -> tuple[tuple[int, int], ...]:
    """The shuffle's positions from the last down to 1, each with the bits a draw of a position up to it takes."""
    return tuple((i, (i + 1).bit_length()) for i in range(length - 1, 0, -1))


def validate_deal(deal: Deal, ruleset: Ruleset) -> None:
    """Check an explicit deal against the deck and the ruleset.

    Raises ``DealError`` naming the first problem (round and seat are 1-based and 0-based as in the log).
    """
    if len(deal) != ruleset.rounds:
        raise DealError(f"deal has {len(deal)} rounds, the ruleset plays {ruleset.rounds}")
    players = len(deal[0]) if deal else 0
    for r, hands in enumerate(deal, start=1):
        if not MIN_PLAYERS <= len(hands) <= MAX_PLAYERS:
            raise DealError(f"round {r}: {len(hands)} hands, a game has {MIN_PLAYERS} to {MAX_PLAYERS}")
        if len(hands) != players:
            raise DealError(f"round {r}: {len(hands)} hands, round 1 has {players}")
        counts: Counter[int] = Counter()
        for seat, hand in enumerate(hands):
            if len(hand) != ruleset.hand_size:
                raise DealError(f"round {r}, seat {seat}: {len(hand)} cards, every hand has {ruleset.hand_size}")
            for card in hand:
                if isinstance(card, bool) or not isinstance(card, int) or not 1 <= card <= HIGHEST:
                    raise DealError(f"round {r}, seat {seat}: {card!r} is not a card (cards are 1..{HIGHEST})")
            counts.update(hand)
        for value in sorted(counts):
            if counts[value] > COPIES[value]:
                raise DealError(f"round {r}: {counts[value]} cards of {value} dealt, the deck holds {COPIES[value]}")
        if counts[1] != 1:
            raise DealError(f"round {r}: the 1 must be dealt exactly once")
    ruleset.validate(players)


def deal_from_json(data: Any, ruleset: Ruleset) -> Deal:
    """Read a deal file's content: ``{"rounds": [{"hands": [[...], ...]}, ...]}``.

    Hands are sorted on the way in. Raises ``DealError`` naming the first problem.
    """
    if not isinstance(data, Mapping) or not isinstance(data.get("rounds"), list | tuple):
        raise DealError('a deal file is a JSON object {"rounds": [{"hands": [[15 cards], ...]}, ...]}')
    rounds = []
    for r, entry in enumerate(data["rounds"], start=1):
        if not isinstance(entry, Mapping) or not isinstance(entry.get("hands"), list | tuple):
            raise DealError(f'round {r}: expected an object with a list "hands"')
        hands = []
        for seat, hand in enumerate(entry["hands"]):
            if not isinstance(hand, list | tuple):
                raise DealError(f"round {r}, seat {seat}: a hand is a list of cards")
            for card in hand:
                if isinstance(card, bool) or not isinstance(card, int):
                    raise DealError(f"round {r}, seat {seat}: {card!r} is not a card (cards are 1..{HIGHEST})")
            hands.append(tuple(sorted(hand)))
        rounds.append(tuple(hands))
    deal = tuple(rounds)
    validate_deal(deal, ruleset)
    return deal


def deal_to_json(deal: Deal) -> dict[str, Any]:
    """The deal-file form of ``deal``."""
    return {"rounds": [{"hands": [list(h) for h in hands]} for hands in deal]}
