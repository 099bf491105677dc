"""One intake at a time per entrant: the ladder counts an entrant's submissions of the last 24 hours before it takes
a new one in (``submissions.per_day``), and the intake (unpacking, checking, storing) takes a while, so uploads of
one entrant taken in at the same moment would each see the count from before the others and pass the cap
together. The web takes them in one after another per entrant (other entrants' uploads go on meanwhile); an upload
is received whole before it waits.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

import trio

__all__ = ["OnePerKey"]


class OnePerKey:
    """``async with one.held(key)``: one holder per key at a time, the others wait in turn. A key's lock is
    dropped once no one holds it or waits for it, so the keys kept are only those in use."""

    def __init__(self) -> None:
        self._locks: dict[str, tuple[trio.Lock, int]] = {}

    @asynccontextmanager
    async def held(self, key: str) -> AsyncIterator[None]:
        lock, users = self._locks.get(key, (trio.Lock(), 0))
        self._locks[key] = (lock, users + 1)
        try:
            async with lock:
                yield
        finally:
            lock, users = self._locks[key]
            if users == 1:
                del self._locks[key]
            else:
                self._locks[key] = (lock, users - 1)

    def keys(self) -> int:
        """How many keys are held or waited for now."""
        return len(self._locks)
