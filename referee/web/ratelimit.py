"""A per-caller rate limit: ``rate`` requests per minute per token, or per client address when signed out.

A moving window (the ``limits`` library, in memory): a flood gets 429 with ``Retry-After`` and a one-line
message, and the requests it makes meanwhile cost no store read. Static files are not counted.
"""

from __future__ import annotations

import math
import time

from limits import RateLimitItemPerMinute
from limits.storage import MemoryStorage
from limits.strategies import MovingWindowRateLimiter

__all__ = ["RateLimit"]


class RateLimit:
    """``hit(key)``: count a request of ``key``; the seconds to wait when it is over the limit, else None."""

    def __init__(self, per_minute: int) -> None:
        self.item = RateLimitItemPerMinute(per_minute)
        self._limiter = MovingWindowRateLimiter(MemoryStorage())

    def hit(self, key: str) -> int | None:
        if self._limiter.hit(self.item, key):
            return None
        reset, _ = self._limiter.get_window_stats(self.item, key)
        return max(1, math.ceil(reset - time.time()))
