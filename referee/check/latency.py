"""Move latency figures: median, 99th percentile and maximum of a bot's reply times."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Latency:
    """Reply times in milliseconds over ``count`` replies (all zero when there were none)."""

    count: int
    median_ms: float
    p99_ms: float
    max_ms: float

    def to_dict(self) -> dict[str, float | int]:
        return {
            "count": self.count,
            "median_ms": round(self.median_ms, 2),
            "p99_ms": round(self.p99_ms, 2),
            "max_ms": round(self.max_ms, 2),
        }


def _nearest_rank(ordered: Sequence[float], q: float) -> float:
    """The nearest-rank ``q`` quantile (0 < q <= 1) of a non-empty ascending sequence."""
    k = max(1, math.ceil(q * len(ordered)))
    return ordered[k - 1]


def latency(samples_ms: Sequence[float]) -> Latency:
    """Median (mean of the middle two for an even count), nearest-rank p99 and maximum of ``samples_ms``."""
    if not samples_ms:
        return Latency(0, 0.0, 0.0, 0.0)
    ordered = sorted(samples_ms)
    n = len(ordered)
    mid = n // 2
    median = ordered[mid] if n % 2 else (ordered[mid - 1] + ordered[mid]) / 2
    return Latency(n, median, _nearest_rank(ordered, 0.99), ordered[-1])
