"""Simulated blocks of a known mean difference, to measure the sequential test's error rates and sample sizes.

Used by the tests and ``bench/bench_compare.py``: run the test many times on blocks drawn with the mean at d0
(how often does it wrongly say "stronger"?) and at d1 (how often does it rightly say so?), seeded, no IO.
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from referee.compare.betting import BoundedTests
from referee.compare.sprt import Design, sequential_verdict

__all__ = [
    "BOUNDED_SHAPES",
    "BlockSource",
    "BoundedSource",
    "Rates",
    "betting_rates",
    "bounded_blocks",
    "game_like_blocks",
    "normal_blocks",
    "rates",
    "resampled_blocks",
    "skewed_blocks",
    "sparse_blocks",
]

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


def skewed_blocks(sd: float, *, tail: int = 1, rare: float = 0.1) -> BlockSource:
    """Right-skewed block differences (``tail`` -1: left-skewed) of standard deviation ``sd``: usually a little below
    the mean, and on a share ``rare`` of the blocks far above it (NEW now and then much better); the rare jump carries
    nine tenths of the variance (skewness about 2.5 at ``rare`` 0.1)."""
    jump = sd * math.sqrt(0.9 / (rare * (1 - rare)))
    core = sd * math.sqrt(0.1)

    def draw(rng: random.Random, mean: float) -> Iterator[float]:
        while True:
            yield mean + rng.gauss(0, core) + tail * ((jump if rng.random() < rare else 0.0) - rare * jump)

    return draw


def sparse_blocks(sd: float, *, identical: float = 0.9) -> BlockSource:
    """Mostly identical blocks: a difference of exactly 0 on a share ``identical`` of them (NEW plays OLD's game),
    and on the others the whole mean gain, ``mean / (1 - identical)``, with normal noise of standard deviation
    ``sd``."""
    rest = 1 - identical

    def draw(rng: random.Random, mean: float) -> Iterator[float]:
        while True:
            yield 0.0 if rng.random() < identical else mean / rest + rng.gauss(0, sd)

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


#: Draws ``size`` gains in [-1, 1] with the given mean from a numpy generator.
BoundedSource = Callable[[np.random.Generator, float, int], npt.NDArray[np.float64]]


def bounded_blocks(shape: str) -> BoundedSource:
    """Gains in [-1, 1] (scale them by the metric's bound) of one of the shapes a betting test must hold its level
    on, with the wanted mean (up to ``MAX_MEAN`` either way):

    - ``normal``: near-normal, standard deviation 0.35, its tails beyond the bound redrawn (symmetric, so the mean
      stays);
    - ``heavy``: a narrow core (standard deviation 0.05) with one block in ten at ±1;
    - ``skew-left``: usually a little better, now and then the worst (-1 with probability 0.08): NEW collapses;
    - ``skew-right``: usually a little worse, now and then the best (+1 with probability 0.08);
    - ``sparse``: 0 on most blocks (near-deterministic bots that seldom differ), ±1 on 6 in a hundred.

    Raises ``ValueError`` for an unknown shape, or (when drawing) a mean beyond ``MAX_MEAN``."""
    if shape not in BOUNDED_SHAPES:
        raise ValueError(f"unknown shape {shape!r}; use one of {', '.join(BOUNDED_SHAPES)}")

    def draw(rng: np.random.Generator, mean: float, size: int) -> npt.NDArray[np.float64]:
        if not abs(mean) <= MAX_MEAN:
            raise ValueError(f"a mean of {mean} is beyond what the shape {shape!r} can have")
        u = rng.random(size)
        if shape == "normal":
            x = rng.normal(mean, 0.35, size)
            while (bad := np.abs(x - mean) > 1 - abs(mean)).any():
                x[bad] = rng.normal(mean, 0.35, int(bad.sum()))
        elif shape == "heavy":
            spike = np.where(rng.random(size) < (1 + 10 * mean) / 2, 1.0, -1.0)
            x = np.where(u < 0.1, spike, np.clip(rng.normal(0, 0.05, size), -1, 1))
        elif shape == "skew-left":
            x = np.where(u < 0.08, -1.0, (mean + 0.08) / 0.92)
        elif shape == "skew-right":
            x = np.where(u < 0.08, 1.0, (mean - 0.08) / 0.92)
        else:
            x = np.where(u < (0.06 + mean) / 2, 1.0, np.where(u < 0.06, -1.0, 0.0))
        out: npt.NDArray[np.float64] = x.astype(float)
        return out

    return draw


#: The shapes of ``bounded_blocks``.
BOUNDED_SHAPES = ("normal", "heavy", "skew-left", "skew-right", "sparse")
#: The largest mean, either way, every shape of ``bounded_blocks`` can have (heavy: 0.1).
MAX_MEAN = 0.06


def betting_rates(
    source: BoundedSource,
    mean: float,
    design: Design,
    *,
    runs: int,
    seed: int,
    max_blocks: int | None = None,
    limit: int = 200_000,
) -> Rates:
    """The betting test of ``referee compare`` (gains in [-1, 1]: matchpoints) run ``runs`` times at once on gains
    of ``source`` with the given true mean, each run stopped at its verdict or at its cap: ``max_blocks``, or None
    for the cap sized from power (as without ``--max-games``). ``limit`` bounds the blocks of any run."""
    rng = np.random.default_rng(seed)
    tests = BoundedTests(design, 1.0, runs, sequence=False)
    open_ = np.ones(runs, dtype=bool)
    verdict = np.zeros(runs, dtype=np.int8)
    while open_.any() and int(tests.n.max()) < limit:
        tests.add(source(rng, mean, runs), open_)
        decided = open_ & (tests.verdicts() != 0)
        verdict[decided] = tests.verdicts()[decided]
        capped = open_ & ~decided & (tests.n >= (tests.caps() if max_blocks is None else max_blocks))
        open_ &= ~(decided | capped)
    used = tests.n.astype(float)
    return Rates(
        runs,
        float((verdict == 1).mean()),
        float((verdict == 0).mean()),
        float(used.mean()),
        float(used.std(ddof=1)) if runs > 1 else 0.0,
    )


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
    """Run the GSPRT (``--metric points``) ``runs`` times on blocks of ``source`` with the given true mean
    difference."""
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
