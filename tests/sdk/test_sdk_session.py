"""The SDK driven in-process: scripted referee lines in, protocol replies out."""

from __future__ import annotations

import io
import json
import random
from collections.abc import Sequence
from typing import Any

import pytest

from protocol import (
    Bye,
    Expect,
    deal_message,
    encode,
    game_end_message,
    game_start_message,
    parse_reply,
    reply_to_action,
    round_end_message,
    turn_message,
)
from protocol.messages import DiscardReply, HelloReply, PlayReply
from protocol.sdk import Bot, Game, Move, run
from referee.engine import (
    DROP,
    PASS,
    STANDARD,
    Discard,
    Hand,
    Observation,
    Phase,
    Play,
    apply,
    legal_actions,
    new_game,
    observation_for,
    unseen_cards,
)

NAMES = ["sdk", "other"]
HAND = [1, 3, 3, 4, 5, 7, 9, 10, 12, 15, 17, 19, 20, 22, 23]


def line(obj: dict[str, Any]) -> bytes:
    return json.dumps(obj).encode() + b"\n"


def start_lines(seat: int = 0, game: str = "g1") -> list[bytes]:
    return [encode(game_start_message(game, seat, NAMES, STANDARD, 1000))]


def turn_line(hand: Sequence[int], last: int | None, history: list[dict[str, Any]], forced: bool = False) -> bytes:
    players = [
        {"name": "sdk", "cards": len(hand), "penalty": 0, "bonus": 3, "status": "playing"},
        {"name": "other", "cards": 11, "penalty": 0, "bonus": 3, "status": "playing"},
    ]
    msg = {"type": "turn", "game": "g1", "round": 1, "seat": 0, "hand": list(hand), "last": last, "forced": forced}
    return line(msg | {"players": players, "history": history})


OPENED = [
    {"seat": 0, "action": "play", "value": 1, "count": 1, "bonus": 0, "penalty": 0},
    {"seat": 1, "action": "play", "value": 2, "count": 1, "bonus": 0, "penalty": 0},
]


def converse(bot: Bot | None = None, lines: Sequence[bytes] = (), **kwargs: Any) -> list[bytes]:
    out = io.BytesIO()
    run(bot, stdin=io.BytesIO(b"".join(lines)), stdout=out, **kwargs)
    return out.getvalue().splitlines(keepends=True)


class Lowest(Bot):
    name = "lowest"
    version = "0.1"

    def __init__(self) -> None:
        self.games: list[Game] = []

    def new_game(self, game: Game) -> None:
        self.games.append(game)

    def move(self, obs: Observation, game: Game) -> Move:
        return game.legal_moves(obs)[0]


def test_the_game_knows_its_time_bank_when_the_contest_gives_one() -> None:
    bot = Lowest()
    banked = encode(game_start_message("g2", 0, NAMES, STANDARD, 1000, 3000))
    converse(bot, [b'{"type":"hello","protocol":1}\n', *start_lines(), banked])
    assert [(g.move_ms, g.bank_ms) for g in bot.games] == [(1000, None), (1000, 3000)]


def test_a_scripted_session() -> None:
    bot = Lowest()
    replies = converse(
        bot,
        [
            b'{"type":"hello","protocol":1}\n',
            *start_lines(),
            line({"type": "deal", "game": "g1", "round": 1, "hand": HAND, "discard": 3, "extra": [1]}),
            b'{"type":"news","text":"a message type from the future"}\n',
            turn_line([1, 3, 3, 4, 5, 7, 9, 10, 12, 15, 17, 19], None, []),
            turn_line([3, 3, 4, 5, 7, 9, 10, 12, 15, 17, 19], 2, OPENED),
            b"\n",
            b'{"type":"bye"}\n',
            b'{"type":"hello","protocol":1}\n',  # never read: the bot is gone after bye
        ],
    )
    assert len(replies) == 4
    assert all(r.endswith(b"\n") for r in replies)
    hello = parse_reply(replies[0], Expect.HELLO)
    assert hello == HelloReply(protocol=1, name="lowest", version="0.1")
    discard = parse_reply(replies[1], Expect.DISCARD)
    assert discard == DiscardReply(cards=[20, 22, 23])
    assert parse_reply(replies[2], Expect.TURN) == PlayReply(value=1, count=1, bonus=0)
    assert parse_reply(replies[3], Expect.TURN) == PlayReply(value=3, count=1, bonus=0)
    (game,) = bot.games
    assert (game.id, game.seat, game.names, game.move_ms) == ("g1", 0, NAMES, 1000)
    assert game.discards == (20, 22, 23) and game.round == 1
    assert game.ruleset == STANDARD


def test_end_of_input_ends_the_session_cleanly() -> None:
    assert converse(Lowest(), [b'{"type":"hello","protocol":1}\n']) == [
        b'{"type":"hello","protocol":1,"name":"lowest","version":"0.1"}\n'
    ]
    assert converse(Lowest(), []) == []


def test_a_pair_of_functions_is_a_bot() -> None:
    def move(obs: Observation, game: Game) -> Move:
        return DROP if obs.last is not None else Play(1, 1, 0)

    def discard(hand: Hand, n: int, game: Game) -> list[int]:
        return [3, 3, 4]

    replies = converse(
        None,
        [
            b'{"type":"hello","protocol":1}\n',
            *start_lines(),
            line({"type": "deal", "game": "g1", "round": 1, "hand": HAND, "discard": 3}),
            turn_line([3, 3, 4, 5, 7, 9, 10, 12, 15, 17, 19], 2, OPENED),
        ],
        move=move,
        discard=discard,
        name="pair",
    )
    assert [json.loads(r) for r in replies] == [
        {"type": "hello", "protocol": 1, "name": "pair"},
        {"type": "discard", "cards": [3, 3, 4]},
        {"type": "drop"},
    ]
    with pytest.raises(TypeError):
        run(None)


def test_asking_for_legal_moves() -> None:
    class Asker(Lowest):
        legal_moves = True

    (hello,) = converse(Asker(), [b'{"type":"hello","protocol":1}\n'])
    reply = parse_reply(hello, Expect.HELLO)
    assert isinstance(reply, HelloReply) and reply.wants_legal_moves


class Chatty(Bot):
    """Prints on stdout, raises, and returns illegal moves: the SDK keeps the protocol clean regardless."""

    name = "chatty"

    def __init__(self, mode: str) -> None:
        self.mode = mode

    def discard(self, hand: Hand, n: int, game: Game) -> list[int]:
        print("thinking about my discard")
        if self.mode == "raise":
            raise RuntimeError("discard bug")
        return [1, 3, 3]  # the 1 may not be discarded

    def move(self, obs: Observation, game: Game) -> Move:
        print("thinking about my move")
        if self.mode == "raise":
            raise RuntimeError("move bug")
        if self.mode == "tuple" and obs.last is not None:
            return (3, 1, 0)  # type: ignore[return-value]  # a legal play's values, but not a move
        return Play(23, 1, 0)  # not in hand


@pytest.mark.parametrize("mode", ["raise", "illegal", "tuple"])
def test_prints_go_to_stderr_and_bad_answers_become_legal_fallbacks(
    mode: str, capsys: pytest.CaptureFixture[str]
) -> None:
    replies = converse(
        Chatty(mode),
        [
            b'{"type":"hello","protocol":1}\n',
            *start_lines(),
            line({"type": "deal", "game": "g1", "round": 1, "hand": HAND, "discard": 3}),
            turn_line([1, 3, 3, 4, 5, 7, 9, 10, 12, 15, 17, 19], None, []),
            turn_line([3, 3, 4, 5, 7, 9, 10, 12, 15, 17, 19], 2, OPENED),
            turn_line([3, 3, 4, 5, 7, 9, 10, 12, 15, 17, 19], 9, OPENED, forced=True),
        ],
    )
    assert parse_reply(replies[1], Expect.DISCARD) == DiscardReply(cards=[20, 22, 23])
    assert parse_reply(replies[2], Expect.TURN) == PlayReply(value=1, count=1, bonus=0)
    assert reply_to_action(parse_reply(replies[3], Expect.TURN)) == PASS  # type: ignore[arg-type]
    assert reply_to_action(parse_reply(replies[4], Expect.TURN)) == DROP  # type: ignore[arg-type]
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "thinking about my move" in captured.err
    assert ("move bug" in captured.err) == (mode == "raise")
    assert "instead" in captured.err


def test_stdout_is_restored_after_run(capsys: pytest.CaptureFixture[str]) -> None:
    converse(Lowest(), [])
    print("visible")
    assert capsys.readouterr().out == "visible\n"


def test_each_game_start_begins_a_fresh_game_with_its_own_rng() -> None:
    class Recorder(Lowest):
        def move(self, obs: Observation, game: Game) -> Move:
            game.data["turns"] = game.data.get("turns", 0) + 1
            return super().move(obs, game)

    bot = Recorder()
    lines = [b'{"type":"hello","protocol":1}\n']
    for gid in ("g1", "g2"):
        lines += start_lines(game=gid)
        lines.append(turn_line([1, 3], None, []).replace(b'"g1"', f'"{gid}"'.encode()))
        lines.append(encode(game_end_message(gid, [1, 2], [1, 2], [])))
    replies = converse(bot, lines, seed=7)
    assert len(replies) == 3
    first, second = bot.games
    assert first is not second and first.id == "g1" and second.id == "g2"
    assert first.data == {"turns": 1} and second.data == {"turns": 1}
    assert first.result is not None and first.result.scores == [1, 2]
    assert converse(Recorder(), lines, seed=7) == replies


class ScriptedReferee(io.RawIOBase):
    """A two-seat referee in the test: seat 0 is the SDK bot on the other end of these streams, seat 1 plays
    random legal moves. Reading gives the bot its next lines; writing is the bot's reply."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.state = new_game(2, seed=seed)
        self.pending: list[bytes] = [b'{"type":"hello","protocol":1}\n']
        self.expect: Expect | None = Expect.HELLO
        self.rounds = 0
        self.replies = 0
        self.done = False

    def readline(self, size: int | None = -1) -> bytes:
        if not self.pending:
            assert self.done, "the bot is waiting for a line while the referee waits for a reply"
            return b""
        return self.pending.pop(0)

    def write(self, data: Any) -> int:
        assert self.expect is not None, f"unsolicited line {bytes(data)!r}"
        reply = parse_reply(bytes(data), self.expect)
        self.replies += 1
        if self.expect is Expect.HELLO:
            self.pending.append(encode(game_start_message("g", 0, NAMES, STANDARD, 1000)))
        elif self.expect is Expect.DISCARD:
            assert isinstance(reply, DiscardReply)
            self.state = apply(self.state, Discard(0, tuple(sorted(reply.cards))))
        else:
            self.state = apply(self.state, reply_to_action(reply))  # type: ignore[arg-type]
        self.advance()
        return len(data)

    def advance(self) -> None:
        """Move the game on until seat 0 must answer, queueing its messages."""
        while True:
            st = self.state
            while self.rounds < len(st.rounds_done):
                self.pending.append(encode(round_end_message("g", st.rounds_done[self.rounds], names=NAMES)))
                self.rounds += 1
            if st.phase is Phase.OVER:
                assert st.scores is not None and st.ranks is not None
                self.pending.append(encode(game_end_message("g", st.scores, st.ranks, st.forfeited)))
                self.pending.append(encode(Bye()))
                self.expect, self.done = None, True
                return
            if st.phase is Phase.DISCARD:
                if st.discards[1] is None:
                    self.state = apply(st, self.rng.choice([a for a in legal_actions(st) if a.seat == 1]))  # type: ignore[union-attr]
                    continue
                self.pending.append(encode(deal_message("g", st.round + 1, st.deal[st.round][0], 3)))
                self.expect = Expect.DISCARD
                return
            if st.to_move == 1:
                self.state = apply(st, self.rng.choice(legal_actions(st)))
                continue
            obs = observation_for(st, 0)
            self.pending.append(encode(turn_message("g", obs, names=NAMES)))
            self.expect = Expect.TURN
            return


class Sampler(Bot):
    """Checks the SDK's simulation helpers on every turn, then plays a random legal move."""

    name = "sampler"

    def move(self, obs: Observation, game: Game) -> Move:
        legal = game.legal_moves(obs)
        state = game.sample_state(obs)
        assert state.hands[obs.seat] == obs.hand
        other = 1 - obs.seat
        assert len(state.hands[other]) == obs.players[other].cards
        unseen = unseen_cards(obs, game.discards)
        assert all(state.hands[other].count(c) <= unseen.count(c) + (c == 1) for c in state.hands[other])
        assert legal_actions(state) == legal
        return game.rng.choice(legal)


@pytest.mark.parametrize("seed", range(6))
def test_the_sdk_plays_whole_games_against_a_scripted_referee(seed: int) -> None:
    referee = ScriptedReferee(seed)
    run(Sampler(), stdin=referee, stdout=referee, seed=seed)  # type: ignore[arg-type]
    assert referee.done and referee.state.phase is Phase.OVER
    assert referee.replies >= 1 + 2 + 2  # hello, two discards, at least the openings
