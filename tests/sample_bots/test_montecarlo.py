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
from referee.engine import STANDARD, Discard, Observation, Phase, PlayEvent, apply, new_game, observation_for

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


greedy = load("greedy")
random_bot = load("random_bot")


def observation(history: list[PlayEvent]) -> Observation:
    """Seat 0's view of a 3-player game whose round so far is ``history`` (only the history matters here)."""
    state = new_game(3, seed=1)
    return observation_for(state, 0)._replace(history=tuple(history))


OPENING = PlayEvent(seat=1, value=1, count=1, bonus=0, penalty=0)


@pytest.mark.parametrize(
    ("play", "erratic"),
    [
        (PlayEvent(seat=2, value=8, count=2, bonus=1, penalty=1), False),  # the chip cut the penalty from 6 to 1
        (PlayEvent(seat=2, value=2, count=1, bonus=0, penalty=0), False),
        (PlayEvent(seat=2, value=2, count=1, bonus=1, penalty=0), True),  # 2 on 1 is free without the chip
        (PlayEvent(seat=2, value=13, count=1, bonus=2, penalty=1), False),  # the second chip cut 6 to 1
        (PlayEvent(seat=2, value=7, count=1, bonus=2, penalty=0), True),  # one chip reaches 7 on 1 with no penalty
        (
            PlayEvent(seat=2, value=17, count=1, bonus=0, penalty=15),
            False,
        ),  # dropping 12 cards costs 12, finishing saves 3
        (PlayEvent(seat=2, value=18, count=1, bonus=0, penalty=16), True),  # more than dropping, even with the refund
        (PlayEvent(seat=2, value=2, count=1, bonus=1, penalty=0, forfeit=True), False),  # the referee's play
        (PlayEvent(seat=0, value=2, count=1, bonus=1, penalty=0), False),  # its own plays are never judged
    ],
)
def test_erratic_seats_are_those_whose_plays_waste_chips(play: PlayEvent, erratic: bool) -> None:
    assert mc.erratic_seats(observation([OPENING, play]), STANDARD) == ({play.seat} if erratic else set())


def test_careful_bots_are_never_taken_for_erratic_and_the_random_bot_soon_is() -> None:
    bots = [heuristic.Heuristic(), greedy.Greedy(), random_bot.RandomBot(), heuristic.Heuristic()]
    flagged_games = 0
    for seed in range(40):
        state = new_game(4, seed=seed)
        games = [
            Game(id="t", seat=s, names=["b"] * 4, ruleset=STANDARD, move_ms=1000, rng=random.Random(s))
            for s in range(4)
        ]
        flagged = False
        while state.phase is not Phase.OVER:
            if state.phase is Phase.DISCARD:
                for s in range(4):
                    state = apply(state, Discard(s, tuple(bots[s].discard(state.hands[s], 3, games[s]))))
                continue
            seat = state.to_move
            obs = observation_for(state, seat)
            seen = mc.erratic_seats(obs, STANDARD)
            assert seen <= {2}, f"seed {seed}: a careful bot was taken for erratic"
            flagged = flagged or 2 in seen
            state = apply(state, bots[seat].move(obs, games[seat]))
        flagged_games += flagged
    assert flagged_games >= 25


def test_an_erratic_player_is_remembered_by_name_in_later_games() -> None:
    bot = mc.MonteCarlo()
    first = Game(
        id="g1", seat=0, names=["montecarlo", "careful", "wild"], ruleset=STANDARD, move_ms=1000, rng=random.Random(1)
    )
    wasted = PlayEvent(seat=2, value=2, count=1, bonus=1, penalty=0)
    assert bot.erratic(first, observation([OPENING, wasted])) == {2}
    later = Game(
        id="g2", seat=1, names=["wild", "montecarlo", "careful"], ruleset=STANDARD, move_ms=1000, rng=random.Random(2)
    )
    assert bot.erratic(later) == {0}
    assert mc.MonteCarlo().erratic(later) == set()  # a new bot knows nobody
