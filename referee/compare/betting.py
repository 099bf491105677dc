"""The default test of ``referee compare``: sequential betting tests on a bounded gain, valid without normality.

Pure arithmetic, no IO. A block's gain g (NEW's result minus OLD's: matchpoints, in [-1, 1], or ranks, in
[-(k-1), k-1]) is bounded by the rules, so no clip changes what is tested. Two one-sided tests run after every
block on the mean gain μ:

- "stronger" rejects H0: μ ≤ d0 at level alpha. It bets on y = (g - d0)/(B + |d0|), in [-1, 1] (B the bound): under H0
  every conditional mean of y is at most 0, so for any bet λ in [0, 1) the wealth Π(1 + λ y) is a nonnegative
  supermartingale starting at 1, and so is a mixture of such wealths. By Ville's inequality (1939) the mixture ever
  reaching 1/alpha has probability at most alpha, however long the test runs and whenever it stops.
- "not stronger" rejects H1: μ ≥ d1 at level beta, the same way on y = (d1 - g)/(B + |d1|).

The mixture is uniform over the race's 19 bets (``confseq.MIXTURE_BETS``, 0.9 down to 0.0018), so it adapts to the
unknown gap and spread: testing by betting (Shafer & Vovk 2019; Waudby-Smith & Ramdas, JRSS-B 2023; Ramdas,
Grünwald, Vovk & Shafer, Statistical Science 2023). It needs no variance estimate, no minimum number of blocks and no
floor: identical blocks leave the wealth of "stronger" where it is, and a rare large gain counts at its true size.

The interval shown is the tests' own confidence sequence for μ (``TestSequence``: the same tests at every candidate
mean, so it holds at every block at once, also at the data-dependent stop, and agrees with the verdict). The cap,
when ``--max-games`` is not given, is sized from power: ``CAP_FACTOR`` times the
blocks a fixed-size one-sided z-test needs for errors alpha and beta at d1, at the spread of the gains so far (a
prior pseudo-observation of the largest variance the bound allows, with weight ``PRIOR_WEIGHT``, keeps it large
until the blocks say otherwise). Measured on simulated gains of many shapes (normal, heavy-tailed, skewed both
ways, sparse, resampled real blocks: tests/compare/test_betting.py, bench/bench_compare.py), the mixture reaches its
bound within that cap in at least 1 - beta of the runs at μ = d1.
"""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

from referee.compare.errors import DesignError
from referee.compare.sprt import Design, Verdict
from referee.tournament.confseq import MIXTURE_BETS

__all__ = ["CAP_FACTOR", "PRIOR_WEIGHT", "BettingTests", "BoundedTests", "TestSequence", "fixed_blocks"]

Floats = npt.NDArray[np.float64]
Bools = npt.NDArray[np.bool_]

#: The sized cap is this many times the blocks of a fixed-size z-test of the same errors.
CAP_FACTOR = 2.5
#: Pseudo-observations of the largest variance (the bound squared) in the spread the cap is sized from.
PRIOR_WEIGHT = 2.0


class BettingTests:
    """For each of ``size`` streams, the one-sided sequential test of "every conditional mean of y is at most 0",
    y in [-1, 1]: a uniform mixture of the betting wealths Π(1 + λ y) over ``MIXTURE_BETS``, rejected once the
    mixture reaches 1/``level``. Raises ``DesignError`` for a level outside (0, 1)."""

    def __init__(self, level: float, size: int = 1) -> None:
        if not 0 < level < 1:
            raise DesignError(f"a test's level must be between 0 and 1, got {level}")
        self.level = level
        self._log = np.zeros((size, len(MIXTURE_BETS)))
        self.threshold = math.log(1 / level)
        self.rejected = np.zeros(size, dtype=bool)

    def add(self, y: Floats, where: Bools | None = None) -> None:
        """One observation per stream (of the streams ``where`` when given), in [-1, 1]; raises ``ValueError``
        outside."""
        if not ((y >= -1.0 - 1e-12) & (y <= 1.0 + 1e-12)).all():
            raise ValueError(f"a betting observation must lie in [-1, 1], got {y[(y < -1) | (y > 1)][0]}")
        step = np.log1p(np.outer(np.clip(y, -1.0, 1.0), MIXTURE_BETS))
        if where is None:
            self._log += step
        else:
            self._log[where] += step[where]
        self.rejected |= self.evidence >= self.threshold

    @property
    def evidence(self) -> Floats:
        """The log of each mixture's wealth (0 at the start; the test rejects at ``threshold``)."""
        top = self._log.max(axis=1)
        wealth: Floats = top + np.log(np.exp(self._log - top[:, None]).sum(axis=1)) - math.log(len(MIXTURE_BETS))
        return wealth


def fixed_blocks(design: Design, sd: Floats | float) -> Floats:
    """Blocks a fixed-size one-sided z-test needs for errors alpha (at d0) and beta (at d1) at spread ``sd``."""
    z = NormalDist().inv_cdf
    blocks: Floats = ((z(1 - design.alpha) + z(1 - design.beta)) * np.asarray(sd) / (design.d1 - design.d0)) ** 2
    return blocks


class BoundedTests:
    """For each of ``size`` streams of gains bounded by ``bound``: the two tests of the module's docstring, the
    running mean and spread, and the cap sized from power; with ``sequence`` (one stream: ``referee compare``'s),
    the tests' confidence sequence (``TestSequence``). Raises ``DesignError`` when d0 or d1 lies outside
    (-bound, bound)."""

    def __init__(self, design: Design, bound: float, size: int = 1, *, sequence: bool = True) -> None:
        for name, value in (("--d0", design.d0), ("--d1", design.d1)):
            if not -bound < value < bound:
                raise DesignError(f"{name} must lie between {-bound:g} and {bound:g} for this metric, got {value:g}")
        self.design = design
        self.bound = bound
        self.stronger = BettingTests(design.alpha, size)
        self.weaker = BettingTests(design.beta, size)
        self.sequence = TestSequence(design, bound) if sequence and size == 1 else None
        self.n = np.zeros(size, dtype=np.int64)
        self.mean = np.zeros(size)
        self._m2 = np.zeros(size)

    def add(self, gains: Floats, where: Bools | None = None) -> None:
        """One gain per stream (of the streams ``where``); raises ``ValueError`` for a gain outside [-bound, bound]
        (not a block of this metric)."""
        b, d = self.bound, self.design
        if not (np.isfinite(gains) & (np.abs(gains) <= b + 1e-9)).all():
            raise ValueError(f"a gain of this metric lies in [{-b:g}, {b:g}], got {gains}")
        self.stronger.add((gains - d.d0) / (b + abs(d.d0)), where)
        self.weaker.add((d.d1 - gains) / (b + abs(d.d1)), where)
        if self.sequence is not None:
            self.sequence.add(float(gains[0]))
        on = np.ones(len(self.n), dtype=bool) if where is None else where
        self.n += on
        delta = np.where(on, gains - self.mean, 0.0)
        self.mean += delta / np.maximum(self.n, 1)
        self._m2 += delta * np.where(on, gains - self.mean, 0.0)

    def add_one(self, gain: float) -> None:
        """One gain of a single stream (``referee compare``'s); raises as ``add``."""
        self.add(np.array([float(gain)]))

    def evidence(self) -> tuple[float, float]:
        """The first stream's evidence, the log of the mixture's wealth, for "stronger" and for "not stronger"."""
        return float(self.stronger.evidence[0]), float(self.weaker.evidence[0])

    def verdicts(self) -> npt.NDArray[np.int8]:
        """Per stream: 1 "stronger", -1 "not stronger" (the first, "stronger", if both tests have rejected), 0 open."""
        codes = np.where(self.stronger.rejected, 1, np.where(self.weaker.rejected, -1, 0))
        out: npt.NDArray[np.int8] = codes.astype(np.int8)
        return out

    def verdict(self) -> Verdict | None:
        """The first stream's verdict ("stronger", "not stronger" or None while open)."""
        code = int(self.verdicts()[0])
        return "stronger" if code == 1 else "not stronger" if code == -1 else None

    def interval(self) -> tuple[float, float]:
        """The tests' confidence sequence for the first stream's mean gain (``TestSequence``; the whole range
        without one)."""
        return (-self.bound, self.bound) if self.sequence is None else self.sequence.interval()

    @property
    def spread(self) -> Floats:
        """The standard deviation each cap is sized from: the gains' spread with ``PRIOR_WEIGHT`` pseudo-observations
        of the largest variance the bound allows."""
        spread: Floats = np.sqrt((PRIOR_WEIGHT * self.bound**2 + self._m2) / (PRIOR_WEIGHT + np.maximum(self.n - 1, 0)))
        return spread

    def caps(self) -> npt.NDArray[np.int64]:
        """Per stream, the blocks after which it stops as inconclusive when no ``--max-games`` is given."""
        blocks = np.ceil(CAP_FACTOR * fixed_blocks(self.design, self.spread))
        caps: npt.NDArray[np.int64] = np.maximum(1, blocks).astype(np.int64)
        return caps

    def cap(self) -> int:
        """The first stream's cap."""
        return int(self.caps()[0])


class TestSequence:
    """The confidence sequence of the tests themselves: for every candidate mean gain d of a grid over (-bound,
    bound) that holds d0 and d1, the test of "μ ≤ d" at level alpha and of "μ ≥ d" at level beta, each the mixture of
    ``BettingTests`` on y = (g - d)/(bound + |d|) (resp. -y), as the verdict's tests at d0 and d1. y falls as d grows,
    for every gain g in [-bound, bound], so every wealth falls (resp. rises) with d and the candidates each test has
    rejected form a down-set (an up-set). ``interval`` is
    (the largest d with "μ ≤ d" rejected, the smallest with "μ ≥ d" rejected): the true mean lies below the lower end
    only if the test at the true mean rejected, with probability at most alpha at any time (Ville's inequality), and
    above the upper end with probability at most beta, so it is a (1 - alpha - beta) confidence sequence (90% with the
    defaults), valid at any stop, and it says exactly what the verdict says: "stronger" is a lower end at d0 or
    above, "not stronger" an upper end at d1 or below (Howard, Ramdas, McAuliffe & Sekhon, "Time-uniform,
    nonparametric, nonasymptotic confidence sequences", Annals of Statistics 2021, on confidence sequences from
    sequential tests)."""

    #: Candidate means on the grid, besides d0 and d1.
    POINTS = 201

    def __init__(self, design: Design, bound: float) -> None:
        inner = np.linspace(-bound, bound, self.POINTS)[1:-1]
        self.grid: Floats = np.unique(np.r_[inner, design.d0, design.d1])
        self.bound = bound
        self.level = 1 - design.alpha - design.beta
        self._below = BettingTests(design.alpha, len(self.grid))  # rejects "μ ≤ d"
        self._above = BettingTests(design.beta, len(self.grid))  # rejects "μ ≥ d"

    def add(self, gain: float) -> None:
        scale = self.bound + np.abs(self.grid)
        self._below.add((gain - self.grid) / scale)
        self._above.add((self.grid - gain) / scale)

    def interval(self) -> tuple[float, float]:
        low = self.grid[self._below.rejected]
        high = self.grid[self._above.rejected]
        return (float(low.max()) if len(low) else -self.bound, float(high.min()) if len(high) else self.bound)
