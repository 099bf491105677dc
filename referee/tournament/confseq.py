"""Confidence sequences: intervals for a mean that hold at every sample size at once, so a race may look after every
round and stop whenever it likes without losing its guarantee (no "peeking" problem).

``BettingCS`` is the predictable plug-in empirical-Bernstein confidence sequence of Waudby-Smith and Ramdas,
"Estimating means of bounded random variables by betting" (JRSS-B, 2023, Theorem 2): for observations in [0, 1],
with probability at least 1 − alpha the interval after the t-th observation contains, for every t at once, the
λ-weighted average of the observations' conditional means (the mean itself when it does not change). It needs no
distribution beyond the bounds, holds under optional stopping, and adapts to a small variance like a Bernstein bound.

The bets λ_t must be predictable (fixed before the t-th observation). A race passes the same λ_t to every entrant of
a round, so that two entrants' sequences estimate averages with the same weights and can be compared.
"""

from __future__ import annotations

import math

__all__ = ["BettingCS", "bet"]

#: The largest bet (the paper suggests 1/2 or 3/4).
MAX_BET = 0.75


def bet(t: int, variance: float, alpha: float) -> float:
    """λ_t = min(sqrt(2·ln(2/alpha) / (σ̂²_{t−1} · t · ln(1 + t))), 3/4): the bet on the t-th observation (t ≥ 1),
    from a variance estimate made before it."""
    return min(math.sqrt(2 * math.log(2 / alpha) / (max(variance, 1e-6) * t * math.log(1 + t))), MAX_BET)


class BettingCS:
    """A running two-sided confidence sequence at level ``1 - alpha`` for a mean of observations in [0, 1]."""

    def __init__(self, alpha: float) -> None:
        if not 0 < alpha < 1:
            raise ValueError("alpha must be between 0 and 1")
        self.alpha = alpha
        self.t = 0
        self._sum = 0.0  # Σ x_i
        self._mean = 0.5  # μ̂_{t} = (1/2 + Σ x_i) / (t + 1)
        self._sq = 0.25  # 1/4 + Σ (x_i − μ̂_i)²
        self._lam = 0.0  # Σ λ_i
        self._lam_x = 0.0  # Σ λ_i x_i
        self._penalty = 0.0  # Σ v_i ψ_E(λ_i)
        self.lower = 0.0
        self.upper = 1.0

    @property
    def variance(self) -> float:
        """σ̂²_t = (1/4 + Σ (x_i − μ̂_i)²) / (t + 1): the variance estimate the next bet may use."""
        return self._sq / (self.t + 1)

    @property
    def estimate(self) -> float:
        """The λ-weighted mean of the observations (the sequence's centre); 1/2 before any."""
        return self._lam_x / self._lam if self._lam else 0.5

    def next_bet(self) -> float:
        """The bet this sequence would place on its next observation, from its own variance estimate."""
        return bet(self.t + 1, self.variance, self.alpha)

    def update(self, x: float, lam: float | None = None) -> None:
        """Add observation ``x`` (in [0, 1]) with bet ``lam`` (predictable; default ``next_bet()``)."""
        if not 0.0 <= x <= 1.0:
            raise ValueError(f"observations must lie in [0, 1], got {x}")
        lam = self.next_bet() if lam is None else lam
        if not 0 < lam < 1:
            raise ValueError(f"a bet must lie in (0, 1), got {lam}")
        self.t += 1
        v = 4 * (x - self._mean) ** 2
        self._penalty += v * (-math.log1p(-lam) - lam) / 4
        self._lam += lam
        self._lam_x += lam * x
        centre = self._lam_x / self._lam
        radius = (math.log(2 / self.alpha) + self._penalty) / self._lam
        # No running intersection: in a race the conditional means drift (the field shrinks), so the target moves.
        self.lower = max(0.0, centre - radius)
        self.upper = min(1.0, centre + radius)
        self._sum += x
        self._mean = (0.5 + self._sum) / (self.t + 1)
        self._sq += (x - self._mean) ** 2
