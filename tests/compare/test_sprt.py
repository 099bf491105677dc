"""The sequential test on simulated blocks of known difference: its error rates over many seeded runs, its
bounds, its interval, and its edge cases (no variance, bad parameters)."""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable, Iterator

import pytest

from referee.compare import BlockStats, Design, DesignError, fixed_sample_size, sequential_verdict
from referee.compare.sprt import chi2_quantile

RUNS = 1500
MAX_BLOCKS = 3000


def normal_blocks(rng: random.Random, mean: float, sd: float) -> Iterator[float]:
    while True:
        yield rng.gauss(mean, sd)


def game_like_blocks(rng: random.Random, mean: float, sd: float) -> Iterator[float]:
    """Blocks like the real ones: the mean of four rotations' integer score differences (a discrete, slightly
    skewed distribution), shifted to the wanted mean."""
    while True:
        diffs = [round(rng.gauss(0, sd * 2) + rng.expovariate(0.5)) - 2 for _ in range(4)]
        yield mean + sum(diffs) / 4


def share_stronger(
    make: Callable[[random.Random, float, float], Iterator[float]], mean: float, sd: float, seed: int
) -> tuple[float, float]:
    """Over RUNS seeded tests: the share that said "stronger", and the mean number of blocks used."""
    rng = random.Random(seed)
    design = Design()
    stronger = blocks = 0
    for _ in range(RUNS):
        verdict, stats = sequential_verdict(make(rng, mean, sd), design, MAX_BLOCKS)
        assert verdict != "inconclusive"
        stronger += verdict == "stronger"
        blocks += stats.n
    return stronger / RUNS, blocks / RUNS


def tolerance(p: float) -> float:
    """Three binomial standard errors of a share p over RUNS runs."""
    return 3 * math.sqrt(p * (1 - p) / RUNS)


@pytest.mark.parametrize("make", [normal_blocks, game_like_blocks])
@pytest.mark.parametrize("sd", [1.0, 3.0])
def test_with_no_difference_stronger_comes_out_in_at_most_alpha_of_the_runs(make, sd) -> None:  # type: ignore[no-untyped-def]
    alpha = Design().alpha
    share, _ = share_stronger(make, 0.0, sd, seed=11)
    assert share <= alpha + tolerance(alpha)


@pytest.mark.parametrize("make", [normal_blocks, game_like_blocks])
@pytest.mark.parametrize("sd", [1.0, 3.0])
def test_at_the_alternative_stronger_comes_out_in_at_least_1_minus_beta_of_the_runs(make, sd) -> None:  # type: ignore[no-untyped-def]
    beta = Design().beta
    share, _ = share_stronger(make, Design().d1, sd, seed=12)
    assert share >= 1 - beta - tolerance(beta)


def test_a_large_difference_is_decided_as_soon_as_verdicts_are_allowed() -> None:
    rng = random.Random(3)
    verdict, stats = sequential_verdict(normal_blocks(rng, 18.0, 5.7), Design(), MAX_BLOCKS)
    assert (verdict, stats.n) == ("stronger", Design().min_blocks)
    verdict, stats = sequential_verdict(normal_blocks(rng, -18.0, 5.7), Design(), MAX_BLOCKS)
    assert (verdict, stats.n) == ("not stronger", Design().min_blocks)


def test_it_uses_fewer_blocks_on_average_than_a_fixed_size_test_of_the_same_power() -> None:
    sd = 3.0
    fixed = fixed_sample_size(Design(), sd)
    assert fixed == math.ceil((2 * 1.6448536 * sd) ** 2)
    _, under_h0 = share_stronger(normal_blocks, 0.0, sd, seed=13)
    _, under_h1 = share_stronger(normal_blocks, 1.0, sd, seed=14)
    assert under_h0 < fixed and under_h1 < fixed


def test_the_budget_ends_an_undecided_test_as_inconclusive() -> None:
    verdict, stats = sequential_verdict(normal_blocks(random.Random(5), 0.5, 3.0), Design(), 10)
    assert (verdict, stats.n) == ("inconclusive", 10)


def test_identical_blocks_are_not_stronger_and_the_llr_stays_finite() -> None:
    stats = BlockStats()
    for _ in range(8):
        stats.add(0.0)
    assert math.isfinite(stats.llr(Design())) and stats.llr(Design()) < Design().lower
    assert stats.verdict(Design()) == "not stronger"
    assert stats.ci95() == (0.0, 0.0)


def test_no_verdict_before_min_blocks_even_far_beyond_a_bound() -> None:
    stats = BlockStats()
    for x in (30.0, 31.0, 29.0):
        stats.add(x)
    assert stats.llr(Design()) > Design().upper
    assert stats.verdict(Design()) is None


def test_statistics_interval_and_bounds() -> None:
    xs = [1.5, -0.25, 3.0, 2.0, 0.5]
    stats = BlockStats()
    for x in xs:
        stats.add(x)
    assert stats.n == 5 and stats.mean == pytest.approx(statistics.mean(xs))
    assert stats.variance == pytest.approx(statistics.pvariance(xs))
    half = 2.776 * statistics.stdev(xs) / math.sqrt(5)
    low, high = stats.ci95() or (0, 0)
    assert (low, high) == (pytest.approx(stats.mean - half), pytest.approx(stats.mean + half))
    d = Design(alpha=0.05, beta=0.1)
    assert d.lower == pytest.approx(math.log(0.1 / 0.95)) and d.upper == pytest.approx(math.log(0.9 / 0.05))
    var = sum((x - stats.mean) ** 2 for x in xs) / chi2_quantile(4, 0.3)
    assert stats.llr(d) == pytest.approx(5 * (stats.mean - 0.5) * 1.0 / var)
    assert BlockStats().ci95() is None and BlockStats().llr(d) == 0.0


@pytest.mark.parametrize(
    ("df", "exact", "rel"), [(3, 1.4237, 0.015), (7, 4.6713, 0.005), (30, 25.5078, 0.005), (100, 92.1289, 0.005)]
)
def test_chi_square_quantile_is_near_the_exact_one(df: int, exact: float, rel: float) -> None:
    assert chi2_quantile(df, 0.3) == pytest.approx(exact, rel=rel)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"alpha": 0.0}, "--alpha must be between 0 and 0.5"),
        ({"beta": 0.5}, "--beta must be between 0 and 0.5"),
        ({"d0": 1.0, "d1": 1.0}, "--d1 must be larger than --d0"),
        ({"d1": math.nan}, "--d1 must be larger than --d0"),
        ({"min_blocks": 1}, "at least 2 blocks"),
    ],
)
def test_impossible_designs_are_refused_with_the_option_named(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(DesignError, match=message):
        Design(**kwargs)  # type: ignore[arg-type]


def test_a_block_difference_must_be_finite() -> None:
    with pytest.raises(ValueError, match="finite"):
        BlockStats().add(math.inf)
