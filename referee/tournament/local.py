"""The local executor: ``jobs`` table lanes on this machine, in this process or each in a worker process."""

from __future__ import annotations

from dataclasses import dataclass

from referee.contest.pool import PlayerFactory
from referee.runner import run_until_stopped
from referee.tournament.execute import (
    STORAGE_FAILURES,
    GameFn,
    PlaySetup,
    PoolLane,
    Rounds,
    lane_folders,
    lane_pool,
    play_lanes,
)

__all__ = ["LocalExecutor"]


@dataclass(frozen=True)
class LocalExecutor:
    """Plays ``jobs`` tables at the same time on this machine, each lane with its own ``PlayerPool``.

    The lanes run in this process, or with ``workers=True`` each in a worker process forked from this one
    (``lane_workers``), so that the referee's own work spreads over the machine's cores; this process then keeps
    the queue of games and stores each finished game. (On a shared 2-core machine the workers cost about a third
    more of the referee's CPU for no wall-clock gain, bench/README.md, so they are not the default.)
    ``fresh=True`` starts a new bot process for every game. ``play`` (the runner's ``play_game``) and ``factory``
    (``Player``) may be replaced, as the tests do with in-process fakes (in workers too).
    """

    jobs: int
    fresh: bool = False
    play: GameFn | None = None
    factory: PlayerFactory | None = None
    workers: bool = False

    def run(self, setup: PlaySetup, rounds: Rounds) -> None:
        if self.workers:
            # Loaded only here: the workers' modules (pickle, the lanes' channel) are about 10 ms of a run's start.
            from referee.tournament.lane_workers import run_in_workers

            run_in_workers(setup, rounds, max(1, self.jobs), fresh=self.fresh, play=self.play, factory=self.factory)
            return

        async def work() -> None:
            await self.play_rounds(setup, rounds)

        run_until_stopped(work, storage=STORAGE_FAILURES)

    async def play_rounds(self, setup: PlaySetup, rounds: Rounds) -> None:
        """Play round after round of ``rounds()`` on ``jobs`` concurrent lanes in this process (``play_lanes``)."""
        lane_folders(setup)
        jobs = max(1, self.jobs)
        lanes = [
            PoolLane(lane_pool(setup, n, fresh=self.fresh, factory=self.factory, alone=jobs == 1), setup, self.play)
            for n in range(jobs)
        ]
        await play_lanes(setup, rounds, lanes, fresh=self.fresh)
