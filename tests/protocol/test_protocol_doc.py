"""PROTOCOL.md's transcript stays true: replayed through the engine, every referee line is byte for byte what
the referee sends in that position, and every reply parses, answers what was asked and is legal."""

from __future__ import annotations

import re
from pathlib import Path

from protocol import (
    DealMessage,
    DiscardReply,
    Expect,
    GameEnd,
    GameStart,
    Hello,
    HelloReply,
    RoundEnd,
    Turn,
    deal_message,
    discard_to_action,
    encode,
    game_end_message,
    game_start_message,
    parse_message,
    parse_reply,
    reply_to_action,
    round_end_message,
    turn_message,
)
from protocol.messages import DropEntry, PassEntry, PlayEntry
from referee.engine import Drop, Pass, Phase, Play, Ruleset, State, apply, legal_actions, new_game, observation_for
from referee.runner.common_random import deal_key, rng_seed

DOC = Path(__file__).resolve().parents[2] / "PROTOCOL.md"
SEED = 6  # the transcript's game: `referee play sample_bots/heuristic.py sample_bots/greedy.py --seed 6`
SEAT = 0
#: Seat 1's discards in that game (private: not in seat 0's transcript; from the game log).
OTHER_DISCARDS = [(21, 22, 22), (21, 22, 22)]


def transcript() -> list[str]:
    blocks = re.findall(r"```transcript\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert blocks, "PROTOCOL.md has no transcript blocks"
    return [line for block in blocks for line in block.splitlines()]


def other_action(entry: PlayEntry | PassEntry | DropEntry) -> Play | Pass | Drop:
    if isinstance(entry, PlayEntry):
        return Play(entry.value, entry.count, entry.bonus)
    if isinstance(entry, PassEntry):
        return Pass(entry.force)
    return Drop()


def catch_up(state: State, history: list[PlayEntry | PassEntry | DropEntry], round_1based: int) -> State:
    """Apply the other seat's actions shown in ``history`` (of round ``round_1based``) that the state lacks."""
    while state.phase is Phase.PLAY and state.round + 1 == round_1based and state.to_move != SEAT:
        entry = history[len(state.history)]
        assert entry.seat == state.to_move
        state = apply(state, other_action(entry))
    return state


def test_the_transcript_is_a_real_game_replayed_exactly() -> None:
    lines = transcript()
    assert all(line.startswith(("→ ", "← ")) for line in lines)
    sent = [(line[0], line[2:].encode()) for line in lines]
    state: State | None = None
    names: list[str] = []
    game_id = ""
    expect: Expect | None = None
    rounds_seen = 0
    for arrow, raw in sent:
        if arrow == "←":
            assert expect is not None, f"a reply nobody asked for: {raw!r}"
            reply = parse_reply(raw, expect)
            assert encode(reply) == raw + b"\n"  # replies as bots write them, compact
            if isinstance(reply, HelloReply):
                assert reply.name == "heuristic"
            elif isinstance(reply, DiscardReply):
                assert state is not None
                state = apply(state, discard_to_action(SEAT, reply))
                state = apply(state, discard_to_action(1, DiscardReply(cards=list(OTHER_DISCARDS[state.round]))))
            else:
                assert state is not None and state.to_move == SEAT
                action = reply_to_action(reply)
                assert action in legal_actions(state)
                state = apply(state, action)
            expect = None
            continue
        assert expect is None, "a referee line while a reply is awaited"
        msg = parse_message(raw)
        if isinstance(msg, Hello):
            assert raw + b"\n" == encode(Hello())
            expect = Expect.HELLO
        elif isinstance(msg, GameStart):
            names, game_id = list(msg.players), msg.game
            ruleset = Ruleset.from_dict(msg.rules)
            state = new_game(len(names), ruleset, seed=SEED)
            rng = rng_seed(state.deal, SEAT, deal_key(SEED))  # the seat's seed of common random numbers on this deal
            assert raw + b"\n" == encode(game_start_message(game_id, SEAT, names, ruleset, msg.time.move_ms, None, rng))
        elif isinstance(msg, DealMessage):
            assert state is not None and state.phase is Phase.DISCARD
            expected = deal_message(game_id, state.round + 1, state.deal[state.round][SEAT], state.ruleset.discard)
            assert raw + b"\n" == encode(expected)
            expect = Expect.DISCARD
        elif isinstance(msg, Turn):
            assert state is not None
            state = catch_up(state, msg.history, msg.round)
            assert raw + b"\n" == encode(turn_message(game_id, observation_for(state, SEAT), names=names))
            expect = Expect.TURN
        elif isinstance(msg, RoundEnd):
            assert state is not None
            state = catch_up(state, msg.history, msg.round)
            assert len(state.rounds_done) == rounds_seen + 1
            record = state.rounds_done[rounds_seen]
            assert raw + b"\n" == encode(round_end_message(game_id, record, names=names))
            rounds_seen += 1
        else:
            assert isinstance(msg, GameEnd) and state is not None and state.phase is Phase.OVER
            assert state.scores is not None and state.ranks is not None
            assert raw + b"\n" == encode(game_end_message(game_id, state.scores, state.ranks, state.forfeited))
    assert state is not None and state.phase is Phase.OVER and rounds_seen == state.ruleset.rounds
    assert expect is None


def test_the_examples_in_the_reply_table_parse() -> None:
    text = DOC.read_text(encoding="utf-8")
    examples = {
        '{"type":"hello","protocol":1,"name":"mybot"}': Expect.HELLO,
        '{"type":"discard","cards":[22,23,23]}': Expect.DISCARD,
        '{"type":"play","value":8,"count":1,"bonus":0}': Expect.TURN,
        '{"type":"pass"}': Expect.TURN,
        '{"type":"pass","force":true}': Expect.TURN,
        '{"type":"drop"}': Expect.TURN,
    }
    for line, expect in examples.items():
        assert f"`{line}`" in text
        parse_reply(line.encode(), expect)
