"""The Monte Carlo sample bot: a whole game of its decisions is legal and reproducible from its seed (when it
stops on its world cap, not the clock)."""

from __future__ import annotations

import importlib.util
import random
import time
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

from protocol.sdk import Game, Move
from protocol.tactics import plan_discard
from referee.engine import STANDARD, Discard, Phase, apply, new_game, observation_for

BOTS = Path(__file__).resolve().parents[2] / "sample_bots"


def load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"sample_{name}", BOTS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


mc = load("montecarlo")
heuristic = load("heuristic")


def play_game(players: int, seed: int, monkeypatch: pytest.MonkeyPatch) -> list[Move]:
    """A game of montecarlo at seat 0 against heuristic bots; its moves, each checked by the engine."""
    monkeypatch.setattr(mc, "MAX_WORLDS", 12)
    bot, other = mc.MonteCarlo(), heuristic.Heuristic()
    state = new_game(players, seed=seed)
    games = [
        Game(id="t", seat=s, names=["b"] * players, ruleset=STANDARD, move_ms=1000, rng=random.Random(seed * 10 + s))
        for s in range(players)
    ]
    moves: list[Move] = []
    while state.phase is not Phase.OVER:
        if state.phase is Phase.DISCARD:
            for s, game in enumerate(games):
                game.round, game.hand = state.round + 1, state.hands[s]
                game.deadline = time.monotonic() + 3600  # the world cap ends its thinking, not the clock
                cards = bot.discard(game.hand, STANDARD.discard, game) if s == 0 else plan_discard(game.hand, 3)
                state = apply(state, Discard(s, tuple(cards)))
                game.discards, game.hand = state.discards[s], state.hands[s]
            continue
        seat = state.to_move
        obs = observation_for(state, seat)
        games[seat].deadline = time.monotonic() + 3600
        action = bot.move(obs, games[seat]) if seat == 0 else other.move(obs, games[seat])
        if seat == 0:
            moves.append(action)
        done = len(state.rounds_done)
        state = apply(state, action)  # raises IllegalMove for an illegal move
        if len(state.rounds_done) > done:
            for game in games:
                game.round_ends.append(SimpleNamespace(players=state.rounds_done[-1].players))
    return moves


@pytest.mark.parametrize("players", [2, 4])
def test_a_game_is_legal_and_reproducible_from_the_seed(players: int, monkeypatch: pytest.MonkeyPatch) -> None:
    first = play_game(players, 5, monkeypatch)
    assert first
    assert play_game(players, 5, monkeypatch) == first
