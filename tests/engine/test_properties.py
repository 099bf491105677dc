"""Properties of random legal playouts, with random rulesets and random forfeits, for 2, 3 and 4 players."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.engine import (
    DECK,
    STANDARD,
    Discard,
    Drop,
    DropEvent,
    IllegalMove,
    Observation,
    Pass,
    PassEvent,
    Phase,
    Play,
    PlayerView,
    PlayEvent,
    Ruleset,
    State,
    Status,
    apply,
    discard_options,
    forfeit,
    legal_actions,
    new_game,
    observation_for,
)

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def rulesets(draw: Any, players: int) -> Ruleset:
    """The standard ruleset half of the time, otherwise any valid combination of options."""
    if draw(st.booleans()):
        return STANDARD
    hand_size = draw(st.integers(1, min(16, 66 // players)))
    return Ruleset(
        chip_floor=draw(st.booleans()),
        rounds=draw(st.integers(1, 3)),
        hand_size=hand_size,
        discard=draw(st.integers(0, min(3, hand_size - 1))),
        start_bonus=draw(st.integers(0, 4)),
        bonus_step=draw(st.integers(1, 7)),
        finish_refund=draw(st.integers(0, 4)),
        bonus_refund=draw(st.integers(0, 3)),
        max_turns_per_round=draw(st.sampled_from([1, 2, 3, 7, 25, 1000])),
    )


Step = tuple[str, Any, State]


def playout(
    players: int, ruleset: Ruleset, seed: int, choices: int, forfeit_odds: float, keen: bool = False
) -> list[Step]:
    """A random legal game: uniform turn actions, uniform discards, and now and then a forfeit.

    A ``keen`` player plays a card 7 times in 10 when it can and drops only 1 time in 20 when it has something
    else to do, so rounds run long enough to see finishes, forces between many players and the turn limit.
    """
    rng = random.Random(choices)
    state = new_game(players, ruleset, seed=seed)
    steps: list[Step] = [("start", None, state)]
    limit = ruleset.rounds * (ruleset.max_turns_per_round + 2 * players) + players
    while state.phase is not Phase.OVER:
        assert len(steps) <= limit, "the game does not end"
        candidates = [s for s in range(players) if not state.forfeited[s]]
        if candidates and rng.random() < forfeit_odds:
            seat = rng.choice(candidates)
            state = forfeit(state, seat)
            steps.append(("forfeit", seat, state))
        elif state.phase is Phase.PLAY:
            actions = legal_actions(state)
            if keen:
                plays = [a for a in actions if type(a) is Play]
                if plays and rng.random() < 0.7:
                    actions = plays
                elif len(actions) > 1 and rng.random() >= 0.05:
                    actions = actions[:-1]  # Drop is always last
            action = rng.choice(actions)
            state = apply(state, action)
            steps.append(("act", action, state))
        else:
            seat = rng.choice([s for s in range(players) if state.discards[s] is None])
            action = Discard(seat, rng.choice(discard_options(state.hands[seat], ruleset.discard)))
            state = apply(state, action)
            steps.append(("act", action, state))
    return steps


def all_histories(state: State) -> list[Any]:
    done = [e for r in state.rounds_done for e in r.history]
    return done if state.phase is Phase.OVER else done + list(state.history)


def check_cards(state: State) -> None:
    """hands + discards + table + box == the deck; hands + discards + table == the cards dealt this round."""
    dealt = Counter(c for hand in state.deal[state.round] for c in hand)
    assert sum(dealt.values()) == state.players * state.ruleset.hand_size
    held = Counter(c for hand in state.hands for c in hand)
    discarded = Counter(c for d in state.discards if d is not None for c in d)
    table = Counter()  # type: Counter[int]
    for e in state.history:
        if isinstance(e, PlayEvent):
            table[e.value] += e.count
    assert held + discarded + table == dealt
    box = Counter(DECK) - dealt
    assert held + discarded + table + box == Counter(DECK)
    assert sum((held + discarded + table + box).values()) == 66


def check_chips(state: State) -> None:
    events = all_histories(state)
    assert len(state.rounds_done) == (state.ruleset.rounds if state.phase is Phase.OVER else state.round)
    for seat in range(state.players):
        mine = [e for e in events if e.seat == seat]
        assert state.penalty[seat] == sum(e.penalty for e in mine)
        spent = sum(e.bonus for e in mine if isinstance(e, PlayEvent))
        assert state.bonus[seat] == state.ruleset.start_bonus - spent >= 0
        if state.ruleset.chip_floor:
            assert state.penalty[seat] >= 0
    if state.phase is Phase.OVER:
        rules = state.ruleset
        assert state.scores is not None and state.ranks is not None
        for seat in range(state.players):
            raw = sum(e.penalty for e in events if e.seat == seat) - rules.bonus_refund * state.bonus[seat]
            assert state.scores[seat] == (max(0, raw) if rules.chip_floor else raw)
        keys = list(zip(state.forfeited, state.scores, strict=True))
        assert state.ranks == tuple(1 + sum(o < k for o in keys) for k in keys)
        for i in range(state.players):
            for j in range(state.players):
                if state.forfeited[i] and not state.forfeited[j]:
                    assert state.ranks[i] > state.ranks[j]
    else:
        assert state.scores is None and state.ranks is None


def check_turn(state: State) -> None:
    assert state.turns <= state.ruleset.max_turns_per_round
    if state.phase is Phase.PLAY:
        assert state.status[state.to_move] is Status.PLAYING
        assert all(d is not None for d in state.discards)
    else:
        assert state.to_move == -1 and not state.forced
    if state.forced:
        # A force always falls on another seat: the last turn was a pass-and-force by a different player.
        forcer = [e for e in state.history if not getattr(e, "forfeit", False)][-1]
        assert isinstance(forcer, PassEvent) and forcer.force and forcer.seat != state.to_move
    for e in state.history:
        if isinstance(e, PassEvent) and e.force:
            assert e.penalty == 2
    for seat in range(state.players):
        if state.status[seat] is Status.FINISHED:
            assert state.hands[seat] == ()


def card_lists(value: object, path: str = "") -> list[str]:
    """Where ``value`` holds a plain tuple of integers (a list of cards), recursively."""
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        if value and all(type(v) is int for v in value):
            return [path]
        return [p for i, v in enumerate(value) for p in card_lists(v, f"{path}[{i}]")]
    if isinstance(value, tuple):
        return [p for name in value._fields for p in card_lists(getattr(value, name), f"{path}.{name}")]  # type: ignore[attr-defined]
    return []


def check_observations(state: State) -> None:
    """Structurally: own hand, public table, public history of this round; nothing else."""
    for seat in range(state.players):
        obs = observation_for(state, seat)
        assert type(obs) is Observation
        assert obs.seat == seat and obs.round == state.round + 1
        assert obs.hand == state.hands[seat]
        assert obs.last == state.last and obs.to_move == state.to_move
        assert obs.forced == (state.forced and state.to_move == seat)
        assert len(obs.players) == state.players
        for s, view in enumerate(obs.players):
            assert type(view) is PlayerView
            assert (view.cards, view.penalty, view.bonus, view.status) == (
                len(state.hands[s]),
                state.penalty[s],
                state.bonus[s],
                state.status[s],
            )
            assert all(type(f) is int for f in view[:3]) and type(view.status) is Status
        assert obs.history == state.history
        for e in obs.history:
            assert type(e) in (PlayEvent, PassEvent, DropEvent)
            assert all(type(f) in (int, bool) for f in e)
        # The only list of cards in the whole observation is the seat's own hand (when not empty).
        assert card_lists(obs) in ([".hand"], [])


def random_candidates(state: State, rng: random.Random) -> list[Any]:
    n = state.players
    chips = max(state.bonus) + 1
    out: list[Any] = [Pass(False), Pass(True), Drop()]
    for _ in range(10):
        out.append(Play(rng.randint(0, 24), rng.randint(0, 4), rng.randint(-1, chips)))
    hand = [c for h in state.hands for c in h] or [1]
    for _ in range(6):
        seat = rng.randint(-1, n)
        size = state.ruleset.discard + rng.choice([0, 0, 0, -1, 1])
        cards = tuple(sorted(rng.choice([*hand, 0, 24]) for _ in range(max(0, size))))
        out.append(Discard(seat, cards))
    return out


def check_refusals(state: State, rng: random.Random) -> None:
    """apply accepts exactly the actions in legal_actions and refuses everything else with IllegalMove."""
    legal = legal_actions(state)
    legal_set = set(legal)
    assert len(legal_set) == len(legal)
    for action in random_candidates(state, rng):
        if action in legal_set:
            apply(state, action)
        else:
            with pytest.raises(IllegalMove):
                apply(state, action)
    sample = legal if state.phase is Phase.PLAY else rng.sample(legal, min(len(legal), 5))
    for action in sample:
        apply(state, action)


def check_game(steps: list[Step], rng: random.Random) -> None:
    final = steps[-1][2]
    assert final.phase is Phase.OVER
    assert len(final.rounds_done) == final.ruleset.rounds
    for _, _, state in steps:
        check_cards(state)
        check_chips(state)
        check_turn(state)
        check_observations(state)
        check_refusals(state, rng)


def run_property(players: int, ruleset: Ruleset, seed: int, choices: int, forfeits: bool, keen: bool) -> None:
    odds = 0.02 if forfeits else 0.0
    steps = playout(players, ruleset, seed, choices, odds, keen)
    check_game(steps, random.Random(seed ^ choices))
    # The same seed and the same choices give the identical game, state by state.
    assert playout(players, ruleset, seed, choices, odds, keen) == steps


@pytest.mark.parametrize("players", [2, 3, 4])
@SETTINGS
@given(
    data=st.data(),
    seed=st.integers(0, 2**32),
    choices=st.integers(0, 2**32),
    forfeits=st.booleans(),
    keen=st.booleans(),
)
def test_random_legal_playouts_keep_every_invariant(
    players: int, data: st.DataObject, seed: int, choices: int, forfeits: bool, keen: bool
) -> None:
    ruleset = data.draw(rulesets(players))
    run_property(players, ruleset, seed, choices, forfeits, keen)


def test_the_same_seed_gives_the_same_game_from_a_fresh_start() -> None:
    first = [state for _, _, state in playout(4, STANDARD, 99, 7, 0.02)]
    again = [state for _, _, state in playout(4, STANDARD, 99, 7, 0.02)]
    assert first == again
    assert first[0] == new_game(4, STANDARD, seed=99)
    assert playout(4, STANDARD, 98, 7, 0.0)[0][2] != first[0]
