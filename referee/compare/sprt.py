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
quantile by Wilson and Hilferty's approximation), and no verdict is given before ``min_blocks`` blocks (30: a
one-in-ten block shows up among them with probability 0.96). That brings the simulated error rates back to the
design (bench/bench_compare.py, docs/compare.md) for near-normal blocks. Instead of a floor, the sum of squares
carries one prior pseudo-observation of ``PRIOR_VARIANCE * (d1 - d0)²``, so identical blocks (a deterministic bot
against itself) give a finite LLR that the blocks soon outweigh.

This is a calibration, not a guarantee: with a plug-in variance the LLR is not a martingale, and strongly skewed,
heavy-tailed or sparse blocks move the error rates well away from the design (right-skewed or 90% identical blocks:
35-67% power at d1 against a designed 95%, issue 31). ``BlockStats.shape`` reports what the normal approximation
needs (skewness, the largest deviation, how many blocks are identical) and ``shape_warning`` says when it does not
hold; while it does not, the test gives no verdict (it says it cannot reach its design there, and ends inconclusive
at its cap). ``referee compare`` uses the bounded betting test (``betting``) unless ``--metric points`` asks for
this one.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Literal

from referee.compare.errors import DesignError
from referee.tournament.standings import t_quantile_975

__all__ = [
    "PRIOR_VARIANCE",
    "VAR_LEVEL",
    "BlockShape",
    "BlockStats",
    "Design",
    "Verdict",
    "asymptotic_sequence",
    "chi2_quantile",
    "fixed_sample_size",
    "sequential_verdict",
    "shape_warning",
]

Verdict = Literal["stronger", "not stronger", "inconclusive"]

#: The prior pseudo-observation in the variance the LLR divides by, as a share of (d1 - d0)²: keeps the LLR finite
#: when every block is the same.
PRIOR_VARIANCE = 1.0
#: |skewness| above this, or a block this many standard deviations from the mean, breaks the normal approximation.
SKEW_LIMIT = 1.0
OUTLIER_SDS = 5.0
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
    min_blocks: int = 30

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
    _m3: float = 0.0  # the running third central moment's sum (for the skewness)
    _low: float = math.inf
    _high: float = -math.inf
    _counts: dict[float, int] = field(default_factory=dict, repr=False)  # for the share of identical blocks
    _tied: int = 0

    def add(self, x: float) -> None:
        """One block's difference; raises ``ValueError`` for a value that is not finite."""
        if not math.isfinite(x):
            raise ValueError(f"a block difference must be a finite number, got {x}")
        self.n += 1
        n = self.n
        delta = x - self.mean
        share = delta / n
        term = delta * share * (n - 1)
        self.mean += share
        self._m3 += term * share * (n - 2) - 3 * share * self._m2  # Terriberry's online update, before _m2's
        self._m2 += term
        self._low, self._high = min(self._low, x), max(self._high, x)
        self._counts[x] = self._counts.get(x, 0) + 1
        self._tied = max(self._tied, self._counts[x])

    def shape(self) -> BlockShape | None:
        """Skewness, the largest deviation from the mean (in standard deviations) and the largest share of identical
        blocks; None below 3 blocks."""
        if self.n < 3:
            return None
        sd = math.sqrt(self._m2 / self.n)
        largest = max(self._low, self._high, key=lambda x: abs(x - self.mean))
        if sd == 0:
            return BlockShape(0.0, largest, 0.0, self._tied / self.n)
        skew = self._m3 / self.n / sd**3
        return BlockShape(skew, largest, abs(largest - self.mean) / sd, self._tied / self.n)

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

    def llr_variance(self, design: Design) -> float:
        """The variance the LLR divides by: the sum of squares with a prior pseudo-observation of
        ``PRIOR_VARIANCE * (d1 - d0)²``, over the chi-square quantile that makes it a ``VAR_LEVEL`` upper limit."""
        width = design.d1 - design.d0
        return (self._m2 + PRIOR_VARIANCE * width * width) / chi2_quantile(max(self.n, 1), 1 - VAR_LEVEL)

    def llr(self, design: Design) -> float:
        """The GSPRT log-likelihood ratio of H1 against H0 after these blocks (0 before two)."""
        if self.n < 2:
            return 0.0
        width = design.d1 - design.d0
        return self.n * (self.mean - (design.d0 + design.d1) / 2) * width / self.llr_variance(design)

    def verdict(self, design: Design) -> Verdict | None:
        """Returns "stronger" or "not stronger" once the LLR reaches a bound (after ``min_blocks``, and while the
        blocks' shape keeps to the normal approximation: ``shape_warning``); else None."""
        if self.n < design.min_blocks or shape_warning(self.shape()) is not None:
            return None
        llr = self.llr(design)
        if llr >= design.upper:
            return "stronger"
        if llr <= design.lower:
            return "not stronger"
        return None


@dataclass(frozen=True, slots=True)
class BlockShape:
    """What the normal approximation of the GSPRT needs of the block differences: ``skew`` (sample skewness),
    ``largest`` (the block farthest from the mean) and its distance ``largest_sds`` in standard deviations, and
    ``tied``, the largest share of blocks with one same value."""

    skew: float
    largest: float
    largest_sds: float
    tied: float


def shape_warning(shape: BlockShape | None) -> str | None:
    """A sentence when the blocks break the normal approximation (skewed, an outlier, or mostly identical)."""
    if shape is None:
        return None
    problems = []
    if abs(shape.skew) > SKEW_LIMIT:
        problems.append(f"skewness {shape.skew:+.2f}")
    if shape.largest_sds > OUTLIER_SDS:
        problems.append(f"a block {shape.largest_sds:.1f} standard deviations from the mean ({shape.largest:+.2f})")
    if shape.tied > 0.5:
        problems.append(f"{shape.tied:.0%} of the blocks identical")
    if not problems:
        return None
    return (
        f"the block differences are far from normal ({', '.join(problems)}): the GSPRT gives no verdict on such "
        "blocks, since its error rates and its designed power hold only for near-normal ones (so it ends "
        "inconclusive at its cap); --metric matchpoints (the default) or ranks has a guarantee"
    )


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


def asymptotic_sequence(stats: BlockStats, alpha: float, *, tuned_for: int = 100) -> tuple[float, float] | None:
    """An asymptotic confidence sequence for the mean block difference: the Gaussian-mixture boundary of
    Waudby-Smith, Arnold, Wu, Wang & Ramdas ("Time-uniform central limit theory and asymptotic confidence
    sequences", Annals of Statistics 2024, Theorem 2.2), mean ± σ̂·sqrt(2(nρ² + 1)/(n²ρ²) · ln(sqrt(nρ² + 1)/alpha)),
    ρ chosen to be tightest near ``tuned_for`` blocks. Valid at any stop as the blocks grow (asymptotically: it
    needs a finite variance, not normality); None below two blocks."""
    if stats.n < 2:
        return None
    n = stats.n
    sd = math.sqrt(stats._m2 / (n - 1))
    log_alpha = math.log(alpha)
    rho2 = (-2 * log_alpha + math.log(-2 * log_alpha + 1)) / tuned_for
    half = sd * math.sqrt(2 * (n * rho2 + 1) / (n * n * rho2) * math.log(math.sqrt(n * rho2 + 1) / alpha))
    return (stats.mean - half, stats.mean + half)


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
