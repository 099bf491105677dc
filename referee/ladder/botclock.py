"""How long each version's bots took to reply, for the matchmaker's fair share in bot time.

``BotClock.wrap`` turns a ``Player`` factory into one whose players add the wall time of every request (from the
question sent to the reply read, faults included) to their version's total; ``serve`` reads the totals before and
after a block (a version plays one block at a time, so the difference is its bot time in that block) and charges
each version its own time plus an equal share of the rest of the block's time (``matchmaker.charges``).

Lanes in the serve process wrap their factory with ``serve``'s clock. Lanes elsewhere (a lane process, a Dask
worker) wrap theirs with a clock of their own, read it before and after each block (``block_seconds``) and send the
differences back with the block's games; the serve side adds them to ``serve``'s clock (``add``) before ``play``
returns, so that ``serve`` reads every kind of lane alike.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from referee.contest.pool import PlayerFactory, PlayerLike
from referee.runner import BotSpec, Player, RunnerConfig

__all__ = ["BotClock"]


class BotClock:
    """Seconds spent in requests, by bot name (a version's key), over every player made by ``wrap``."""

    def __init__(self, clock: Callable[[], float] = time.perf_counter) -> None:
        self.spent: defaultdict[str, float] = defaultdict(float)
        self.clock = clock

    def wrap(self, factory: PlayerFactory | None) -> PlayerFactory:
        """``factory`` (default: the runner's ``Player``) with each player's requests timed."""
        make: PlayerFactory = factory or Player

        def timed(spec: BotSpec, config: RunnerConfig, stderr_path: Path) -> PlayerLike:
            return _Timed(make(spec, config, stderr_path), spec.name, self)

        return timed

    def read(self, names: Iterable[str]) -> dict[str, float]:
        """The seconds spent so far by each of ``names``."""
        return {n: self.spent[n] for n in names}

    def add(self, seconds: Iterable[tuple[str, float]]) -> None:
        """Add ``(name, seconds)`` pairs measured elsewhere (a lane's own clock); negative or non-finite seconds
        (none of ours: a lane's message is checked, not trusted) count as none."""
        for name, spent in seconds:
            if isinstance(spent, float | int) and 0.0 <= spent < float("inf"):
                self.spent[name] += float(spent)

    def block_seconds(self, before: dict[str, float]) -> tuple[tuple[str, float], ...]:
        """The seconds spent by each name of ``before`` (an earlier ``read``) since then."""
        return tuple((n, self.spent[n] - t) for n, t in before.items())


class _Timed:
    """A player whose ``request`` is timed; everything else is the player's own (its attributes are read through)."""

    def __init__(self, player: PlayerLike, name: str, clock: BotClock) -> None:
        self._player = player
        self._name = name
        self._clock = clock

    @property
    def hello(self) -> Any:
        return self._player.hello

    async def aclose(self) -> None:
        await self._player.aclose()

    async def request(self, *args: Any, **kwargs: Any) -> Any:
        start = self._clock.clock()
        try:
            return await self._player.request(*args, **kwargs)  # type: ignore[attr-defined]
        finally:
            self._clock.spent[self._name] += self._clock.clock() - start

    def __getattr__(self, name: str) -> Any:
        return getattr(self._player, name)
