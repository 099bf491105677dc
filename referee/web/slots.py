"""A cap on long responses at once (the export: every stored game, a minute at 500,000 games; a game's log or replay,
which a flooding bot can make hundreds of megabytes long): at most ``total`` in all and ``each`` per caller, so
that a flood of them cannot take the machine from the scheduler and the pages. A request over the cap is refused
at once with a status and one line, never queued.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from fastapi import HTTPException

__all__ = ["Slots"]

#: Seconds a client refused for want of a slot is told to wait (``Retry-After``).
RETRY_AFTER = 60


class Slots:
    """``take(caller, what)``: a slot for ``caller`` (its rate-limit key), or ``HTTPException`` (429: this caller has
    ``each`` running; 503: ``total`` are running); call the returned function once, when the response ends."""

    def __init__(self, total: int, each: int, retry_after: int = RETRY_AFTER) -> None:
        self.total = total
        self.each = each
        self.retry_after = retry_after
        self._held: Counter[str] = Counter()

    def take(self, caller: str, what: str) -> Callable[[], None]:
        if self._held[caller] >= self.each:
            raise HTTPException(
                429, f"{what}: yours is still being sent; wait for it to end", {"Retry-After": str(self.retry_after)}
            )
        if self._held.total() >= self.total:
            raise HTTPException(
                503,
                f"{what}: {self.total} are being sent already; try again in {self.retry_after} s",
                {"Retry-After": str(self.retry_after)},
            )
        self._held[caller] += 1
        released = False

        def release() -> None:
            nonlocal released
            if not released:
                released = True
                self._held[caller] -= 1
                if self._held[caller] <= 0:
                    del self._held[caller]

        return release

    def held(self) -> int:
        """How many slots are taken now."""
        return self._held.total()
