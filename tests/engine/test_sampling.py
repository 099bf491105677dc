"""sample_state and legal_actions_for: what a bot can simulate from its own observation."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.engine import (
    DECK,
    OPENING,
    STANDARD,
    Phase,
    PlayEvent,
    apply,
    legal_actions,
    legal_actions_for,
    observation_for,
    sample_state,
    unseen_cards,
)

from .helpers import HIGH, LOW, MID, run, start
from .test_properties import playout


def check_sample(state, rng: random.Random) -> None:  # type: ignore[no-untyped-def]
    seat = state.to_move
    obs = observation_for(state, seat)
    assert legal_actions_for(obs, state.ruleset) == legal_actions(state)
    sampled = sample_state(obs, state.ruleset, rng, state.discards[seat] or ())
    # The sample agrees with everything the seat knows, and so offers the same moves.
    assert observation_for(sampled, seat) == obs
    assert legal_actions(sampled) == legal_actions(state)
    assert sampled.turns == state.turns
    # It knows of the forfeits this round's history shows (a forfeit by a seat already out shows next round).
    shown = tuple(
        any(getattr(e, "forfeit", False) and e.seat == s for e in state.history) for s in range(state.players)
    )
    assert sampled.forfeited == shown
    assert all(state.forfeited[s] for s in range(state.players) if shown[s])
    # Its hidden cards come from what the seat has not seen: together with the table they fit in the deck.
    table = Counter()  # type: Counter[int]
    for e in state.history:
        if isinstance(e, PlayEvent):
            table[e.value] += e.count
    cards = Counter(c for h in sampled.hands for c in h) + table + Counter(state.discards[seat] or ())
    assert not cards - Counter(DECK)
    assert cards[1] == 1
    # And it can be played to the end.
    while sampled.phase is not Phase.OVER:
        sampled = apply(sampled, rng.choice(legal_actions(sampled)))
    assert len(sampled.rounds_done) == state.ruleset.rounds - state.round


@settings(max_examples=25, deadline=None)
@given(players=st.integers(2, 4), seed=st.integers(0, 2**32), forfeits=st.booleans())
def test_a_sampled_state_is_consistent_with_the_observation(players: int, seed: int, forfeits: bool) -> None:
    rng = random.Random(seed)
    steps = playout(players, STANDARD, seed, seed + 1, 0.02 if forfeits else 0.0)
    for _, _, state in steps[::3]:
        if state.phase is Phase.PLAY:
            check_sample(state, rng)


def test_before_the_opening_the_sample_gives_the_1_to_the_seat_to_move() -> None:
    s = start(LOW, HIGH, MID)
    obs = observation_for(s, 1)
    assert obs.to_move == 0 and 1 not in obs.hand
    sampled = sample_state(obs, STANDARD, random.Random(3), s.discards[1])
    assert sampled.hands[0][0] == 1
    assert legal_actions(sampled) == [OPENING]


def test_unseen_cards_are_the_deck_less_hand_discards_and_table() -> None:
    s = run(start(LOW, HIGH), OPENING)
    obs = observation_for(s, 1)
    unseen = Counter(unseen_cards(obs, s.discards[1]))
    assert unseen == Counter(DECK) - Counter(HIGH) - Counter(s.discards[1]) - Counter([1])


def test_sample_state_needs_a_turn() -> None:
    from .helpers import Plan

    obs = observation_for(Plan((LOW, HIGH)).new(), 0)
    with pytest.raises(ValueError, match="needs an observation of a turn"):
        sample_state(obs, STANDARD, random.Random(1))
