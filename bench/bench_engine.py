"""Engine benchmark: full random-legal games of 23 per second on one core, for 2, 3 and 4 players.

Not a test. Each game is played to the end from a seeded deal: at every turn the player to move picks
uniformly from ``legal_actions``; at the start of every round each seat picks uniformly from
``discard_options`` of its hand (``--discards legal``: the discards, too, are uniform picks from
``legal_actions``, which lists every pending seat's choices at each step).
Run: ``python bench/bench_engine.py`` (``--help`` for options).
"""

from __future__ import annotations

import argparse
import os
import random
import time

from referee.engine import STANDARD, Discard, Phase, State, apply, discard_options, legal_actions, new_game

TARGETS = {"issue 2": 1000, "issue 13": 5000}  # four-player games per CPU second on one core


PLAY, DISCARD = Phase.PLAY, Phase.DISCARD


def play_random_game(seed: int, players: int, rng: random.Random, legal_discards: bool = False) -> State:
    """One complete game with uniformly random legal choices; returns the final state.

    Each pick is ``rng.choice`` written out (the same draws, so the same games): the benchmark's own calls
    are kept out of the figure as far as they can be.
    """
    state = new_game(players, STANDARD, seed=seed)
    need = STANDARD.discard
    bits = rng.getrandbits
    while True:
        phase = state.phase
        if phase is PLAY or (legal_discards and phase is DISCARD):
            actions = legal_actions(state)
            n = len(actions)
            k = n.bit_length()
            r = bits(k)
            while r >= n:
                r = bits(k)
            state = apply(state, actions[r])
        elif phase is DISCARD:
            for seat in range(players):
                if state.discards[seat] is None:
                    options = discard_options(state.hands[seat], need)
                    n = len(options)
                    k = n.bit_length()
                    r = bits(k)
                    while r >= n:
                        r = bits(k)
                    state = apply(state, Discard(seat, options[r]))
        else:
            return state


def measure(players: int, seconds: float, seed: int, legal_discards: bool = False) -> tuple[int, int, float]:
    """Play games for about ``seconds`` of CPU time; returns (games, events, CPU seconds).

    CPU time of this process, not wall time: on a shared machine the figure is what one core delivers
    while it runs this benchmark, not how often other processes took the core away.
    """
    rng = random.Random(seed)
    games = events = 0
    start = time.process_time()
    deadline = start + seconds
    while True:
        for _ in range(20):
            final = play_random_game(seed * 1_000_003 + games, players, rng, legal_discards)
            events += sum(len(r.history) for r in final.rounds_done)
            games += 1
        now = time.process_time()
        if now >= deadline:
            return games, events, now - start


def play(players: int, games: int, seed: int, legal_discards: bool = False) -> int:
    """Play exactly ``games`` games, the first ones ``measure`` plays; returns the history events they hold."""
    rng = random.Random(seed)
    events = 0
    for g in range(games):
        final = play_random_game(seed * 1_000_003 + g, players, rng, legal_discards)
        events += sum(len(r.history) for r in final.rounds_done)
    return events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="CPU seconds per player count (default 5)")
    parser.add_argument("--seed", type=int, default=1, help="seed of deals and choices (default 1)")
    parser.add_argument("--players", type=int, nargs="*", default=[2, 3, 4], help="player counts (default 2 3 4)")
    parser.add_argument(
        "--discards",
        choices=["options", "legal"],
        default="options",
        help="discard choice from discard_options per seat (default) or from legal_actions",
    )
    parser.add_argument(
        "--games",
        type=int,
        help="play exactly this many games per player count, untimed (to count instructions under valgrind:"
        " the difference between --games N and --games 0, divided by N, is one game's)",
    )
    args = parser.parse_args()
    if args.games is not None:
        for n in args.players:
            print(f"{n} players: {args.games} games, {play(n, args.games, args.seed, args.discards == 'legal')} events")
        return
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})  # one core
    how = "discard_options per seat" if args.discards == "options" else "legal_actions"
    print(f"Random legal games of 23, standard ruleset, one core, CPU time; discards from {how}")
    print(f"{'players':>7} {'games':>7} {'cpu s':>7} {'games/s':>8} {'events/game':>12} {'events/s':>9}")
    rates = {}
    for n in args.players:
        games, events, elapsed = measure(n, args.seconds, args.seed, args.discards == "legal")
        rates[n] = games / elapsed
        print(f"{n:>7} {games:>7} {elapsed:>7.2f} {rates[n]:>8.0f} {events / games:>12.1f} {events / elapsed:>9.0f}")
    if 4 in rates:
        for issue, target in TARGETS.items():
            verdict = "met" if rates[4] >= target else "NOT met"
            print(f"target ({issue}): >= {target:,} four-player games/s: {verdict} ({rates[4] / target:.2f}x)")


if __name__ == "__main__":
    main()
