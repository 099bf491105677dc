"""Running a tournament's table batches on a Dask cluster (``referee run --cluster ADDRESS``).

The coordinator (this process) connects to a Dask scheduler — or starts a ``LocalCluster`` for ``local:N`` — and
hands the pending games (one-game table batches, in ``rotation_order``: a bot process never plays a deal twice) to
``cluster_worker.play_batches_task``, up to ``GAMES_PER_TASK`` to a task, two tasks in play per worker thread, never
two games of one deal in play at once; it takes the results as they complete: it writes each game's log to
``DIR/games/``, appends the bots' stderr to ``DIR/bots/`` and hands the game to ``on_game`` (which commits it to the
results store, keyed by game id). Dask re-runs a batch lost with a dead worker on another one; a batch's games reach
``on_game`` once, and the store ignores a game id it holds.

When the run stops with tasks in play (Ctrl-C or SIGTERM, a failed task), the coordinator stops the run on every
worker (``cluster_worker.stop_run``): each task abandons its game in progress and comes back with the games it
finished, which are stored before ``Stopped`` (or the task's error) is raised. The coordinator waits for tasks on a
queue of its own (``_Arrivals``) that a signal wakes; it stops there (``StopGate.check``), never in the middle of
handing on a task's games, so no game is stored in part, and never inside library code that could swallow the stop.

Entrants' files must be at the same absolute paths on every worker (a shared or synchronised folder); each worker
uses its own Python for ``.py`` bots. Dask is optional: without it, ``check_cluster_address`` raises
``ClusterError`` saying how to install it.
"""

from __future__ import annotations

import importlib
import logging
import os
import queue
import re
import sys
import threading
import uuid
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, replace
from typing import Any

import trio

from referee.contest.play_order import rotation_order
from referee.contest.schedule import TableBatch
from referee.contest.workers_lost import WorkerLost
from referee.runner import BotSpecError, Player, RunnerConfig
from referee.runner.logfile import log_name
from referee.runner.stopping import StopGate, signals_deferred, stopped_by_signals
from referee.tournament.cluster_worker import (
    BatchJob,
    BatchOut,
    ClusterError,
    WorkerSetupError,
    play_batches_task,
    release_run,
    required_files,
    stop_run,
)
from referee.tournament.execute import PlaySetup, Rounds, lane_folders
from referee.tournament.params import EntrantInfo

__all__ = ["ClusterError", "DaskExecutor", "WorkerSetupError", "check_cluster_address", "worker_threads"]

_LOCAL = re.compile(r"local:(\d+)")
#: What a task returns (``play_batches_task``): its batches played, and the error that ended it, if any.
TaskOut = tuple[tuple[BatchOut, ...], Exception | None]
#: One-game batches a Dask task carries at most: a task costs the coordinator far more CPU than a game's result, so
#: while games are to spare each task carries several (fewer as the round ends, so that every worker has work).
GAMES_PER_TASK = 16
#: How many waiting games past the first a task looks through for games whose deal is not in play.
LOOKAHEAD = 64
#: Seconds the tasks in play have to come back once the run is stopped on the workers (each abandons its game in
#: progress and closes that game's bots, a bot's grace at most), and to fetch a finished task's result (its worker
#: may be gone): what does not come back in time is played again on resume.
GATHER_TIMEOUT = 30.0
#: How many entrants the coordinator starts at once when it checks which of them can start at all.
PROBE_AT_ONCE = 8
#: A ``LocalCluster``'s ports: no dashboard, and the scheduler's small HTTP server (health, metrics) on a free port
#: of 127.0.0.1. Without ``scheduler_kwargs`` the scheduler asks for 8787 and, when another cluster holds it, warns
#: on stderr and takes another one anyway.
LOCAL_PORTS: dict[str, Any] = {
    "dashboard_address": None,
    "scheduler_kwargs": {"dashboard": False, "dashboard_address": "127.0.0.1:0"},
}


def _distributed() -> Any:
    """The ``distributed`` module (raises ``ImportError`` when Dask is not installed)."""
    return importlib.import_module("distributed")


def check_cluster_address(address: str) -> None:
    """Raise ``ClusterError`` unless Dask distributed is installed and ``address`` is ``local:N`` (N ≥ 1) or a
    scheduler address (``tcp://host:port``, ``host:port``)."""
    try:
        _distributed()
    except ImportError:
        raise ClusterError(
            "--cluster needs Dask distributed, which is not installed: install 'referee[cluster]' "
            "(pip install 'referee[cluster]')"
        ) from None
    local = _LOCAL.fullmatch(address)
    if local is not None:
        if int(local.group(1)) < 1:
            raise ClusterError(f"--cluster {address}: a local cluster needs at least 1 worker (local:2)")
        return
    if address.startswith("local"):
        raise ClusterError(f"--cluster {address}: write local:N for N workers on this machine (e.g. local:2)")
    if ":" not in address:
        raise ClusterError(f"--cluster {address}: give the scheduler's address, e.g. tcp://host:8786, or local:N")


def connect_timeout() -> float:
    """Seconds to reach the scheduler: Dask's ``distributed.comm.timeouts.connect`` (env
    ``DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT``)."""
    dask: Any = importlib.import_module("dask")
    return float(dask.utils.parse_timedelta(dask.config.get("distributed.comm.timeouts.connect"), default="s"))


@contextmanager
def _client(address: str) -> Iterator[Any]:
    """A Dask client of ``address`` with at least one worker; a ``LocalCluster`` of N processes for ``local:N``."""
    dd = _distributed()

    timeout = connect_timeout()
    local = _LOCAL.fullmatch(address)
    cluster = None
    if local is not None:
        dask: Any = importlib.import_module("dask")
        # The workers' statistical profiler samples every thread each 10 ms: CPU the bots need on one machine.
        # A worker holds a second batch while it plays one, so it never waits for the scheduler between batches.
        settings = {"distributed.worker.profile.enabled": False, "distributed.scheduler.worker-saturation": 2.0}
        with dask.config.set(settings):
            cluster = dd.LocalCluster(
                n_workers=int(local.group(1)),
                threads_per_worker=1,
                processes=True,
                silence_logs=logging.CRITICAL,
                **LOCAL_PORTS,
            )
        client = dd.Client(cluster)
    else:
        try:
            client = dd.Client(address, timeout=timeout)
        except (OSError, TimeoutError) as e:
            raise ClusterError(
                f"cannot reach the Dask scheduler at {address} within {timeout:g} s ({e}); "
                f"is `dask scheduler` running there? (the timeout is DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT)"
            ) from None
    try:
        try:
            client.wait_for_workers(1, timeout=timeout)
        except (OSError, TimeoutError):
            raise ClusterError(
                f"the Dask scheduler at {address} has no workers after {timeout:g} s: start some with "
                f"`dask worker {address}`"
            ) from None
        yield client
    finally:
        with signals_deferred():
            client.close()
            if cluster is not None:
                cluster.close()


def startable_entrants(entrants: Sequence[EntrantInfo], config: RunnerConfig) -> frozenset[str]:
    """The entrants whose bots start and say hello on this machine (each is started once, then closed)."""
    ok: set[str] = set()
    limiter = trio.CapacityLimiter(PROBE_AT_ONCE)

    async def probe(info: EntrantInfo) -> None:
        async with limiter:
            try:
                player = Player(info.to_spec(), config, None)
            except BotSpecError:  # e.g. --sandbox bwrap without bubblewrap here: not startable here
                return
            try:
                await player.ensure_started()
                if player.startup_fault is None:
                    ok.add(info.name)
            finally:
                await player.aclose()

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            for info in entrants:
                nursery.start_soon(probe, info)

    trio.run(main)
    return frozenset(ok)


class _Writer:
    """Writes what comes back from workers into the results folder and hands each game to ``on_game`` once."""

    def __init__(self, setup: PlaySetup):
        self.games_dir, self.bots_dir = lane_folders(setup)
        self.on_game = setup.on_game
        self.seen = set(setup.finished)
        self.logs = setup.logs

    def take(self, out: BatchOut) -> None:
        for entrant, label, data in out.stderr:
            with open(self.bots_dir / f"{entrant}.{label}.log", "ab") as f:
                f.write(data)
        for g in out.games:
            game_id = g.played.game.game_id
            if game_id in self.seen:
                continue
            played = g.played
            name = log_name(game_id, self.logs)
            if g.log is not None and name is not None:
                path = self.games_dir / name
                part = path.with_name(name + ".part")
                part.write_bytes(g.log)
                os.replace(part, path)
                played = replace(played, result=replace(played.result, log_path=path))
            self.on_game(played)
            self.seen.add(game_id)


@dataclass(frozen=True)
class DaskExecutor:
    """Plays on the Dask cluster at ``address`` (a scheduler's, or ``local:N`` for N worker processes here)."""

    address: str

    def run(self, setup: PlaySetup, rounds: Rounds) -> None:
        """``Executor.run``; also raises ``ClusterError`` for a missing Dask, an unreachable scheduler, a scheduler
        without workers, or a batch lost with the workers that ran it, and ``WorkerSetupError`` for a worker
        without an entrant's files or unable to start its bot. Before raising, the games of every batch already
        completed are handed on.

        Every round is played on one cluster under one run key, so the workers keep their bots up from round to
        round (up to ``setup.keep`` processes per entrant and worker thread, see ``PlayerPool``) and close the
        idle bots of entrants a round leaves out; every game of a completed batch reaches ``setup.on_game``
        exactly once (finished games never), in the order the batches complete. Stopped (``Stopped``: SIGINT or
        SIGTERM) or failed with tasks in play, it first hands on every game those tasks finished (see the module's
        docstring)."""
        check_cluster_address(self.address)
        batches = rounds()
        if not batches:
            return
        writer = _Writer(setup)
        with stopped_by_signals() as gate, ThreadPoolExecutor(1) as pool, ExitStack() as stack:
            probe = pool.submit(startable_entrants, setup.entrants, setup.config)  # runs while the cluster comes up
            with gate.interruptible():  # reaching the scheduler may take its connect timeout: Ctrl-C stops it
                client = stack.enter_context(_client(self.address))
                startable = probe.result()
            run = _Run(client, setup, startable, writer, gate)
            try:
                while batches:
                    run.play(batches)
                    batches = rounds()
            finally:
                run.release()
            gate.check()


class _Arrivals:
    """The tasks of a round as they complete, each with its result: Dask's ``as_completed`` read by a thread of
    its own into a queue, on which the coordinator waits. A signal's handler puts a wake-up there (``wake``), so the
    coordinator's wait ends at once, in its own code (``StopGate``)."""

    def __init__(self) -> None:
        self._completed = _distributed().as_completed(with_results=True, raise_errors=False)
        self._queue: queue.SimpleQueue[tuple[Any, Any] | BaseException | None] = queue.SimpleQueue()
        self._closed = threading.Event()
        threading.Thread(target=self._pump, name="referee-arrivals", daemon=True).start()

    def add(self, future: Any) -> None:
        """Watch ``future``: it comes out of ``get`` once it is done."""
        self._completed.add(future)

    def get(self) -> tuple[Any, TaskOut] | None:
        """The next task done and what it returned (the future's result, fetched), waiting for one; None once
        ``wake`` was called. Raises what the reading thread met (a referee bug)."""
        item = self._queue.get()
        if isinstance(item, BaseException):
            raise item
        return item

    def wake(self) -> None:
        """End the ``get`` in progress (or the next one) with None; safe in a signal handler."""
        self._queue.put(None)

    def close(self) -> None:
        """Stop the reading thread (within 10 ms once no task it watches is in play)."""
        self._closed.set()

    def _pump(self) -> None:
        try:
            while not self._closed.is_set():
                try:
                    item = next(self._completed)
                except StopIteration:  # none in play right now: the round may submit more
                    self._closed.wait(0.01)
                    continue
                self._queue.put(item)
        except BaseException as exc:  # handed to the waiting coordinator, which raises it
            self._queue.put(exc)


class _Run:
    """One run on a cluster: its client, its run key (the workers keep its bots under that key) and what every
    task needs; ``play`` plays one round."""

    def __init__(
        self, client: Any, setup: PlaySetup, startable: frozenset[str], writer: _Writer, gate: StopGate
    ) -> None:
        self.client = client
        self.gate = gate
        self.setup = setup
        self.startable = startable
        self.writer = writer
        self.python = sys.executable
        self.by_name = {e.name: e for e in setup.entrants}
        self.files: Mapping[str, tuple[str, ...]] = {e.name: required_files(e, self.python) for e in setup.entrants}
        self.run_key = uuid.uuid4().hex
        self.rules = setup.ruleset.to_dict()
        self._lost: list[WorkerLost] = []  # filled by the client's thread (``_event``), emptied by ``_report_lost``
        self._lost_lock = threading.Lock()
        self._tables: dict[str, tuple[str, ...]] = {}  # the game ids of each task in play, by task key
        self._threads = 1  # the cluster's worker threads, as last counted
        self._recount = True  # a worker joined or left since: count them again
        with suppress(Exception):  # a scheduler that keeps no event log: losses go unreported, nothing else changes
            client.subscribe_topic("all", self._event)

    def _event(self, event: tuple[float, Any]) -> None:
        """A scheduler event: a worker removed while tables of this run were on it is a ``WorkerLost``."""
        at, msg = event
        if not isinstance(msg, dict) or msg.get("action") not in ("add-worker", "remove-worker"):
            return
        self._recount = True
        if msg.get("action") == "add-worker":
            return
        prefix = f"referee-{self.run_key}-"
        keys = sorted(str(k) for k in msg.get("processing-tasks") or () if str(k).startswith(prefix))
        tables = tuple(t for k in keys for t in self._tables.get(k, (k[len(prefix) :],)))
        lost = WorkerLost(str(msg.get("worker")), float(at), tables, bool(msg.get("expected")))
        with self._lost_lock:
            self._lost.append(lost)

    def _report_lost(self) -> None:
        """Hand the workers lost since the last call to ``setup.on_lost`` (with the workers left now)."""
        with self._lost_lock:
            lost, self._lost = self._lost, []
        if not lost or self.setup.on_lost is None:
            return
        left: int | None = None
        with suppress(Exception):
            left = len(self.client.scheduler_info()["workers"])
        for one in lost:
            self.setup.on_lost(replace(one, left=left))

    def play(self, batches: Sequence[TableBatch]) -> None:
        """Play one round: its games in ``rotation_order`` (the workers keep their bots up across tasks, and start a
        bot only when none of its processes may meet the deal), up to ``GAMES_PER_TASK`` to a task, with at most
        ``_slots()`` tasks in play and never two games of one deal in play at once (``_take_units``); hand each
        completed task's games to the writer and submit the next. Raises the first failed batch's error, or
        ``Stopped``, after handing on the games of the tasks completed and of those in play (``_wind_down``)."""
        skip = self.setup.finished
        units = rotation_order(batches)
        playing = frozenset(n for u in units for n in u.entrants)
        waiting = deque(u for u in units if not all(g.game_id in skip for g in u.games))
        in_play: dict[str, tuple[Any, frozenset[int]]] = {}  # task key -> its future and its deals
        dealt: set[int] = set()  # the deals of the tasks in play
        arrivals = _Arrivals()
        failure: BaseException | None = None

        def submit() -> None:
            slots = self._slots()
            while waiting and len(in_play) < slots:
                size = max(1, min(GAMES_PER_TASK, len(waiting) // slots))
                chosen = _take_units(waiting, dealt, size)
                if not chosen:
                    return  # every game near the front is of a deal in play: wait for a task to end
                key = f"referee-{self.run_key}-{chosen[0].games[0].game_id}"
                jobs = tuple(self._job(u, playing) for u in chosen)
                self._tables[key] = tuple(g.game_id for u in chosen for g in u.games)
                future = self.client.submit(play_batches_task, jobs, key=key, pure=False)
                deals = frozenset(u.batch for u in chosen)
                in_play[key] = (future, deals)
                dealt.update(deals)
                arrivals.add(future)

        def take(future: Any, out: TaskOut) -> Exception | None:
            outs, error = out
            for one in outs:
                self.writer.take(one)
            future.release()  # a result taken is never needed again: not even if the worker holding it dies
            return error

        try:
            with self.gate.waking(arrivals.wake):
                self.gate.check()
                submit()
                while in_play:
                    arrived = arrivals.get()  # a signal wakes it (None): ``check`` stops the run here
                    self.gate.check()
                    if arrived is None:
                        continue
                    future, out = arrived
                    self._report_lost()
                    _, deals = in_play.pop(future.key)
                    dealt.difference_update(deals)
                    self._tables.pop(future.key, None)
                    if future.status != "finished":
                        failure = _failure(future)
                        break
                    failure = take(future, out)
                    if failure is not None:
                        break
                    submit()
        finally:
            arrivals.close()
            with signals_deferred():
                self._wind_down([f for f, _ in in_play.values()], take)
            self._report_lost()
        if failure is not None:
            raise failure

    def _wind_down(self, futures: list[Any], take: Callable[[Any, TaskOut], Exception | None]) -> None:
        """The round ends early with ``futures`` in play: stop the run on every worker (``stop_run``: each task ends
        after abandoning its game in progress, with the games it finished), wait up to ``GATHER_TIMEOUT`` for them,
        cancel those not back (their games are played again on resume) and ``take`` the games of the rest."""
        if not all(f.done() for f in futures):
            with suppress(Exception):  # the scheduler or a worker is gone: what cannot come back is played on resume
                self.client.run(stop_run, self.run_key, on_error="ignore")
            with suppress(Exception):  # TimeoutError: some did not come back in time
                _distributed().wait(futures, timeout=GATHER_TIMEOUT)
            self.client.cancel([f for f in futures if not f.done()])
        for f in futures:
            if f.status == "finished":
                with suppress(Exception):  # its worker may have died since: then it is played on resume
                    take(f, f.result(timeout=GATHER_TIMEOUT))

    def _job(self, unit: TableBatch, playing: frozenset[str]) -> BatchJob:
        """The ``BatchJob`` of a one-game batch of the round whose entrants are ``playing``."""
        names = unit.entrants
        skip = self.setup.finished
        return BatchJob(
            run_key=self.run_key,
            batch=unit,
            entrants=tuple(self.by_name[n] for n in names),
            config=self.setup.config,
            ruleset=self.rules,
            skip=frozenset(g.game_id for g in unit.games if g.game_id in skip),
            python=self.python,
            files={n: self.files[n] for n in names},
            startable=self.startable & set(names),
            keep=self.setup.keep,
            playing=playing,
            logs=self.setup.logs,
        )

    def _slots(self) -> int:
        """How many tasks to keep in play: two per worker thread of the cluster (so that a worker that ends a task
        has the next one at hand), counted again after a worker joined or left."""
        if self._recount:
            self._recount = False
            with suppress(Exception):  # the scheduler is gone: the tasks in play fail and say so
                self._threads = sum(worker_threads(self.client).values())
        return 2 * max(1, self._threads)

    def release(self) -> None:
        """Ask every worker to close the run's idle bots (best effort: idle bots also close themselves later)."""
        with signals_deferred(), suppress(Exception):
            self.client.run(release_run, self.run_key)
        with suppress(Exception):  # else the scheduler sends this client's own removal to it as it closes, and logs
            self.client.unsubscribe_topic("all")  # the closed connection as an error


def _take_units(waiting: deque[TableBatch], dealt: set[int], size: int) -> list[TableBatch]:
    """Take from the front of ``waiting`` (within ``LOOKAHEAD``) up to ``size`` one-game batches in order, each of
    a deal neither in ``dealt`` (in play) nor taken already: so two rotations of one deal are never played at the
    same time, and a task never brings a worker's bots one deal twice. The rest keep their order."""
    chosen: list[TableBatch] = []
    passed: list[TableBatch] = []
    deals: set[int] = set()
    while waiting and len(chosen) < size and len(passed) <= LOOKAHEAD:
        unit = waiting.popleft()
        if unit.batch in dealt or unit.batch in deals:
            passed.append(unit)
        else:
            chosen.append(unit)
            deals.add(unit.batch)
    waiting.extendleft(reversed(passed))
    return chosen


def worker_threads(client: Any) -> dict[str, int]:
    """The cluster's workers (by address) and their threads, as the scheduler counts them now (it asks the scheduler:
    call it outside the event loop; raises what the client raises when the scheduler cannot be reached)."""
    workers = client.scheduler_info()["workers"]
    return {str(address): int(w.get("nthreads", 1)) for address, w in workers.items()}


def _failure(future: Any) -> BaseException:
    """What to raise for a failed batch future: the worker's setup error, a lost batch, or a referee bug."""
    killed_worker = _distributed().KilledWorker
    exc = future.exception()
    if isinstance(exc, WorkerSetupError | ClusterError):
        return exc
    if isinstance(exc, killed_worker):
        return ClusterError(
            f"table batch {future.key.rsplit('-', 1)[-1]} was lost with every worker that ran it ({exc}); "
            "finished games are saved"
        )
    return exc if exc is not None else ClusterError(f"table batch {future.key} was cancelled by the scheduler")
