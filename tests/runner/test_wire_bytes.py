"""Nothing a bot sees changed with the referee's fast path: every line the runner writes to each bot, in many
seeded random games, is byte for byte the line the protocol's pydantic models give for the game at that moment.

The expected lines are rebuilt independently of the runner: the game log is replayed through the engine (bot
discards, moves and forfeits, in log order), and at each message the log says was sent, the models encode
what the engine state says that seat is owed (``encode(turn_message(...))`` and the other builders). The
bots here ask for legal moves or not, pass a lot (long rounds, turn limits) and fault at random moments.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import trio

from protocol import (
    Expect,
    deal_message,
    encode,
    game_end_message,
    game_start_message,
    round_end_message,
    turn_message,
)
from protocol.replies import Reply as AnyReply
from referee.engine import (
    Discard,
    Drop,
    Pass,
    Play,
    Ruleset,
    State,
    apply,
    deal_from_json,
    forfeit,
    legal_actions,
    new_game,
    observation_for,
    turn_actions,
)
from referee.runner import BotCrashed, BotTimeout, play_game, read_log
from referee.runner.common_random import deal_key, rng_seed

from .scripted import ScriptedEntrant

RULESETS = [
    Ruleset(),
    Ruleset(chip_floor=True, rounds=3),
    Ruleset(discard=0, hand_size=8),
    Ruleset(max_turns_per_round=15, start_bonus=0),
]
NAMES = ["alice", 'q"uote\\', "émile ☃ 😀", "tab\tnl\n", "\x01\x7f\u2028"]


class _Recording(ScriptedEntrant):
    """A scripted entrant that keeps the exact bytes of every line it is sent."""

    def __init__(self, name: str, rng: random.Random, legal: bool, pass_bias: float, fault_rate: float) -> None:
        super().__init__(name, self._reply)
        self.lines: list[bytes] = []
        self.wants_legal_moves = legal
        self.rng, self.pass_bias, self.fault_rate = rng, pass_bias, fault_rate

    async def request(self, line: bytes, expect: Expect, deadline: float) -> tuple[AnyReply, bytes]:
        self.lines.append(line)
        return await super().request(line, expect, deadline)

    async def notify(self, line: bytes, deadline: float) -> None:
        self.lines.append(line)
        await super().notify(line, deadline)

    def _reply(self, msg: dict[str, Any]) -> dict[str, Any] | BaseException | None:
        rng = self.rng
        if rng.random() < self.fault_rate:
            return rng.choice(
                [
                    BotTimeout("no reply within 1000 ms"),
                    BotCrashed("the bot exited: exit code 1"),
                    {"type": "play", "value": 23, "count": 9, "bonus": 0},  # illegal
                ]
            )
        if msg["type"] != "turn":
            return None  # the honest discard
        me = msg["players"][msg["seat"]]
        others = any(p["status"] == "playing" for s, p in enumerate(msg["players"]) if s != msg["seat"])
        step = 5  # every ruleset here has the standard bonus step
        moves = turn_actions(tuple(msg["hand"]), me["bonus"], msg["last"], msg["forced"], others, step)
        if "legal" in msg:
            assert len(msg["legal"]) == len(moves)
        passes = [m for m in moves if isinstance(m, Pass)]
        move = rng.choice(passes if passes and rng.random() < self.pass_bias else moves)
        if isinstance(move, Play):
            return {"type": "play", "value": move.value, "count": move.count, "bonus": move.bonus}
        if isinstance(move, Pass):
            return {"type": "pass", "force": move.force}
        return {"type": "drop"}


def _expected_lines(events: list[dict[str, Any]], legal: list[bool], bank: list[int | None]) -> dict[int, list[bytes]]:
    """Replay the game log through the engine; the models' line for every message the log says was sent."""
    start = events[0]
    game_id, names = start["game"], start["names"]
    ruleset = Ruleset.from_dict(start["rules"])
    state: State = new_game(len(names), ruleset, deal=deal_from_json(start["deal"], ruleset))
    out: dict[int, list[bytes]] = {seat: [] for seat in range(len(names))}
    for ev in events:
        kind = ev["event"]
        if kind == "send":
            seat, msg = ev["seat"], ev["msg"]
            out[seat].append(encode(_model(msg, state, seat, game_id, names, legal[seat], start, bank[seat])))
        elif kind == "discard" and ev["by"] == "bot":
            state = apply(state, Discard(ev["seat"], tuple(ev["cards"])))
        elif kind == "action":
            state = apply(state, _action(ev["action"]))
        elif kind == "forfeit" and ev["forfeited"]:
            state = forfeit(state, ev["seat"])
    return out


def _action(a: dict[str, Any]) -> Play | Pass | Drop:
    if a["type"] == "play":
        return Play(a["value"], a["count"], a["bonus"])
    return Drop() if a["type"] == "drop" else Pass(a.get("force", False))


def _model(
    msg: dict[str, Any], state: State, seat: int, game_id: str, names: list[str], legal: bool, start: Any, bank: Any
) -> Any:
    kind = msg["type"]
    if kind == "game_start":
        # From the logged deal and deal seed (the key): what the seat's game_start must carry.
        seed = rng_seed(state.deal, seat, deal_key(start["seed"]))
        return game_start_message(game_id, seat, names, state.ruleset, start["move_ms"][seat], bank, seed)
    if kind == "deal":
        return deal_message(game_id, state.round + 1, state.hands[seat], state.ruleset.discard)
    if kind == "turn":
        assert state.to_move == seat
        return turn_message(game_id, observation_for(state, seat), legal_actions(state) if legal else None, names=names)
    if kind == "round_end":
        return round_end_message(game_id, state.rounds_done[msg["round"] - 1], names=names)
    assert kind == "game_end", kind
    assert state.scores is not None and state.ranks is not None
    return game_end_message(game_id, state.scores, state.ranks, state.forfeited)


def _one_game(seed: int, tmp_path: Path) -> int:
    rng = random.Random(seed)
    players = rng.randint(2, 4)
    ruleset = rng.choice(RULESETS)
    pass_bias = rng.choice([0.0, 0.6, 0.95])
    fault_rate = rng.choice([0.0, 0.0, 0.01])
    entrants = [_Recording(name, rng, rng.random() < 0.5, pass_bias, fault_rate) for name in rng.sample(NAMES, players)]
    log = tmp_path / f"g{seed}.jsonl"
    game_id = f"game-{rng.getrandbits(20)}"
    trio.run(lambda: play_game(entrants, game_id=game_id, ruleset=ruleset, seed=rng.getrandbits(32), log_path=log))
    expected = _expected_lines(read_log(log), [e.wants_legal_moves for e in entrants], [None] * players)
    for seat, entrant in enumerate(entrants):
        assert entrant.lines == expected[seat], f"seed {seed}, seat {seat}"
    return sum(len(e.lines) for e in entrants)


@pytest.mark.parametrize("block", range(4))
def test_every_line_a_bot_is_sent_is_what_the_models_write(block: int, tmp_path: Path) -> None:
    lines = sum(_one_game(seed, tmp_path) for seed in range(block * 25, block * 25 + 25))
    assert lines > 25 * 20  # the games really ran


def test_a_name_with_unicode_line_separators_keeps_the_game_log_readable(tmp_path: Path) -> None:
    """The log writes names unescaped; U+2028, U+0085 and \\x1c inside a name must not split its lines."""
    rng = random.Random(1)
    entrants = [_Recording(name, rng, False, 0.0, 0.0) for name in ("a\u2028b", "c\x85\x1cd")]
    trio.run(lambda: play_game(entrants, game_id="g", seed=5, log_path=tmp_path / "g.jsonl"))
    events = read_log(tmp_path / "g.jsonl")
    assert events[0]["names"] == ["a\u2028b", "c\x85\x1cd"] and events[-1]["event"] == "result"
