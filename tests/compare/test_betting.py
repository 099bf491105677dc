"""The default test of ``referee compare``: betting tests on a bounded gain keep their level, reach their power
within the printed cap, and give a confidence sequence, whatever the shape of the blocks (issue 24, item 4)."""

from __future__ import annotations

import random

import numpy as np
import pytest

from referee.compare import BOUNDED_SHAPES, BettingTests, BoundedTests, Design, DesignError, bounded_blocks
from referee.compare.simulate import betting_rates

DESIGN = Design(d0=0.0, d1=0.05)
RUNS = 120


@pytest.mark.parametrize("shape", BOUNDED_SHAPES)
def test_false_stronger_at_most_alpha_and_power_within_the_cap(shape: str) -> None:
    """Normal, heavy-tailed, skewed both ways and sparse (near-deterministic) gains: at the null's edge (gain d0)
    "stronger" comes out in at most alpha of the runs, and at d1 in at least 1 - beta of them before the cap sized
    from power stops the test (binomial slack of two standard errors over RUNS runs)."""
    source = bounded_blocks(shape)
    slack = 2 * (0.05 * 0.95 / RUNS) ** 0.5
    null = betting_rates(source, DESIGN.d0, DESIGN, runs=RUNS, seed=1)
    assert null.stronger <= DESIGN.alpha + slack, null
    power = betting_rates(source, DESIGN.d1, DESIGN, runs=RUNS, seed=2)
    assert power.stronger >= 1 - DESIGN.beta - slack, power


def test_identical_blocks_never_say_stronger_and_a_rare_large_gain_counts() -> None:
    """Near-deterministic bots: identical blocks leave the evidence for "stronger" where it started (no variance
    floor to divide by) and only slowly build the evidence that the gain is below d1 (after 100 blocks, not yet: a
    rare large gain may still come); a gain of +1 on one block in ten, otherwise 0, is found."""
    test = BoundedTests(DESIGN, 1.0)
    for _ in range(100):
        test.add_one(0.0)
    assert test.evidence()[0] == pytest.approx(0.0, abs=1e-9) and test.verdict() is None
    while test.verdict() is None:
        test.add_one(0.0)
    assert test.verdict() == "not stronger" and 100 < int(test.n[0]) < 300
    sparse = BoundedTests(DESIGN, 1.0)
    rng = random.Random(3)
    while sparse.verdict() is None and int(sparse.n[0]) < 2000:
        sparse.add_one(1.0 if rng.random() < 0.1 else 0.0)
    assert sparse.verdict() == "stronger"
    low, high = sparse.interval()
    assert DESIGN.d0 <= low < 0.1 < high, "the interval agrees with the verdict"


def test_the_tests_confidence_sequence_holds_at_every_stop_and_agrees_with_the_verdict() -> None:
    """Over 40 streams of 200 gains (uniform, mean 0.1), the share whose sequence ever leaves out the mean stays below
    alpha + beta; and whenever the test says "stronger" the sequence's lower end is at d0 or above."""
    misses = 0
    for seed in range(40):
        rng = np.random.default_rng(seed)
        test = BoundedTests(DESIGN, 1.0)
        for g in rng.uniform(-0.7, 0.9, 200):
            test.add_one(float(g))
            low, high = test.interval()
            if test.verdict() == "stronger":
                assert low >= DESIGN.d0
            if not low <= 0.1 <= high:
                misses += 1
                break
    assert misses <= (DESIGN.alpha + DESIGN.beta) * 40


def test_bad_observations_and_designs_are_refused() -> None:
    with pytest.raises(ValueError, match=r"\[-1, 1\]"):
        BettingTests(0.05).add(np.array([1.5]))
    with pytest.raises(ValueError, match="lies in"):
        BoundedTests(DESIGN, 1.0).add_one(2.0)
    with pytest.raises(DesignError, match="--d1 must lie between -1 and 1"):
        BoundedTests(Design(d0=0.0, d1=1.5), 1.0)
    with pytest.raises(ValueError, match="unknown shape"):
        bounded_blocks("lumpy")
