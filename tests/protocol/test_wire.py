"""The referee's fast path (``protocol.wire.GameWire``) writes exactly the bytes the models write.

Over many seeded random games (every table size, several rulesets, long rounds full of passes, turn limits,
forfeits at any moment) every message a bot could be sent at every step is built both ways: with the pydantic
models (``encode(turn_message(...))`` and the other ``*_message`` builders, the protocol's contract) and with
``GameWire``; the bytes must be identical. The expected bytes come from the models here, not from stored
files, so any change to the models shows up as a difference.
"""

from __future__ import annotations

import random

import pytest

from protocol import deal_message, encode, game_end_message, game_start_message, round_end_message, turn_message
from protocol.convert import event_to_entry
from protocol.wire import GameWire, history_entry, legal_reply
from referee.engine import (
    Discard,
    Drop,
    DropEvent,
    PassEvent,
    Phase,
    PlayEvent,
    Ruleset,
    State,
    apply,
    discard_options,
    forfeit,
    legal_actions,
    new_game,
    observation_for,
)

RULESETS = [
    Ruleset(),
    Ruleset(chip_floor=True, rounds=3),
    Ruleset(discard=0, hand_size=8, rounds=2),
    Ruleset(max_turns_per_round=12, start_bonus=0),
    Ruleset(hand_size=16, discard=1, bonus_step=2, start_bonus=9, rounds=1),
]
#: Names a bot may declare: escapes, quotes, non-ASCII, control characters, emoji, the empty string.
NAMES = ["alice", 'q"uote\\back', "tab\there\nnl", "émile ☃ 😀", "\x00\x1f\x7f\u2028", "", "</script>", "a" * 300]


def _all_messages(wire: GameWire, state: State, game_id: str, names: list[str], seen_rounds: int) -> int:
    """Compare both paths on every message the state allows for every seat; the rounds announced so far."""
    for seat in range(state.players):
        obs = observation_for(state, seat)
        if state.phase is not Phase.OVER and state.hands:
            model = encode(deal_message(game_id, obs.round, state.hands[seat], state.ruleset.discard))
            assert wire.deal(obs.round, state.hands[seat], state.ruleset.discard) == model
        if state.phase is Phase.PLAY and state.to_move == seat:
            legal = legal_actions(state)
            for offer in (None, legal):
                assert wire.turn(obs, offer) == encode(turn_message(game_id, obs, offer, names=names))
        elif state.phase is Phase.PLAY:  # a turn line for a seat not to move is still well defined
            assert wire.turn(obs) == encode(turn_message(game_id, obs, names=names))
    for record in state.rounds_done[seen_rounds:]:
        assert wire.round_end(record) == encode(round_end_message(game_id, record, names=names))
    if state.phase is Phase.OVER:
        assert state.scores is not None and state.ranks is not None
        model = encode(game_end_message(game_id, state.scores, state.ranks, state.forfeited))
        assert wire.game_end(state.scores, state.ranks, state.forfeited) == model
    return len(state.rounds_done)


def _random_game(seed: int) -> None:
    rng = random.Random(seed)
    players = rng.randint(2, 4)
    ruleset = rng.choice([r for r in RULESETS if r.hand_size * players <= 66])
    names = rng.sample(NAMES, players)
    game_id = rng.choice(["g1", f"t-{seed}-é", 'odd "id"', ""])
    wire = GameWire(game_id, names)
    state = new_game(players, ruleset, seed=rng.getrandbits(32))
    pass_bias = rng.choice([0.0, 0.5, 0.9])  # 0.9: long rounds of passes (quadratic before the fast path)
    forfeit_rate = rng.choice([0.0, 0.0, 0.02])
    for seat in range(players):
        for move_ms, bank_ms in ((1, None), (1000, 0), (250, 30000)):
            model = encode(game_start_message(game_id, seat, names, ruleset, move_ms, bank_ms))
            assert wire.game_start(seat, ruleset.to_dict(), move_ms, bank_ms) == model
    seen = 0
    while True:
        seen = _all_messages(wire, state, game_id, names, seen)
        if state.phase is Phase.OVER:
            return
        if rng.random() < forfeit_rate:
            seat = rng.randrange(players)
            if not state.forfeited[seat]:
                state = forfeit(state, seat)
                continue
        if state.phase is Phase.DISCARD:
            seat = next(s for s in range(players) if state.discards[s] is None)
            options = discard_options(state.hands[seat], ruleset.discard)
            state = apply(state, Discard(seat, rng.choice(options)))
            continue
        legal = legal_actions(state)
        passes = [a for a in legal if type(a).__name__ == "Pass"]
        state = apply(state, rng.choice(passes if passes and rng.random() < pass_bias else legal))


@pytest.mark.parametrize("block", range(8))
def test_the_fast_path_writes_the_models_bytes_over_random_games(block: int) -> None:
    for seed in range(block * 40, block * 40 + 40):
        _random_game(seed)


def test_every_history_entry_and_legal_reply_shape() -> None:
    events = [
        PlayEvent(0, 5, 2, 1, 3),
        PlayEvent(1, 1, 1, 0, 0, forfeit=True),
        PlayEvent(2, 22, 1, 0, -3, finished=True),
        PassEvent(3, True, 2),
        PassEvent(0, False, 1),
        DropEvent(1, 7),
        DropEvent(2, 4, forfeit=True),
        DropEvent(3, 9, limit=True),
    ]
    for event in events:
        assert history_entry(event) + "\n" == encode(event_to_entry(event)).decode()
    with pytest.raises(ValueError, match="discard"):
        legal_reply(Discard(0, (5, 6, 7)))
    assert legal_reply(Drop()) == '{"type":"drop"}'


def test_history_kept_between_calls_is_rebuilt_when_it_does_not_continue() -> None:
    wire = GameWire("g", ["a", "b"])
    a = (PlayEvent(0, 1, 1, 0, 0), PassEvent(1, False, 1))
    b = (PlayEvent(0, 1, 1, 0, 0), DropEvent(1, 5))
    state = new_game(2, seed=1)
    obs = observation_for(state, 0)
    for history in (a, a[:1], b, a, ()):
        for round_1based in (1, 2):
            view = obs._replace(history=history, round=round_1based)
            assert wire.turn(view) == encode(turn_message("g", view, names=["a", "b"]))


def test_a_table_without_a_name_per_seat_is_refused() -> None:
    state = new_game(3, seed=1)
    with pytest.raises(ValueError, match="2 names for a table of 3 seats"):
        GameWire("g", ["a", "b"]).turn(observation_for(state, 0))


def test_a_turn_line_is_the_same_from_lists_as_from_the_engines_tuples() -> None:
    """GameWire keeps each seat's row and each hand it encoded; an observation built by hand with lists (not
    hashable) is written the same, and does not disturb what is kept."""
    obs = observation_for(new_game(4, seed=3), 1)
    wire = GameWire("g", ["a", "b", "c", "d"])
    line = wire.turn(obs)
    as_lists = obs._replace(hand=list(obs.hand), players=[list(p) for p in obs.players])
    assert wire.turn(as_lists) == line  # type: ignore[arg-type]
    assert wire.turn(obs) == line == encode(turn_message("g", obs, names=["a", "b", "c", "d"]))
