"""Where ``serve``'s lanes play their blocks: in the serve process, in a worker process per lane, or on a Dask cluster.

``serve`` chooses each lane's block, records it in play, hands its games to its ``Lanes`` (``play``) and commits
what comes back whole (``settle``). A ``Lanes`` only plays: it never touches the store. Every kind keeps the same
rules: a lane's bot processes are kept across blocks (a ``PlayerPool`` per lane, wherever it lives), a process is
never dealt a deal twice (the pool's own rule), bots run in the sandbox and under the limits of ``ladder.toml``,
and each game's log is written to ``games_dir`` before ``play`` returns it. A block whose lane fails (a worker
process or a Dask worker lost) raises, and ``serve`` voids it and plays it again.

- ``InProcessLanes``: the lanes' pools in this process (the default, and what the tests' in-process fakes use);
- ``referee.ladder.lanes_process.ProcessLanes`` (``--lane-processes``): one worker process per lane, so the serve
  process keeps only the matchmaker, the store and the web;
- ``referee.ladder.lanes_dask.DaskLanes`` (``--cluster ADDRESS``): the lanes' blocks go to Dask tasks, several to a
  task when blocks are to spare; versions are shipped to workers by digest.

Every kind adds each version's reply time over a block to ``LaneSettings.clock`` (the matchmaker's fair share in
bot time) before ``play`` returns: timed here, or where the lane runs and sent back with the block.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from referee.contest.pool import PlayerFactory, PlayerPool
from referee.contest.schedule import TableBatch
from referee.engine import Ruleset
from referee.ladder.botclock import BotClock
from referee.ladder.botmanifest import BotManifest, version_spec
from referee.ladder.errors import LaneLost
from referee.ladder.model import Version
from referee.ladder.platform_build import BuildLimits
from referee.runner import BotSpec, RunnerConfig
from referee.tournament.execute import GameFn, PlayedGame, play_batch

__all__ = ["InProcessLanes", "LaneLost", "LaneSettings", "Lanes"]  # LaneLost: referee.ladder.errors


@dataclass(frozen=True)
class LaneSettings:
    """What every kind of lane needs: ``jobs`` lanes; the runner's settings (sandbox, limits); the rules; where bots'
    stderr goes (``bots_dir``); how many processes of a version a lane keeps (``keep``) and holds at most
    (``max_live``); the folder of a stored version (``folder``); the tests' in-process ``play`` and ``factory``;
    ``clock``, the serve's ``BotClock``: every kind of lane adds each version's reply time to it before ``play``
    returns (None: not measured); for lanes on machines of other platforms (``lanes_dask``), what a version's
    build may take (``build``) and where the files as submitted of a version with a build command are kept
    (``source``: ``platform_build.keep_source``)."""

    jobs: int
    runner: RunnerConfig
    ruleset: Ruleset
    bots_dir: Path
    keep: int
    max_live: int
    folder: Callable[[Version], Path]
    play: GameFn | None = None
    factory: PlayerFactory | None = None
    clock: BotClock | None = None
    build: BuildLimits | None = None
    source: Callable[[Version], Path] | None = None

    def spec(self, v: Version) -> BotSpec:
        """The runner's ``BotSpec`` of version ``v`` as stored here."""
        return version_spec(v.key, BotManifest(v.command, v.build), self.folder(v))


class Lanes(Protocol):
    """How ``serve`` has its blocks played (see the module's docstring)."""

    #: How many lanes play at once, and how many bot processes one lane holds at most.
    jobs: int
    max_live: int

    async def start(self) -> None:
        """Make the lanes ready (start worker processes, reach the cluster). Raises ``LadderError`` in one line
        when they cannot be."""

    async def play(
        self, lane: int, batch: TableBatch, versions: Sequence[Version], games_dir: Path
    ) -> list[PlayedGame]:
        """Play every game of ``batch`` (one block: every seat rotation of its deal) with the bots of ``versions``,
        each game's log written to ``games_dir``. Raises ``LaneLost`` when the lane's worker ended meanwhile."""

    async def retire(self, lane: int, keep: set[str]) -> None:
        """Close the lane's idle bots of every version not in ``keep`` (retired, suspended or replaced ones)."""

    async def wanted(self) -> int:
        """How many lanes they can feed now: ``jobs``, or more when the machines grew (a Dask worker joined);
        ``serve`` then opens lanes up to that number."""

    async def aclose(self) -> None:
        """Close every bot and worker (shielded by the caller when it must finish)."""


class InProcessLanes:
    """Every lane's ``PlayerPool`` in this process (``serve``'s lanes as trio tasks)."""

    def __init__(self, settings: LaneSettings) -> None:
        self.settings = settings
        self.jobs = settings.jobs
        self.max_live = settings.max_live
        self.specs: dict[str, BotSpec] = {}
        self.pools: dict[int, PlayerPool] = {}
        self.factory = settings.clock.wrap(settings.factory) if settings.clock is not None else settings.factory

    async def start(self) -> None:
        return None

    def _pool(self, lane: int) -> PlayerPool:
        pool = self.pools.get(lane)
        if pool is None:
            s = self.settings
            pool = PlayerPool(
                self.specs, s.runner, s.bots_dir, lane, factory=self.factory, keep=s.keep, freeze_idle=s.runner.freeze
            )
            pool.max_live = s.max_live
            self.pools[lane] = pool
        return pool

    async def play(
        self, lane: int, batch: TableBatch, versions: Sequence[Version], games_dir: Path
    ) -> list[PlayedGame]:
        for v in versions:
            if v.key not in self.specs:
                self.specs[v.key] = self.settings.spec(v)
        s = self.settings
        return await play_batch(batch, self._pool(lane), ruleset=s.ruleset, games_dir=games_dir, play=s.play)

    async def wanted(self) -> int:
        return self.jobs

    async def retire(self, lane: int, keep: set[str]) -> None:
        await self._pool(lane).retire(keep)

    async def aclose(self) -> None:
        pools, self.pools = list(self.pools.values()), {}
        for pool in pools:
            await pool.aclose()
