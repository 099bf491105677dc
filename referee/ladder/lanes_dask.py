"""``serve --cluster ADDRESS``: each block is a Dask task, played on whichever worker the scheduler gives it.

The serve process (the coordinator) keeps the matchmaker, the store, the settle step and the web; a lane here is
one block at a time submitted to ``lanes_ship.play_block_task``. There are as many lanes as ``--jobs``, or as the
cluster's worker threads when it has more at the start (workers that join later take blocks from the lanes' queue;
raise ``--jobs`` to give them more). Each version is shipped by digest (``lanes_ship``): packed once here and left
with the scheduler, fetched once by each worker that plays it and checked against its digest.

A finished block's games come back with their logs and the bots' new stderr; the logs are written where an
in-process lane writes them (``games_dir``), the stderr to ``bots/<version>.<worker>-<port>-<lane>.log``.

A worker lost while it plays a block (killed, out of memory, its machine gone), as the scheduler reports it: the
block's task is cancelled (Dask would run it again on its own, but the block's games are the ladder's to recount)
and ``LaneLost`` is raised with one line naming the worker, so that ``serve`` voids the block, says so, keeps the
line as the block's reason (shown on the organiser's page) and plays the block again on the workers left. Workers
may join and leave at any time; with none left, blocks wait in the scheduler's queue until one joins.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import threading
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import trio

from referee.ladder.botmanifest import BotManifest
from referee.ladder.intake import tree_digest
from referee.ladder.lanes import LaneLost, LaneSettings
from referee.ladder.lanes_ship import BlockJob, ShippedVersion, VersionShipError, pack, play_block_task, variable_name
from referee.ladder.model import Version
from referee.runner.logfile import LogLevel, log_name
from referee.tournament.cluster import _client, _distributed, check_cluster_address
from referee.tournament.cluster_worker import BatchOut, ClusterError, WorkerSetupError, release_run
from referee.tournament.execute import PlayedGame
from referee.tournament.schedule import TableBatch

__all__ = ["DaskLanes"]


@dataclass
class _Waiting:
    """A block's task as its lane waits for it: woken when it is done, or when its worker is lost (``lost``)."""

    done: trio.Event = field(default_factory=trio.Event)
    lost: str | None = None


class DaskLanes:
    """Lanes on the Dask cluster at ``address`` (a scheduler's, or ``local:N``): see the module's docstring."""

    def __init__(self, address: str, settings: LaneSettings) -> None:
        check_cluster_address(address)
        self.address = address
        self.settings = settings
        self.jobs = settings.jobs
        self.max_live = settings.max_live
        self.run_key = uuid.uuid4().hex
        self.rules = settings.ruleset.to_dict()
        self.client: Any = None
        self._stack = contextlib.ExitStack()
        self._token: trio.lowlevel.TrioToken | None = None
        self._shipped: dict[str, ShippedVersion] = {}
        self._shipping = trio.Lock()
        self._waiting: dict[str, _Waiting] = {}
        self._keys = itertools.count()
        self._lock = threading.Lock()

    async def start(self) -> None:
        """Reach the cluster (``ClusterError`` in one line when it cannot be reached or has no worker)."""
        self._token = trio.lowlevel.current_trio_token()
        self.client = await trio.to_thread.run_sync(self._stack.enter_context, _client(self.address))
        with contextlib.suppress(Exception):
            threads = sum(w.get("nthreads", 1) for w in self.client.scheduler_info()["workers"].values())
            self.jobs = max(self.jobs, threads)
        self.client.subscribe_topic("all", self._event)

    async def aclose(self) -> None:
        client, self.client = self.client, None
        if client is None:
            return

        def release() -> None:
            with contextlib.suppress(Exception):
                client.run(release_run, self.run_key)
            with contextlib.suppress(Exception):
                client.unsubscribe_topic("all")

        await trio.to_thread.run_sync(release)
        self._stack.close()  # here, not in a thread: the client's close holds SIGINT and SIGTERM back meanwhile

    async def retire(self, lane: int, keep: set[str]) -> None:
        """Nothing to do here: a worker's idle bots of a version no block needs are closed after two idle minutes
        (``cluster_worker.IDLE_TIMEOUT``), or when ``serve`` ends."""

    async def _ship(self, v: Version) -> ShippedVersion:
        """``v`` as a task names it; packed and left with the scheduler the first time."""
        async with self._shipping:
            shipped = self._shipped.get(v.key)
            if shipped is None:
                folder = self.settings.folder(v)

                def put() -> ShippedVersion:
                    manifest = BotManifest(v.command, v.build)
                    one = ShippedVersion(v.key, tree_digest(folder, manifest), manifest.command, manifest.build)
                    _distributed().Variable(variable_name(one.digest), client=self.client).set(pack(folder))
                    return one

                shipped = await trio.to_thread.run_sync(put)
                self._shipped[v.key] = shipped
            return shipped

    async def play(
        self, lane: int, batch: TableBatch, versions: Sequence[Version], games_dir: Path
    ) -> list[PlayedGame]:
        shipped = tuple([await self._ship(v) for v in versions])
        s = self.settings
        job = BlockJob(self.run_key, batch, shipped, s.runner, self.rules, s.keep, s.play, s.factory)
        key = f"referee-ladder-{self.run_key}-{batch.batch}-{next(self._keys)}"
        waiting = self._waiting[key] = _Waiting()
        future = self.client.submit(play_block_task, job, key=key, pure=False)
        future.add_done_callback(lambda _: self._wake(key))
        try:
            await waiting.done.wait()
            if waiting.lost is not None:
                raise LaneLost(waiting.lost)
            out = await trio.to_thread.run_sync(self._outcome, future)
        finally:
            del self._waiting[key]
            if not future.done():
                with trio.CancelScope(shield=True):
                    await trio.to_thread.run_sync(self._cancel, future)
            future.release()
        return self._take(out, batch, games_dir)

    @staticmethod
    def _cancel(future: Any) -> None:
        with contextlib.suppress(Exception):
            future.cancel()

    def _outcome(self, future: Any) -> BatchOut:
        """The finished task's result; its error as the ladder says it (``LaneLost`` for a task lost with every
        worker that ran it)."""
        status = future.status
        if status == "finished":
            return future.result()  # type: ignore[no-any-return]
        if status != "error":  # cancelled or lost: the scheduler forgot it (restarted, or this client cut off);
            # its error would be a CancelledError, which must not pass for a stop of serve
            raise LaneLost(f"its task was {status} by the Dask scheduler")
        exc = future.exception()
        if isinstance(exc, VersionShipError | WorkerSetupError | ClusterError):
            raise exc
        if isinstance(exc, _distributed().KilledWorker):
            raise LaneLost(f"its task was lost with every worker that ran it ({exc})")
        if exc is None:
            raise LaneLost("its task was cancelled by the scheduler")
        raise exc

    def _take(self, out: BatchOut, batch: TableBatch, games_dir: Path) -> list[PlayedGame]:
        """Write the block's logs into ``games_dir`` and the bots' stderr into the bots folder; the games, with
        their logs' paths here."""
        bots = self.settings.bots_dir
        for key, label, data in out.stderr:
            bots.mkdir(parents=True, exist_ok=True)
            with open(bots / f"{key}.{label}.log", "ab") as f:
                f.write(data)
        played = []
        for g in out.games:
            game = g.played
            name = log_name(game.game.game_id, LogLevel.FULL)
            if g.log is not None and name is not None:
                path = games_dir / name
                part = path.with_name(name + ".part")
                part.write_bytes(g.log)
                os.replace(part, path)
                game = replace(game, result=replace(game.result, log_path=path))
            played.append(game)
        if [p.game.game_id for p in played] != [g.game_id for g in batch.games]:
            raise LaneLost(f"block {batch.batch}: its worker sent back other games than it was given")
        return played

    # Called in the Dask client's threads.

    def _wake(self, key: str) -> None:
        def wake() -> None:
            waiting = self._waiting.get(key)
            if waiting is not None:
                waiting.done.set()

        with contextlib.suppress(trio.RunFinishedError):
            trio.from_thread.run_sync(wake, trio_token=self._token)

    def _event(self, event: tuple[float, Any]) -> None:
        """A scheduler event: a worker removed while it played blocks of this ``serve`` loses them."""
        at, msg = event
        if not isinstance(msg, dict) or msg.get("action") != "remove-worker":
            return
        prefix = f"referee-ladder-{self.run_key}-"
        keys = [str(k) for k in msg.get("processing-tasks") or () if str(k).startswith(prefix)]
        if not keys:
            return
        how = "retired" if msg.get("expected") else "lost"
        when = time.strftime("%H:%M:%S UTC", time.gmtime(float(at)))
        line = f"worker {msg.get('worker')} {how} at {when} while it played the block"

        def mark() -> None:
            for key in keys:
                waiting = self._waiting.get(key)
                if waiting is not None:
                    waiting.lost = line
                    waiting.done.set()

        with contextlib.suppress(trio.RunFinishedError):
            trio.from_thread.run_sync(mark, trio_token=self._token)
