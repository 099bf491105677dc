"""The leaderboard, computed off the request path: every page and API call gets the latest computed standing.

The official standing is recomputed from every stored block of the active versions, which takes longer as the
ladder grows; doing that per request would make a busy leaderboard slow the scheduler. So ``Board.run`` (a task
in the server's nursery) recomputes it at most every ``every`` seconds, and only when what it is computed from
changed since (``fingerprint``: the blocks done and the active versions' states); requests read the last result.
When a recomputation takes long (a large ladder), the next one waits ``PAUSE`` times as long, so the leaderboard
never takes more than a sixth of a core from the scheduler; ``computed_at`` says how fresh it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import trio

from referee.web import views
from referee.web.models import LeaderboardBody

if TYPE_CHECKING:
    from referee.ladder import Ladder

__all__ = ["PAUSE", "Board", "fingerprint"]

#: After a recomputation of D seconds, the next waits at least PAUSE x D.
PAUSE = 5.0


def fingerprint(ladder: Ladder) -> tuple[Any, ...]:
    """What the leaderboard is computed from, in short: the blocks done, and each active version with the time of
    its last change of state (a version that passed its gate, finished its placement, was suspended or retired)."""
    store = ladder.store
    return (store.block_count(), tuple((v.id, v.state_at) for v in store.active_versions()))


class Board:
    """The latest leaderboard of ``access``'s ladder, refreshed by ``run``."""

    def __init__(self, access: Any, every: float) -> None:
        self.access = access
        self.every = every
        self._latest: LeaderboardBody | None = None
        self._version: Any = None
        self._lock = trio.Lock()
        self.took = 0.0  # seconds the last recomputation took

    async def latest(self) -> LeaderboardBody:
        """The last computed leaderboard; computes it now when none is (no ``run`` task, or before its first)."""
        if self._latest is None:
            await self.refresh()
        assert self._latest is not None
        return self._latest

    async def refresh(self) -> None:
        """Recompute the leaderboard if the store changed since the last computation (one at a time)."""
        async with self._lock:
            version = await self.access.run_in_thread(fingerprint)
            if self._latest is not None and version == self._version:
                return
            started = trio.current_time()
            self._latest = await self.access.run_in_thread(views.leaderboard)
            self.took = trio.current_time() - started
            self._version = version

    async def run(self) -> None:
        """Refresh every ``every`` seconds (or ``PAUSE`` times the last recomputation) until cancelled."""
        while True:
            await self.refresh()
            await trio.sleep(max(self.every, PAUSE * self.took))
