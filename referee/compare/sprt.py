"""The sequential test of ``referee compare``: a GSPRT on per-block paired differences, and their 95% interval.

Pure arithmetic, no IO. A *block* yields one paired difference ``x`` (OLD's result minus NEW's, per game, so a
positive ``x`` means NEW did better: lower scores and ranks are better in 23). The test weighs

    H0: the mean difference is d0     against     H1: the mean difference is d1      (d0 < d1)

after every block with the generalised log-likelihood ratio in the normal (Brownian) approximation of the GSPRT::

    LLR = n * (mean - (d0 + d1) / 2) * (d1 - d0) / var

where ``n`` is the number of blocks and ``mean`` their mean difference: the formula of Michel Van den Bergh's note
on the GSPRT approximation, which fishtest uses on game pairs. It stops with "stronger" (H1) once
``LLR >= log((1 - beta) / alpha)`` and with "not stronger" (H0) once ``LLR <= log(beta / (1 - alpha))``: Wald's
bounds (Wald, "Sequential tests of statistical hypotheses", Annals of Mathematical Statistics 16, 1945), which
keep the chance of a wrong verdict at about ``alpha`` (when the difference is d0) and ``beta`` (when it is d1)
however long the test runs and whenever it stops.

``var`` is the variance of a block difference, which is not known: estimated from few blocks it is often too
small, and a test that divides by an underestimate stops too early and too often (with the plain estimate,
"stronger" came out in 7% of simulated tests at alpha = 5%). So ``var`` is the estimate's one-sided
``VAR_LEVEL`` upper confidence limit, ``sum((x - mean)²) / chi2(n - 1, 1 - VAR_LEVEL)`` (the chi-square
quantile by Wilson and Hilferty's approximation), and no verdict is given before ``min_blocks`` blocks. That
brings the simulated error rates back to the design (bench/bench_compare.py, docs/compare.md). A variance of zero
(every block the same, e.g. a deterministic bot against itself) is floored at ``VAR_FLOOR * (d1 - d0)²``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from statistics import NormalDist
from typing import Literal

from referee.compare.errors import DesignError
from referee.tournament.standings import t_quantile_975

__all__ = [
    "VAR_FLOOR",
    "VAR_LEVEL",
    "BlockStats",
    "Design",
    "Verdict",
    "chi2_quantile",
    "fixed_sample_size",
    "sequential_verdict",
]

Verdict = Literal["stronger", "not stronger", "inconclusive"]

#: The smallest variance used, as a share of (d1 - d0)²: keeps the LLR finite when every block is the same.
VAR_FLOOR = 1e-6
#: The confidence level of the upper limit of the variance that the LLR divides by.
VAR_LEVEL = 0.8


@dataclass(frozen=True, slots=True)
class Design:
    """The test's parameters: error rates ``alpha`` (a false "stronger") and ``beta`` (a false "not stronger"),
    the effect sizes ``d0 < d1`` of the two hypotheses, and the blocks needed before any verdict."""

    alpha: float = 0.05
    beta: float = 0.05
    d0: float = 0.0
    d1: float = 1.0
    min_blocks: int = 8

    def __post_init__(self) -> None:
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not 0 < value < 0.5:
                raise DesignError(f"--{name} must be between 0 and 0.5 (exclusive), got {value}")
        if not (math.isfinite(self.d0) and math.isfinite(self.d1)) or self.d1 <= self.d0:
            raise DesignError(f"--d1 must be larger than --d0, got d0={self.d0} and d1={self.d1}")
        if self.min_blocks < 2:
            raise DesignError(f"the test needs at least 2 blocks before a verdict, got {self.min_blocks}")

    @property
    def lower(self) -> float:
        """Wald's lower bound ``log(beta / (1 - alpha))``: at or below it, H0 ("not stronger")."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """Wald's upper bound ``log((1 - beta) / alpha)``: at or above it, H1 ("stronger")."""
        return math.log((1 - self.beta) / self.alpha)


@dataclass(slots=True)
class BlockStats:
    """Running mean and variance of the block differences (Welford's update: stable, constant memory)."""

    n: int = 0
    mean: float = 0.0
    _m2: float = 0.0

    def add(self, x: float) -> None:
        if not math.isfinite(x):
            raise ValueError(f"a block difference must be a finite number, got {x}")
        self.n += 1
        delta = x - self.mean
        self.mean += delta / self.n
        self._m2 += delta * (x - self.mean)

    @property
    def variance(self) -> float:
        """The maximum-likelihood variance (divided by n), as in the GSPRT; 0 before any block."""
        return self._m2 / self.n if self.n else 0.0

    def ci95(self) -> tuple[float, float] | None:
        """Student's t 95% interval of the mean difference over blocks (the blocks are the unit); None below 2."""
        if self.n < 2:
            return None
        half = t_quantile_975(self.n - 1) * math.sqrt(self._m2 / (self.n - 1) / self.n)
        return (self.mean - half, self.mean + half)

    def llr(self, design: Design) -> float:
        """The GSPRT log-likelihood ratio of H1 against H0 after these blocks (0 before two)."""
        if self.n < 2:
            return 0.0
        width = design.d1 - design.d0
        var = max(self._m2 / chi2_quantile(self.n - 1, 1 - VAR_LEVEL), VAR_FLOOR * width * width)
        return self.n * (self.mean - (design.d0 + design.d1) / 2) * width / var

    def verdict(self, design: Design) -> Verdict | None:
        """Returns "stronger" or "not stronger" once the LLR reaches a bound (after ``min_blocks``); else None."""
        if self.n < design.min_blocks:
            return None
        llr = self.llr(design)
        if llr >= design.upper:
            return "stronger"
        if llr <= design.lower:
            return "not stronger"
        return None


def sequential_verdict(diffs: Iterable[float], design: Design, max_blocks: int) -> tuple[Verdict, BlockStats]:
    """Run the test over ``diffs`` in order: the verdict at the first bound reached, or "inconclusive" when
    ``max_blocks`` blocks (or all of ``diffs``) pass without one; and the statistics of the blocks it used."""
    stats = BlockStats()
    for x in diffs:
        if stats.n >= max_blocks:
            break
        stats.add(x)
        verdict = stats.verdict(design)
        if verdict is not None:
            return verdict, stats
    return "inconclusive", stats


def chi2_quantile(df: int, p: float) -> float:
    """The ``p`` quantile of the chi-square distribution with ``df`` degrees of freedom, by Wilson and Hilferty's
    cube-root normal approximation (at p = 0.2: 1% high at 3 degrees of freedom, within 0.5% from 7 on)."""
    k = float(df)
    z = NormalDist().inv_cdf(p)
    return k * (1 - 2 / (9 * k) + z * math.sqrt(2 / (9 * k))) ** 3


def fixed_sample_size(design: Design, sd: float) -> int:
    """Blocks a fixed-size one-sided z-test needs for the same errors: ``alpha`` at d0 and power ``1 - beta`` at d1,
    for block differences of standard deviation ``sd``: ``ceil(((z(1-alpha) + z(1-beta)) * sd / (d1 - d0))²)``."""
    z = NormalDist().inv_cdf
    return math.ceil(((z(1 - design.alpha) + z(1 - design.beta)) * sd / (design.d1 - design.d0)) ** 2)
