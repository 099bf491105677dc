"""Engine ↔ wire: messages built from real games carry exactly what the engine knows, and back."""

from __future__ import annotations

import json
import random

import pytest

from protocol import (
    DealMessage,
    DiscardReply,
    GameEnd,
    GameStart,
    PassReply,
    PlayReply,
    RoundEnd,
    Turn,
    action_to_reply,
    deal_message,
    discard_to_action,
    encode,
    entry_to_event,
    game_end_message,
    game_start_message,
    observation_from_turn,
    parse_message,
    player_view,
    reply_to_action,
    round_end_message,
    turn_message,
)
from referee.engine import (
    DROP,
    PASS,
    PASS_FORCE,
    STANDARD,
    Discard,
    Phase,
    Play,
    Ruleset,
    apply,
    forfeit,
    legal_actions,
    legal_actions_for,
    new_game,
    observation_for,
)


def play_out(players: int, seed: int, with_forfeit: bool) -> None:
    """Play a random game; check every message against the engine on the way."""
    rng = random.Random(seed)
    names = [f"bot{s}" for s in range(players)]
    state = new_game(players, seed=seed)
    rounds_seen = 0
    forfeiter = rng.randrange(players) if with_forfeit else -1
    while state.phase is not Phase.OVER:
        if state.phase is Phase.DISCARD:
            seat = next(s for s in range(players) if state.discards[s] is None)
            deal = parse_message(encode(deal_message("g1", state.round + 1, state.hands[seat], 3)))
            assert isinstance(deal, DealMessage)
            assert tuple(deal.hand) == state.hands[seat] and deal.round == state.round + 1
            options = [a for a in legal_actions(state) if isinstance(a, Discard) and a.seat == seat]
            choice = rng.choice(options)
            reply = action_to_reply(choice)
            assert isinstance(reply, DiscardReply)
            assert discard_to_action(seat, reply) == choice
            state = apply(state, choice)
        else:
            seat = state.to_move
            obs = observation_for(state, seat)
            legal = legal_actions(state)
            turn = parse_message(encode(turn_message("g1", obs, legal, names=names)))
            assert isinstance(turn, Turn)
            assert [p.name for p in turn.players] == names
            assert observation_from_turn(turn) == obs
            assert [reply_to_action(r) for r in turn.legal or []] == legal
            assert legal_actions_for(observation_from_turn(turn), STANDARD) == legal
            if state.turns == 3 and forfeiter >= 0 and not state.forfeited[forfeiter]:
                state = forfeit(state, forfeiter)
                continue
            state = apply(state, rng.choice(legal))
        while rounds_seen < len(state.rounds_done):
            record = state.rounds_done[rounds_seen]
            end = parse_message(encode(round_end_message("g1", record, names=names)))
            assert isinstance(end, RoundEnd)
            assert end.round == rounds_seen + 1
            assert [entry_to_event(e) for e in end.history] == list(record.history)
            assert [e.model_dump() for e in end.history] == [e.to_dict() for e in record.history]
            assert [player_view(p) for p in end.players] == list(record.players)
            rounds_seen += 1
    assert state.scores is not None and state.ranks is not None
    end_msg = parse_message(encode(game_end_message("g1", state.scores, state.ranks, state.forfeited)))
    assert isinstance(end_msg, GameEnd)
    assert end_msg.scores == list(state.scores) and end_msg.ranks == list(state.ranks)
    assert end_msg.forfeits == [s for s in range(players) if state.forfeited[s]]


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("seed", range(4))
def test_messages_of_random_games_match_the_engine(players: int, seed: int) -> None:
    play_out(players, seed, with_forfeit=seed % 2 == 1)


def test_history_entries_encode_exactly_as_the_engine_describes_them() -> None:
    rng = random.Random(5)
    state = new_game(3, seed=5)
    while state.phase is not Phase.OVER:
        state = apply(state, rng.choice(legal_actions(state)))
    for record in state.rounds_done:
        msg = round_end_message("g", record, names=["a", "b", "c"])
        wire = json.loads(encode(msg))
        assert wire["history"] == [e.to_dict() for e in record.history]
        assert [p["status"] for p in wire["players"]] == [p.status.value for p in record.players]


def test_game_start_and_game_end_shapes() -> None:
    rules = Ruleset(chip_floor=True)
    msg = game_start_message("g17", 1, ["random", "greedy", "you"], rules, 1000)
    back = parse_message(encode(msg))
    assert isinstance(back, GameStart)
    assert Ruleset.from_dict(back.rules) == rules and back.time.move_ms == 1000 and back.seat == 1
    assert game_end_message("g", [4, -1, 9], [2, 1, 3], [False, False, True]).forfeits == [2]
    assert game_end_message("g", [4, -1, 9], [2, 1, 3], [2, 0]).forfeits == [0, 2]
    assert game_end_message("g", [4, -1, 9], [2, 1, 3], ()).forfeits == []


def test_game_start_names_the_time_bank_only_when_there_is_one() -> None:
    plain = encode(game_start_message("g1", 0, ["a", "b"], Ruleset(), 1000))
    assert b'"time":{"move_ms":1000}' in plain
    banked = encode(game_start_message("g1", 0, ["a", "b"], Ruleset(), 1000, 2500))
    assert b'"time":{"move_ms":1000,"bank_ms":2500}' in banked
    back = parse_message(banked)
    assert isinstance(back, GameStart) and back.time.bank_ms == 2500


def test_action_reply_pairs() -> None:
    assert action_to_reply(Play(8, 2, 1)) == PlayReply(value=8, count=2, bonus=1)
    assert action_to_reply(PASS) == PassReply() and action_to_reply(PASS_FORCE) == PassReply(force=True)
    for action in (Play(8, 2, 1), PASS, PASS_FORCE, DROP):
        reply = action_to_reply(action)
        assert not isinstance(reply, DiscardReply)
        assert reply_to_action(reply) == action
    assert discard_to_action(2, DiscardReply(cards=[23, 4, 23])) == Discard(2, (4, 23, 23))


def test_names_must_match_the_table() -> None:
    state = new_game(2, seed=1)
    while state.phase is Phase.DISCARD:
        state = apply(state, legal_actions(state)[0])
    with pytest.raises(ValueError, match="names"):
        turn_message("g", observation_for(state, state.to_move), names=["only one"])
