"""Building blocks for engine tests: explicit deals from the cards each seat keeps, and scripted play."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from referee.engine import DECK, STANDARD, Action, Deal, Discard, Hand, Ruleset, State, apply, new_game

Kept = Sequence[Sequence[int]]

#: Kept hands (12 cards) used by many examples; together they fit the deck. LOW holds the 1.
LOW = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12)
HIGH = (2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13)
MID = (3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14)


def complete(kept: Kept, ruleset: Ruleset = STANDARD) -> tuple[tuple[Hand, ...], tuple[Hand, ...]]:
    """Full hands for one round where seat ``s`` keeps ``kept[s]``, and the discards that leave exactly that.

    The discards are the highest cards left in the deck after every kept card, handed out seat by seat.
    """
    free = Counter(DECK) - Counter(c for hand in kept for c in hand)
    pool = sorted(free.elements(), reverse=True)
    hands, discards = [], []
    for hand in kept:
        assert len(hand) == ruleset.hand_size - ruleset.discard, f"keep {ruleset.hand_size - ruleset.discard} cards"
        extra = tuple(sorted(pool[: ruleset.discard]))
        del pool[: ruleset.discard]
        hands.append(tuple(sorted((*hand, *extra))))
        discards.append(extra)
    return tuple(hands), tuple(discards)


def deal_for(rounds: Sequence[Kept], ruleset: Ruleset = STANDARD) -> tuple[Deal, tuple[tuple[Hand, ...], ...]]:
    """A deal of ``ruleset.rounds`` rounds from the kept cards of each round, and every round's discards."""
    assert len(rounds) == ruleset.rounds
    done = [complete(kept, ruleset) for kept in rounds]
    return tuple(h for h, _ in done), tuple(d for _, d in done)


def discard_all(state: State, discards: Sequence[Hand]) -> State:
    """Every seat that has not discarded yet discards its entry of ``discards``."""
    for seat, cards in enumerate(discards):
        if state.discards[seat] is None:
            state = apply(state, Discard(seat, tuple(cards)))
    return state


class Plan:
    """An explicit game: the cards each seat keeps in each round (rounds not given keep a fixed legal hand)."""

    def __init__(self, *rounds: Kept, ruleset: Ruleset = STANDARD) -> None:
        players = len(rounds[0])
        full = list(rounds)
        while len(full) < ruleset.rounds:
            full.append(default_kept(players, ruleset))
        self.ruleset = ruleset
        self.players = players
        self.deal, self.discards = deal_for(full, ruleset)

    def new(self) -> State:
        """The game in its first discard phase."""
        return new_game(self.players, self.ruleset, deal=self.deal)

    def start(self) -> State:
        """The game in the play phase of round 1, every seat having discarded as planned."""
        return self.discard(self.new())

    def discard(self, state: State) -> State:
        """The planned discards of the round ``state`` is in, for every seat still to discard."""
        return discard_all(state, self.discards[state.round])


def start(*kept: Sequence[int], ruleset: Ruleset = STANDARD) -> State:
    """A game in the play phase of round 1 where seat ``s`` holds ``kept[s]`` after the discards."""
    return Plan(kept, ruleset=ruleset).start()


def default_kept(players: int, ruleset: Ruleset = STANDARD) -> list[tuple[int, ...]]:
    """Kept cards for a round nobody cares about: the lowest cards of the deck dealt round the table."""
    keep = ruleset.hand_size - ruleset.discard
    hands: list[list[int]] = [[] for _ in range(players)]
    for i in range(keep * players):
        hands[i % players].append(DECK[i])
    return [tuple(h) for h in hands]


def run(state: State, *actions: Action) -> State:
    """Apply ``actions`` in order."""
    for action in actions:
        state = apply(state, action)
    return state
