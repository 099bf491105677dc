"""Confidence sequences: intervals for a mean that hold at every sample size at once, so a race may look after every
round and stop whenever it likes without losing its guarantee (no "peeking" problem); and sequential tests by betting.

``BettingCSArray`` keeps many predictable plug-in empirical-Bernstein confidence sequences of Waudby-Smith and Ramdas,
"Estimating means of bounded random variables by betting" (JRSS-B, 2023, Theorem 2): for observations in [0, 1],
with probability at least 1 − alpha the interval after the t-th observation contains, for every t at once, the
mean of the observations, when every observation's conditional mean is that one mean (the race's observations of
an entrant's strength are: each is its matchpoints at a table drawn uniformly from the tables that hold it), so the
intervals kept are their running intersection. It needs no distribution beyond the bounds, holds under optional
stopping, and adapts to a small variance like a Bernstein bound. The sequences are numpy arrays, one entry per
sequence, for a race of a large field.

The bets λ_t and the centres μ̂ the variance terms use must be predictable (fixed before the t-th observation); the
theorem holds for any predictable choice, so a batch of observations may use the state from before the batch.

``MixtureTests`` are sequential tests of "the mean is above 1/2" and of "below 1/2" (for a head-to-head share): each
is a uniform mixture, over a fixed grid of bets λ, of the betting martingales Π(1 + λ(2x_i − 1)) (resp. 1 − λ(...)).
When every conditional mean is at most 1/2 each of them, hence their average, is a nonnegative supermartingale with
initial value 1, so by Ville's inequality (1939) the mixture ever reaching 2/alpha has probability at most alpha/2;
a rejection is kept once reached. Testing by betting with a mixture of bets: Shafer & Vovk, "Game-Theoretic
Foundations for Probability and Finance" (2019); Waudby-Smith & Ramdas (2023, section on mixtures and
diversified bets); Ramdas, Grünwald, Vovk & Shafer, "Game-theoretic statistics and safe anytime-valid inference"
(Statistical Science, 2023). The mixture adapts to the unknown gap: it needs about 2σ²(ln(2/alpha) + ln G)/δ²
observations for a mean 1/2 + δ, a third of what the plug-in sequence above needs for the same decision.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

__all__ = ["MIXTURE_BETS", "BettingCSArray", "MixtureTests", "bet"]

#: The largest bet (the paper suggests 1/2 or 3/4).
MAX_BET = 0.75


def bet(t: int, variance: float, alpha: float) -> float:
    """λ_t = min(sqrt(2·ln(2/alpha) / (σ̂²_{t−1} · t · ln(1 + t))), 3/4): the bet on the t-th observation (t ≥ 1),
    from a variance estimate made before it."""
    return min(math.sqrt(2 * math.log(2 / alpha) / (max(variance, 1e-6) * t * math.log(1 + t))), MAX_BET)


def _occurrence(idx: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    """For each entry of ``idx``, how many earlier entries name the same sequence (0 for the first)."""
    order = np.argsort(idx, kind="stable")
    ordered = idx[order]
    starts = np.r_[0, np.flatnonzero(ordered[1:] != ordered[:-1]) + 1]
    first = np.repeat(starts, np.diff(np.r_[starts, len(ordered)]))
    occurrence = np.empty_like(idx)
    occurrence[order] = np.arange(len(ordered)) - first
    return occurrence


def _observations(idx: npt.ArrayLike, x: npt.ArrayLike) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """The streams and observations of an update as flat arrays; observations outside [0, 1] are refused."""
    where = np.asarray(idx, dtype=np.int64).reshape(-1)
    xs = np.asarray(x, dtype=float).reshape(-1)
    if not ((xs >= 0.0) & (xs <= 1.0)).all():
        raise ValueError(f"observations must lie in [0, 1], got {xs[(xs < 0) | (xs > 1)][0]}")
    return where, xs


class BettingCSArray:
    """``size`` running two-sided confidence sequences at level ``1 - alpha`` each, for means of observations in
    [0, 1]: ``lower``, ``upper``, ``t`` (observations), ``estimate`` and ``variance`` are arrays."""

    def __init__(self, size: int, alpha: float) -> None:
        if not 0 < alpha < 1:
            raise ValueError("alpha must be between 0 and 1")
        self.alpha = alpha
        self._log = math.log(2 / alpha)
        self.t = np.zeros(size, dtype=np.int64)
        self._sum = np.zeros(size)  # Σ x_i
        self._mean = np.full(size, 0.5)  # μ̂_t = (1/2 + Σ x_i) / (t + 1)
        self._sq = np.full(size, 0.25)  # 1/4 + Σ (x_i − μ̂_i)²
        self._lam = np.zeros(size)  # Σ λ_i
        self._lam_x = np.zeros(size)  # Σ λ_i x_i
        self._penalty = np.zeros(size)  # Σ v_i ψ_E(λ_i)
        self.lower = np.zeros(size)
        self.upper = np.ones(size)

    @property
    def variance(self) -> npt.NDArray[np.float64]:
        """σ̂²_t = (1/4 + Σ (x_i − μ̂_i)²) / (t + 1): the variance estimate the next bet may use."""
        return self._sq / (self.t + 1)

    @property
    def estimate(self) -> npt.NDArray[np.float64]:
        """The λ-weighted mean of the observations (the sequence's centre); 1/2 before any."""
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(self._lam > 0, self._lam_x / np.where(self._lam > 0, self._lam, 1.0), 0.5)

    def bets(self, idx: npt.NDArray[np.int64]) -> npt.NDArray[np.float64]:
        """The bets each sequence of ``idx`` places on its next observations, from its own variance estimate (a
        sequence named several times bets as on its t+1-th, t+2-th, ... observation)."""
        t = (self.t[idx] + 1 + _occurrence(idx)).astype(float)
        scale = np.maximum(self.variance[idx], 1e-6) * t * np.log1p(t)
        lam: npt.NDArray[np.float64] = np.minimum(np.sqrt(2 * self._log / scale), MAX_BET)
        return lam

    def update(self, idx: npt.ArrayLike, x: npt.ArrayLike, lam: float | npt.NDArray[np.float64] | None = None) -> None:
        """Add observations ``x`` (in [0, 1]) to the sequences ``idx`` (a sequence may be named several times), with
        bets ``lam`` (predictable; default ``bets(idx)``). The batch uses the state from before it."""
        where, xs = _observations(idx, x)
        if len(where) == 0:
            return
        lams = self.bets(where) if lam is None else np.broadcast_to(np.asarray(lam, dtype=float), xs.shape)
        if not ((lams > 0) & (lams < 1)).all():
            raise ValueError(f"a bet must lie in (0, 1), got {lams[(lams <= 0) | (lams >= 1)][0]}")
        v = 4 * (xs - self._mean[where]) ** 2
        np.add.at(self._penalty, where, v * (-np.log1p(-lams) - lams) / 4)
        np.add.at(self._lam, where, lams)
        np.add.at(self._lam_x, where, lams * xs)
        np.add.at(self.t, where, 1)
        np.add.at(self._sum, where, xs)
        seen = np.unique(where)
        self._mean[seen] = (0.5 + self._sum[seen]) / (self.t[seen] + 1)
        np.add.at(self._sq, where, (xs - self._mean[where]) ** 2)
        centre = self._lam_x[seen] / self._lam[seen]
        radius = (self._log + self._penalty[seen]) / self._lam[seen]
        # The running intersection: a race's observations all have their entrant's strength as their mean.
        self.lower[seen] = np.maximum(self.lower[seen], centre - radius)
        self.upper[seen] = np.minimum(self.upper[seen], centre + radius)


#: The bets of a ``MixtureTests`` mixture: 0.9 · 2^(−j/2) for j = 0..18 (0.9 down to 0.0018).
MIXTURE_BETS = 0.9 * 2.0 ** (-np.arange(19) / 2)


class MixtureTests:
    """For each of ``size`` streams of observations in [0, 1], two one-sided sequential tests at level alpha/2 each:
    ``above`` (the mean is above 1/2) and ``below``; ``t`` observations and ``estimate`` (their mean) per stream."""

    def __init__(self, size: int, alpha: float) -> None:
        if not 0 < alpha < 1:
            raise ValueError("alpha must be between 0 and 1")
        self.alpha = alpha
        self._threshold = math.log(2 / alpha) + math.log(len(MIXTURE_BETS))  # log of 2/alpha times the grid size
        self._up = np.zeros((size, len(MIXTURE_BETS)))  # log-wealth of each bet on "above"
        self._down = np.zeros((size, len(MIXTURE_BETS)))
        self.t = np.zeros(size, dtype=np.int64)
        self._sum = np.zeros(size)
        self.above = np.zeros(size, dtype=bool)
        self.below = np.zeros(size, dtype=bool)

    @property
    def estimate(self) -> npt.NDArray[np.float64]:
        """The mean observation of each stream (1/2 before any)."""
        mean: npt.NDArray[np.float64] = np.where(self.t > 0, self._sum / np.maximum(self.t, 1), 0.5)
        return mean

    def update(self, idx: npt.ArrayLike, x: npt.ArrayLike) -> None:
        """Add observations ``x`` (in [0, 1]) to the streams ``idx`` (a stream may be named several times)."""
        where, xs = _observations(idx, x)
        if len(where) == 0:
            return
        order = np.argsort(where, kind="stable")
        seen, starts, counts = np.unique(where[order], return_index=True, return_counts=True)
        step = np.outer(2 * xs[order] - 1, MIXTURE_BETS)  # grouped by stream: one sum per stream
        self._up[seen] += np.add.reduceat(np.log1p(step), starts, axis=0)
        self._down[seen] += np.add.reduceat(np.log1p(-step), starts, axis=0)
        self.t[seen] += counts
        self._sum[seen] += np.add.reduceat(xs[order], starts)
        self.above[seen] |= np.logaddexp.reduce(self._up[seen], axis=1) >= self._threshold
        self.below[seen] |= np.logaddexp.reduce(self._down[seen], axis=1) >= self._threshold
