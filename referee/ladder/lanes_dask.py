"""``serve --cluster ADDRESS``: each block is a Dask task, played on whichever worker the scheduler gives it.

The serve process (the coordinator) keeps the matchmaker, the store, the settle step and the web; a lane here is
one block at a time, handed to a Dask task (``lanes_ship.play_blocks_task``). A task's own cost to the coordinator
(its messages, its result fetched, its callbacks: about 2.6 ms of CPU) is paid per task, not per block: the blocks
of the lanes wait here in one queue, at most one task more than the cluster has worker threads is in the
scheduler's hands at a time, and a task takes up to ``BLOCKS_PER_TASK`` waiting blocks, played in turn on its
worker. So with blocks to spare each task carries several, and an idle cluster still gets each block at once. There
are as many lanes as ``--jobs``, or ``BLOCKS_PER_TASK`` per worker thread of the cluster at the start when that is
more (workers that join later add lanes at that rate: ``wanted``); a small field, where
few blocks can be in play at once, has one block a task. Each version is shipped by digest (``lanes_ship``): packed
once here and left with the scheduler, fetched once by each worker that plays it and checked against its digest.
A version with a build command is shipped twice: built (for workers of this machine's platform,
``referee.ladder.platforms``) and as submitted, when its gate kept it so (``platform_build.keep_source``), for
workers of other platforms, which build it themselves once per machine (``platform_build.build_here``). A build
that fails on a worker voids the block; the failure, ``(digest, platform)``, is remembered here for the serve's
life and sent with every later task, and the blocks of that version go only to workers of other platforms (each
worker's platform is asked when the workers are counted): played there, or waiting here until such a worker
joins. A worker that leaves as the last of the platforms such a task may go to: the task is cancelled and its
block voided, to wait here in turn.

A finished block's games come back with their logs and the bots' new stderr; the logs are written where an
in-process lane writes them (``games_dir``), the stderr to ``bots/<version>.<worker>-<port>-<lane>.log``.

Each block's games come back with each version's reply time over the block (measured on the worker), added to the
serve's bot clock before ``play`` returns: the matchmaker's fair share in bot time, as with lanes in process.

A worker lost while it plays a task (killed, out of memory, its machine gone), as the scheduler reports it: the
task is cancelled (Dask would run it again on its own, but the blocks' games are the ladder's to recount) and each
of its blocks raises ``LaneLost`` with one line naming the worker, so that ``serve`` voids them, says so, keeps the
line as each block's reason (shown on the organiser's page) and plays them again on the workers left; blocks of other
tasks are not touched. A block that fails on its own (a version that cannot be fetched or started there) voids that
block only. Workers may join and leave at any time; with none left, tasks wait in the scheduler's queue until one
joins.

The scheduler lost (killed, its machine gone): the Dask client cancels every task, so each block in play is voided
("the connection to the Dask scheduler ... was lost"), and it tries to reach the scheduler again for Dask's connect
timeout (``distributed.comm.timeouts.connect``), while the lanes wait. A scheduler back at that address in time:
the versions are shipped to it again and the blocks played again. Not back in time: ``ClusterGone`` is raised with
one line, and ``serve`` stops (every finished block is stored; the blocks in play are voided and played again at
the next start).
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

from referee.contest.schedule import TableBatch
from referee.ladder.botmanifest import BotManifest
from referee.ladder.errors import ClusterGone
from referee.ladder.intake import tree_digest
from referee.ladder.lanes import LaneLost, LaneSettings
from referee.ladder.lanes_ship import (
    BlockOut,
    BlocksJob,
    ShippedVersion,
    VersionShipError,
    pack,
    play_blocks_task,
    release,
    variable_name,
    worker_platform,
)
from referee.ladder.model import Version
from referee.ladder.platforms import platform_tag
from referee.runner.logfile import LogLevel, log_name
from referee.tournament.cluster import _client, _distributed, check_cluster_address, worker_threads
from referee.tournament.cluster_worker import BatchOut, ClusterError, WorkerSetupError
from referee.tournament.execute import PlayedGame

__all__ = ["BLOCKS_PER_TASK", "DaskLanes"]

#: Blocks one Dask task carries at most (and lanes per worker thread of the cluster at the start).
BLOCKS_PER_TASK = 8


@dataclass(eq=False)
class _Task:
    """A task as the lanes wait for it: ``finished`` when it is done or its worker is lost (``lost``); its blocks'
    outcomes fetched once (``outs`` or ``error``) by the first lane to look; forgotten when no lane waits for it;
    ``workers``: the only workers it may go to (None: any)."""

    key: str
    future: Any
    blocks: list[_Block]
    waiting: int
    workers: frozenset[str] | None = None
    finished: bool = False
    lost: str | None = None
    outs: tuple[BlockOut, ...] | None = None
    error: Exception | None = None
    fetch: trio.Lock = field(default_factory=trio.Lock)


@dataclass(eq=False)
class _Block:
    """A lane's block: its part of a task (``block``: games and versions), the task it went into and its place
    there, and ``done`` set when that task is finished."""

    block: tuple[TableBatch, tuple[ShippedVersion, ...]]
    task: _Task | None = None
    index: int = 0
    done: trio.Event = field(default_factory=trio.Event)


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
        #: This machine's platform tag: workers of another one build versions with a build command themselves.
        self.platform = platform_tag()
        #: The builds that failed on a worker during this serve, ``(digest, platform)``, and the line said then.
        self.unbuilt: dict[tuple[str, str], str] = {}
        self.client: Any = None
        self._stack = contextlib.ExitStack()
        self._token: trio.lowlevel.TrioToken | None = None
        self._shipped: dict[str, ShippedVersion] = {}
        self._shipping = trio.Lock()
        self._queue: list[_Block] = []  # blocks not yet in a task, oldest first
        self._tasks: dict[str, _Task] = {}  # tasks some lane waits for
        self._threads: dict[str, int] = {}  # the cluster's workers and their threads
        self._platforms: dict[str, str] = {}  # the cluster's workers and their platform tags
        self._counted = True  # False when a worker joined since ``_threads`` was read
        self._keys = itertools.count()
        self._lock = threading.Lock()
        #: Tasks and blocks handed to the cluster so far (blocks / tasks: how many a task carried on average).
        self.tasks_sent = 0
        self.blocks_sent = 0

    async def start(self) -> None:
        """Reach the cluster (``ClusterError`` in one line when it cannot be reached or has no worker)."""
        self._token = trio.lowlevel.current_trio_token()
        self.client = await trio.to_thread.run_sync(self._stack.enter_context, _client(self.address))
        await trio.to_thread.run_sync(self._count_threads)
        self.jobs = max(self.jobs, BLOCKS_PER_TASK * sum(self._threads.values()))
        self.client.subscribe_topic("all", self._event)

    def _count_threads(self) -> None:
        """Read the cluster's workers and their threads (in a thread: it asks the scheduler)."""
        self._counted = True
        with contextlib.suppress(Exception):
            self._threads = worker_threads(self.client)
        with contextlib.suppress(Exception):  # a worker that cannot say is sent no block it would have to build
            self._platforms = {str(a): str(tag) for a, tag in self.client.run(worker_platform).items()}

    async def aclose(self) -> None:
        client, self.client = self.client, None
        if client is None:
            return

        def released() -> None:
            with contextlib.suppress(Exception):
                client.run(release, self.run_key)
            with contextlib.suppress(Exception):
                client.unsubscribe_topic("all")

        await trio.to_thread.run_sync(released)
        self._stack.close()  # here, not in a thread: the client's close holds SIGINT and SIGTERM back meanwhile

    async def wanted(self) -> int:
        """``BLOCKS_PER_TASK`` lanes per worker thread of the cluster now (workers that joined since the last count
        are counted again, in a thread), or ``jobs`` when that is more."""
        if not self._counted and self.client is not None:
            await trio.to_thread.run_sync(self._count_threads)
            self._dispatch()  # a block waiting for a worker of another platform may go now
        self.jobs = max(self.jobs, BLOCKS_PER_TASK * sum(self._threads.values()))
        return self.jobs

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
                    variable = _distributed().Variable
                    variable(variable_name(one.digest), client=self.client).set(pack(folder))
                    kept = None if v.build is None or self.settings.source is None else self.settings.source(v)
                    if kept is not None and kept.is_file():  # for workers of other platforms, which build it
                        variable(variable_name(v.digest), client=self.client).set(kept.read_bytes())
                        one = replace(one, source=v.digest)
                    return one

                shipped = await trio.to_thread.run_sync(put)
                self._shipped[v.key] = shipped
            return shipped

    async def play(
        self, lane: int, batch: TableBatch, versions: Sequence[Version], games_dir: Path
    ) -> list[PlayedGame]:
        await self._connected()
        shipped = tuple([await self._ship(v) for v in versions])
        if not self._counted:
            await trio.to_thread.run_sync(self._count_threads)
        block = _Block((batch, shipped))
        self._queue.append(block)
        self._dispatch()
        try:
            await block.done.wait()
            task = block.task
            assert task is not None
            if task.lost is not None:
                raise LaneLost(task.lost)
            async with task.fetch:
                if task.outs is None and task.error is None:
                    try:
                        task.outs = await trio.to_thread.run_sync(self._outcome, task.future)
                        if len(task.outs) != len(task.blocks):
                            raise LaneLost(f"its worker sent back {len(task.outs)} blocks for {len(task.blocks)}")
                    except Exception as exc:  # every block of the task raises it
                        task.error = exc
            if task.error is not None:
                raise task.error
            assert task.outs is not None
            out = task.outs[block.index]
        finally:
            await self._leave(block)
        for digest, platform, said in out.unbuilt:
            self.unbuilt.setdefault((digest, platform), said)
        if out.error is not None:
            raise out.error
        if out.out is None:
            raise LaneLost(f"block {batch.batch}: its worker sent back nothing for it")
        if self.settings.clock is not None:
            self.settings.clock.add(out.bot_seconds)
        return self._take(out.out, batch, games_dir)

    async def _connected(self) -> None:
        """Return at once while the client is connected; while it reaches a lost scheduler again, wait; raise
        ``ClusterGone`` when it gave up."""
        if self.client.status == "running":
            return
        while self.client.status == "connecting":
            await trio.sleep(0.2)
        if self.client.status != "running":
            raise ClusterGone(
                f"the Dask scheduler at {self.address} is gone (not reached again within the connect timeout): "
                "serve stops; start the scheduler and serve again (the blocks in play are played again)"
            )
        self._shipped.clear()  # a new scheduler holds none of the versions shipped to the old one

    def _dispatch(self) -> None:
        """Hand the waiting blocks to new tasks while fewer tasks are in the scheduler's hands than the cluster has
        worker threads, plus one (so that a worker that finishes a task finds the next one there)."""
        slots = sum(self._threads.values()) + 1
        while self._queue and sum(not t.finished for t in self._tasks.values()) < slots:
            if not self.unbuilt:
                blocks, self._queue = self._queue[:BLOCKS_PER_TASK], self._queue[BLOCKS_PER_TASK:]
                workers = None
            else:
                blocks, workers = self._next_blocks()
                if not blocks:
                    return  # each block waiting needs a worker of another platform than the cluster has
            s = self.settings
            sources = {v.source for b in blocks for v in b.block[1]} if self.unbuilt else set()
            unbuilt = tuple((d, p, said) for (d, p), said in self.unbuilt.items() if d in sources)
            job = BlocksJob(
                self.run_key, tuple(b.block for b in blocks), s.runner, self.rules, s.keep, s.play, s.factory,
                self.platform, s.build, unbuilt,
            )  # fmt: skip
            key = f"referee-ladder-{self.run_key}-{blocks[0].block[0].batch}-{next(self._keys)}"
            future = self.client.submit(  # ``workers`` None: any worker (``allow_other_workers`` is then moot)
                play_blocks_task, job, key=key, pure=False,
                workers=None if workers is None else sorted(workers), allow_other_workers=False,
            )  # fmt: skip
            task = self._tasks[key] = _Task(key, future, blocks, len(blocks), workers)
            self.tasks_sent += 1
            self.blocks_sent += len(blocks)
            for i, b in enumerate(blocks):
                b.task, b.index = task, i
            future.add_done_callback(lambda _, key=key: self._wake(key))

    def _next_blocks(self) -> tuple[list[_Block], frozenset[str] | None]:
        """The next task's blocks, taken out of the queue, and the workers it may go to (None: any): up to
        ``BLOCKS_PER_TASK`` blocks any worker can play, or else one block with a version whose build failed on some
        platform, for the workers of the others (a block that no worker here can play stays in the queue)."""
        plain: list[_Block] = []
        for block in self._queue:
            workers = self._allowed(block)
            if workers is None:
                plain.append(block)
                if len(plain) == BLOCKS_PER_TASK:
                    break
            elif workers and not plain:
                self._queue.remove(block)
                return [block], workers
        for block in plain:
            self._queue.remove(block)
        return plain, None

    def _allowed(self, block: _Block) -> frozenset[str] | None:
        """The workers that can play ``block``: None (any) unless a build of one of its versions failed on some
        platform during this serve; then those of the other platforms."""
        sources = {v.source for v in block.block[1] if v.source is not None}
        avoid = {platform for digest, platform in self.unbuilt if digest in sources}
        if not avoid:
            return None
        return frozenset(w for w, tag in self._platforms.items() if tag not in avoid)

    async def _leave(self, block: _Block) -> None:
        """``block``'s lane no longer waits: out of the queue if it was never sent; its task forgotten (cancelled if
        still running) when no lane waits for it any more."""
        task = block.task
        if task is None:
            with contextlib.suppress(ValueError):
                self._queue.remove(block)
            return
        task.waiting -= 1
        if task.waiting > 0:
            return
        del self._tasks[task.key]
        self._dispatch()
        if not task.future.done():
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(self._cancel, task.future)
        task.future.release()

    @staticmethod
    def _cancel(future: Any) -> None:
        with contextlib.suppress(Exception):
            future.cancel()

    def _outcome(self, future: Any) -> tuple[BlockOut, ...]:
        """The finished task's blocks; its error as the ladder says it (``LaneLost`` for a task lost with every
        worker that ran it)."""
        status = future.status
        if status == "finished":
            return future.result()  # type: ignore[no-any-return]
        if status != "error":  # cancelled or lost: the scheduler forgot it (restarted, or this client cut off);
            # its error would be a CancelledError, which must not pass for a stop of serve
            if self.client.status != "running":
                raise LaneLost(f"the connection to the Dask scheduler at {self.address} was lost")
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
            task = self._tasks.get(key)
            if task is not None and not task.finished:
                self._finish(task)

        with contextlib.suppress(trio.RunFinishedError):
            trio.from_thread.run_sync(wake, trio_token=self._token)

    def _finish(self, task: _Task, lost: str | None = None) -> None:
        """(In trio.) ``task`` is done, or lost with its worker: its blocks' lanes wake, the next task may go."""
        task.finished, task.lost = True, lost
        for block in task.blocks:
            block.done.set()
        self._dispatch()

    def _event(self, event: tuple[float, Any]) -> None:
        """A scheduler event: a worker joined (its threads are counted at the next block), or one was removed (its
        threads no longer counted; the blocks of this ``serve`` that it played are lost)."""
        at, msg = event
        if not isinstance(msg, dict):
            return
        action, worker = msg.get("action"), str(msg.get("worker"))
        if action == "add-worker":
            self._counted = False
            return
        if action != "remove-worker":
            return
        prefix = f"referee-ladder-{self.run_key}-"
        keys = [str(k) for k in msg.get("processing-tasks") or () if str(k).startswith(prefix)]
        how = "retired" if msg.get("expected") else "lost"
        when = time.strftime("%H:%M:%S UTC", time.gmtime(float(at)))
        line = f"worker {worker} {how} at {when} while it played the block"

        def mark() -> None:
            self._threads.pop(worker, None)
            self._platforms.pop(worker, None)
            for key in keys:
                task = self._tasks.get(key)
                if task is not None and not task.finished:
                    self._finish(task, line)
            for task in list(self._tasks.values()):  # waiting for workers of which none is left: wait here
                if not task.finished and task.workers is not None and not task.workers & self._platforms.keys():
                    self._finish(task, f"worker {worker} {how} at {when}: no worker left that can build its versions")

        with contextlib.suppress(trio.RunFinishedError):
            trio.from_thread.run_sync(mark, trio_token=self._token)
