"""The race: its confidence sequences, its stopping rule on simulated fields of known order, and its purity."""

from __future__ import annotations

import random

import pytest

from referee.tournament import BettingCS, Race
from referee.tournament.race import BLOCKS_PER_ROUND


def test_confidence_sequence_covers_the_mean_at_every_step() -> None:
    """Time-uniform: over 200 sequences of 400 observations, the share that ever excludes the mean is below alpha."""
    misses = 0
    for seed in range(200):
        rng = random.Random(seed)
        cs = BettingCS(0.1)
        for _ in range(400):
            cs.update(1.0 if rng.random() < 0.3 else 0.0)
            if not cs.lower <= 0.3 <= cs.upper:
                misses += 1
                break
    assert misses <= 0.1 * 200
    assert cs.upper - cs.lower < 0.25, "and it narrows"


def test_confidence_sequence_rejects_bad_input() -> None:
    cs = BettingCS(0.05)
    with pytest.raises(ValueError):
        cs.update(1.5)
    with pytest.raises(ValueError):
        BettingCS(0)


def simulate(n: int, top: int, seed: int, *, gap: float = 3.0, noise: float = 2.9, max_games: int = 10**5):
    """A field of in-process entrants of known order, ``gap`` apart, shuffled: block total = -strength + normal deal
    noise (lower is better)."""
    rng = random.Random(seed)
    levels = [gap * i for i in range(n)]
    rng.shuffle(levels)
    strength = {f"e{i:02d}": level for i, level in enumerate(levels)}
    race = Race(list(strength), table_size=4, seed=seed, top=top, confidence=0.95, max_games=max_games)
    while (tables := race.next_tables()) is not None:
        assert race.next_tables() == tables, "asking twice gives the same round"
        race.record([{e: -strength[e] + rng.gauss(0, noise) for e in t} for t in tables])
    truth = sorted(strength, key=lambda e: -strength[e])[:top]
    return race, truth


def test_race_settles_the_right_top_k_on_simulated_fields() -> None:
    right = settled = 0
    for seed in range(40):
        race, truth = simulate(10, 3, seed)
        outcome = race.outcome()
        settled += outcome.settled
        right += outcome.settled and list(outcome.order[:3]) == truth
        assert outcome.reason is not None and outcome.games == race.games
        assert outcome.games % 4 == 0
    assert settled == 40
    assert right >= 38, "at least 95% exactly right (the guarantee is 95%)"


def test_every_survivor_plays_its_counted_blocks_every_round() -> None:
    race = Race([f"e{i}" for i in range(11)], table_size=4, seed=1, top=2, confidence=0.95, max_games=10**5)
    rng = random.Random(3)
    for _ in range(5):
        tables = race.next_tables()
        assert tables is not None
        seen = [e for t in tables for e in t]
        assert set(race.survivors) <= set(seen) and all(len(set(t)) == len(t) == 4 for t in tables)
        race.record([{e: rng.random() for e in t} for t in tables])
        assert all(race.cs[s].t == race.rounds * BLOCKS_PER_ROUND for s in race.survivors)


def test_race_stops_at_max_games_with_a_reason() -> None:
    race, _ = simulate(12, 3, 1, gap=0.0, max_games=200)
    outcome = race.outcome()
    assert not outcome.settled and outcome.games <= 200
    assert outcome.reason is not None and "--max-games 200" in outcome.reason
    assert outcome.to_dict()["top"] == 3 and outcome.to_dict()["settled"] is False


def test_race_is_a_pure_function_of_results_and_seed() -> None:
    one, _ = simulate(9, 2, 5)
    two, _ = simulate(9, 2, 5)
    assert one.outcome() == two.outcome()
    other = Race([f"e{i:02d}" for i in range(9)], table_size=4, seed=6, top=2, confidence=0.95, max_games=10**5)
    first = Race([f"e{i:02d}" for i in range(9)], table_size=4, seed=5, top=2, confidence=0.95, max_games=10**5)
    assert other.next_round() != first.next_round(), "the seed shapes the tables and the deals"
