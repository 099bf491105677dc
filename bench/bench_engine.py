"""Engine benchmark: full random-legal games of 23 per second on one core, for 2, 3 and 4 players.

Not a test. Each game is played to the end from a seeded deal: at every turn the player to move picks
uniformly from ``legal_actions``; at the start of every round each seat picks uniformly from
``discard_options`` of its hand. Run: ``python bench/bench_engine.py`` (``--help`` for options).
"""

from __future__ import annotations

import argparse
import os
import random
import time

from referee.engine import STANDARD, Discard, Phase, State, apply, discard_options, legal_actions, new_game


def play_random_game(seed: int, players: int, rng: random.Random) -> State:
    """One complete game with uniformly random legal choices; returns the final state."""
    state = new_game(players, STANDARD, seed=seed)
    need = STANDARD.discard
    choice = rng.choice
    while True:
        phase = state.phase
        if phase is Phase.PLAY:
            state = apply(state, choice(legal_actions(state)))
        elif phase is Phase.DISCARD:
            for seat in range(players):
                if state.discards[seat] is None:
                    state = apply(state, Discard(seat, choice(discard_options(state.hands[seat], need))))
        else:
            return state


def measure(players: int, seconds: float, seed: int) -> tuple[int, int, float]:
    """Play games for about ``seconds``; returns (games, turns, elapsed)."""
    rng = random.Random(seed)
    games = turns = 0
    start = time.perf_counter()
    deadline = start + seconds
    while True:
        for _ in range(20):
            final = play_random_game(seed * 1_000_003 + games, players, rng)
            turns += sum(len(r.history) for r in final.rounds_done)
            games += 1
        now = time.perf_counter()
        if now >= deadline:
            return games, turns, now - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="time per player count (default 5)")
    parser.add_argument("--seed", type=int, default=1, help="seed of deals and choices (default 1)")
    parser.add_argument("--players", type=int, nargs="*", default=[2, 3, 4], help="player counts (default 2 3 4)")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    print(f"{'players':>7} {'games':>7} {'seconds':>8} {'games/s':>9} {'events/game':>12} {'events/s':>10}")
    for n in args.players:
        games, turns, elapsed = measure(n, args.seconds, args.seed)
        print(
            f"{n:>7} {games:>7} {elapsed:>8.2f} {games / elapsed:>9.0f} {turns / games:>12.1f} {turns / elapsed:>10.0f}"
        )


if __name__ == "__main__":
    main()
