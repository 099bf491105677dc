"""Simulated blocks of a known mean difference, to measure the sequential test's error rates and sample sizes.

Used by the tests and ``bench/bench_compare.py``: run the test many times on blocks drawn with the mean at d0
(how often does it wrongly say "stronger"?) and at d1 (how often does it rightly say so?), seeded, no IO.
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

from referee.compare.sprt import Design, sequential_verdict

__all__ = ["BlockSource", "Rates", "game_like_blocks", "normal_blocks", "rates", "resampled_blocks"]

#: Draws an endless stream of block differences with the given mean from a random generator.
BlockSource = Callable[[random.Random, float], Iterator[float]]


def normal_blocks(sd: float) -> BlockSource:
    """Normal block differences of standard deviation ``sd``."""

    def draw(rng: random.Random, mean: float) -> Iterator[float]:
        while True:
            yield rng.gauss(mean, sd)

    return draw


def game_like_blocks(sd: float, table_size: int = 4, *, tail: int = 1) -> BlockSource:
    """Blocks like real ones: the mean over ``table_size`` rotations of an integer score difference with a long
    tail on one side (a normal part plus an exponential one, rounded; ``tail`` 1 on the right, -1 on the left),
    re-centred; ``sd`` is roughly the standard deviation of a block (skewness about 0.36 times ``tail``)."""
    scale = sd * table_size**0.5 / 2**0.5

    def draw(rng: random.Random, mean: float) -> Iterator[float]:
        while True:
            diffs = [round(rng.gauss(0, scale) + rng.expovariate(1 / scale)) - scale for _ in range(table_size)]
            yield mean + tail * sum(diffs) / table_size

    return draw


def resampled_blocks(observed: Sequence[float]) -> BlockSource:
    """Blocks drawn with replacement from ``observed`` (e.g. a real comparison's), shifted to the wanted mean."""
    if len(observed) < 2:
        raise ValueError("resampling needs at least 2 observed blocks")
    centre = sum(observed) / len(observed)
    values = [x - centre for x in observed]

    def draw(rng: random.Random, mean: float) -> Iterator[float]:
        while True:
            yield mean + rng.choice(values)

    return draw


@dataclass(frozen=True, slots=True)
class Rates:
    """Over ``runs`` simulated tests: the shares of each verdict, and the mean and standard deviation of the
    number of blocks used."""

    runs: int
    stronger: float
    inconclusive: float
    mean_blocks: float
    sd_blocks: float


def rates(source: BlockSource, mean: float, design: Design, *, runs: int, seed: int, max_blocks: int = 5000) -> Rates:
    """Run the sequential test ``runs`` times on blocks of ``source`` with the given true mean difference."""
    rng = random.Random(seed)
    stronger = inconclusive = 0
    used = []
    for _ in range(runs):
        verdict, stats = sequential_verdict(source(rng, mean), design, max_blocks)
        stronger += verdict == "stronger"
        inconclusive += verdict == "inconclusive"
        used.append(stats.n)
    spread = statistics.stdev(used) if runs > 1 else 0.0
    return Rates(runs, stronger / runs, inconclusive / runs, statistics.fmean(used), spread)
