"""The race: its confidence sequences, its stopping rule on simulated fields of known order, and its purity."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import pytest

from referee.tournament import BettingCSArray, MixtureTests, Race
from referee.tournament.race import BLOCKS_PER_ROUND, PAIRWISE_FROM


def test_confidence_sequence_covers_the_mean_at_every_step() -> None:
    """Time-uniform: over 200 sequences of 400 observations, the share that ever excludes the mean is below alpha."""
    misses = 0
    for seed in range(200):
        rng = random.Random(seed)
        cs = BettingCSArray(1, 0.1)
        for _ in range(400):
            cs.update([0], [1.0 if rng.random() < 0.3 else 0.0])
            if not cs.lower[0] <= 0.3 <= cs.upper[0]:
                misses += 1
                break
    assert misses <= 0.1 * 200
    assert cs.upper[0] - cs.lower[0] < 0.25, "and it narrows"


def test_confidence_sequence_rejects_bad_input() -> None:
    cs = BettingCSArray(2, 0.05)
    with pytest.raises(ValueError):
        cs.update([0], [1.5])
    with pytest.raises(ValueError):
        cs.update([0], [0.5], 1.0)
    with pytest.raises(ValueError):
        BettingCSArray(1, 0)


def test_mixture_tests_keep_their_level_and_find_a_real_gap() -> None:
    """Under "mean exactly 1/2" (the edge of the null) at most alpha of 300 streams of 600 ever reject either way;
    with mean 0.65 every stream finds "above" and none "below"."""
    rng = random.Random(7)
    tests = MixtureTests(300, 0.1)
    for _ in range(600):
        tests.update(range(300), [rng.random() for _ in range(300)])
    assert (tests.above | tests.below).sum() <= 0.1 * 300
    gap = MixtureTests(20, 0.05)
    for _ in range(300):
        gap.update(range(20), [1.0 if rng.random() < 0.65 else 0.0 for _ in range(20)])
    assert gap.above.all() and not gap.below.any()
    with pytest.raises(ValueError):
        gap.update([0], [1.5])


def simulate(
    n: int,
    top: int,
    seed: int,
    *,
    gap: float = 3.0,
    noise: float = 2.9,
    max_games: int = 10**5,
    statistic: str = "difference",
    levels: list[float] | None = None,
    tie_margin: float = 0.0,
) -> tuple[Race, list[str]]:
    """A field of in-process entrants of known order, ``gap`` apart (or at ``levels``), shuffled: block total =
    -strength + normal deal noise (lower is better)."""
    rng = random.Random(seed)
    levels = [gap * i for i in range(n)] if levels is None else list(levels)
    rng.shuffle(levels)
    strength = {f"e{i:02d}": level for i, level in enumerate(levels)}
    race = Race(
        list(strength),
        table_size=4,
        seed=seed,
        top=top,
        confidence=0.95,
        max_games=max_games,
        pair_statistic=statistic,
        tie_margin=tie_margin,
    )
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


@pytest.mark.parametrize("statistic", ["sign", "difference"])
def test_both_head_to_head_statistics_settle_the_right_order(statistic: str) -> None:
    right = 0
    for seed in range(20):
        race, truth = simulate(8, 3, seed, gap=2.0, statistic=statistic)
        outcome = race.outcome()
        right += outcome.settled and list(outcome.order[:3]) == truth
    assert right >= 19


def test_a_large_field_settles_through_both_phases() -> None:
    """More than PAIRWISE_FROM entrants: random passes with the entrants' own sequences first, then head to head."""
    for seed in range(3):
        race, truth = simulate(PAIRWISE_FROM + 8, 2, seed, gap=1.0)
        outcome = race.outcome()
        assert race.pool is not None and len(race.pool) <= PAIRWISE_FROM
        assert outcome.settled and list(outcome.order[:2]) == truth


def test_every_survivor_plays_its_counted_blocks_every_round_of_the_field_phase() -> None:
    n = PAIRWISE_FROM + 9
    race = Race([f"e{i}" for i in range(n)], table_size=4, seed=1, top=2, confidence=0.95, max_games=10**6)
    rng = random.Random(3)
    for _ in range(5):
        tables = race.next_tables()
        assert tables is not None and race.pool is None
        seen = [e for t in tables for e in t]
        assert set(race.survivors) <= set(seen) and all(len(set(t)) == len(t) == 4 for t in tables)
        race.record([{e: rng.random() for e in t} for t in tables])
        assert all(race.cs.t[race.names.index(s)] == race.rounds * BLOCKS_PER_ROUND for s in race.survivors)


def test_head_to_head_tables_each_hold_an_undecided_pair_that_matters() -> None:
    """Seats go where the order is not settled: every table of a pairwise round holds two survivors not yet ordered,
    one of them among the estimated top K; every survivor outside it plays every pass."""
    rng = random.Random(5)
    strength = {f"e{i:02d}": 3.0 * i for i in range(14)}
    race = Race(list(strength), table_size=4, seed=5, top=3, confidence=0.95, max_games=10**6)
    while (tables := race.next_tables()) is not None:
        best = race.outcome().order[:3]
        for t in tables:
            alive = [e for e in t if e in race.survivors]
            assert any(
                (a in best or b in best) and not race.ahead(a, b) and not race.ahead(b, a)
                for i, a in enumerate(alive)
                for b in alive[i + 1 :]
            ), t
        for s in race.survivors[3:]:
            if s not in best:
                assert sum(s in t for t in tables) >= BLOCKS_PER_ROUND
        race.record([{e: -strength[e] + rng.gauss(0, 2.9) for e in t} for t in tables])
    assert race.settled and race.survivors == ["e13", "e12", "e11"]
    assert all(race.ahead("e13", e) for e in strength if e != "e13"), "ahead is closed transitively"


def test_a_bad_head_to_head_statistic_is_refused() -> None:
    with pytest.raises(ValueError, match="pair_statistic"):
        Race(["a", "b", "c"], table_size=2, seed=1, top=1, confidence=0.95, max_games=10, pair_statistic="mean")


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


def right_up_to(order: Sequence[str], strength: Mapping[str, float], top: int, margin: float) -> bool:
    """Whether no entrant of the reported top ``top`` is weaker by ``margin`` or more than one reported below it."""
    return all(strength[order[i]] > max(strength[e] for e in order[i + 1 :]) - margin for i in range(top))


#: A field with near-ties, as block totals (4 games, per-game noise sd 1): the top four hold a pair 0.05 points per
#: game apart and, at the K/K+1 boundary, one 0.025 apart; 0.75 (1.5 margins of 0.5) separates the second and third.
#: The rest are spaced 2 points per game apart.
NEAR_TIES = [4 * x for x in (10.0, 9.95, 9.2, 9.175, *[8.0 - 2 * i for i in range(6)])]
NOISE = 4.0  # sd of a block total: 1 point per game
MARGIN = 0.5  # points per game


def test_a_tie_margin_settles_near_ties_and_keeps_its_guarantee() -> None:
    """With a tie margin E of 0.5 points per game on a field of near-ties: every race settles, reports its
    within-margin pairs (never proven ahead), and no reported pair is out of order by E or more (the second and
    third, 1.5 E apart, are never swapped) on at least 95% of 60 seeds."""
    right = 0
    for seed in range(60):
        race, _ = simulate(len(NEAR_TIES), 3, seed, levels=NEAR_TIES, noise=NOISE, tie_margin=MARGIN)
        outcome = race.outcome()
        levels = list(NEAR_TIES)
        random.Random(seed).shuffle(levels)  # the simulation's shuffle: each name's strength
        strength = {f"e{i:02d}": level / 4 for i, level in enumerate(levels)}
        assert outcome.settled and "tie margin of 0.5 points per game" in (outcome.reason or "")
        right += right_up_to(outcome.order, strength, 3, MARGIN)
        for a, b in outcome.within_margin:
            assert a in outcome.order[:3] and outcome.order.index(a) < outcome.order.index(b)
            assert not race.ahead(a, b)
        assert outcome.to_dict()["tie_margin"] == MARGIN
        assert outcome.to_dict()["within_margin"] == [list(p) for p in outcome.within_margin]
    assert right >= 57, "the guarantee: at least 95% right up to the margin"


def test_a_tie_margin_stops_long_before_the_exact_race() -> None:
    """On the near-tie field the exact race does not settle within 20,000 games; with the margin it settles with
    within-margin pairs, in far fewer games."""
    exact, _ = simulate(len(NEAR_TIES), 3, 3, levels=NEAR_TIES, noise=NOISE, max_games=20_000)
    margin, _ = simulate(len(NEAR_TIES), 3, 3, levels=NEAR_TIES, noise=NOISE, tie_margin=MARGIN, max_games=20_000)
    assert not exact.outcome().settled and exact.outcome().within_margin == ()
    assert margin.outcome().settled and margin.outcome().within_margin
    assert margin.games * 4 < exact.games


def test_the_margin_guarantee_holds_for_gaps_just_above_it() -> None:
    """Entrants spaced 1.5 margins apart (pairs a margin race may not swap): on at least 95% of 60 seeds the settled
    top 2 is exactly right."""
    levels = [4 * 1.5 * MARGIN * i for i in range(7)]
    right = 0
    for seed in range(60):
        race, truth = simulate(7, 2, seed, levels=levels, noise=NOISE, tie_margin=MARGIN)
        outcome = race.outcome()
        assert outcome.settled
        right += list(outcome.order[:2]) == truth
    assert right >= 57


def test_a_margin_race_is_a_pure_function_of_results_and_seed() -> None:
    one, _ = simulate(10, 3, 4, levels=NEAR_TIES, noise=NOISE, tie_margin=MARGIN)
    two, _ = simulate(10, 3, 4, levels=NEAR_TIES, noise=NOISE, tie_margin=MARGIN)
    assert one.outcome() == two.outcome() and one.games == two.games


def test_a_bad_tie_margin_is_refused() -> None:
    for bad in (-0.1, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="tie_margin"):
            Race(["a", "b", "c"], table_size=2, seed=1, top=1, confidence=0.95, max_games=10, tie_margin=bad)
