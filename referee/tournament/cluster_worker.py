"""The worker side of a cluster run: table batches played in Dask tasks, with bots kept alive on the worker.

``play_batches_task(jobs)`` is the function the coordinator submits: it plays its batches in turn, each with
``play_batch_task(job)``, which runs in the Dask worker thread and hands the batch to this process's *lane service*:
one background thread running trio, holding a ``PlayerPool`` per busy worker thread. A pool (and its bot processes)
outlives the task, so consecutive batches of a tournament on the same worker reuse the running bots, as the embedded
runner's lanes do; pools idle for ``IDLE_TIMEOUT`` seconds, or released by the coordinator at the end of its run
(``release_run``), are closed.

A run the coordinator stops (Ctrl-C, SIGTERM, a failed task: ``stop_run`` on every worker) stops within its tasks:
a game in progress is abandoned (its bots are closed), no later batch of the run is begun here, and each task
returns the games it finished, marked ``stopped``; the games not played are played by a later ``--resume``.

Nothing is written where the coordinator can see it: each game's log and the bots' new stderr output travel
back in the task's result (``BatchOut``), and the coordinator writes them into the results folder.

Before playing, the worker checks that every file the entrants need (their folder, program and script, as found
on the coordinator) exists here, and starts each entrant the coordinator could start once; either failing raises
``WorkerSetupError`` naming this worker and the entrant.
"""

from __future__ import annotations

import atexit
import contextlib
import itertools
import os
import shutil
import sys
import tempfile
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeVar

import trio

from referee.contest.pool import PlayerFactory, PlayerPool
from referee.contest.schedule import TableBatch
from referee.engine import Ruleset
from referee.runner import BotSpec, RunnerConfig
from referee.runner.layout import BOTS_DIR, GAMES_DIR
from referee.runner.logfile import LogLevel
from referee.tournament.errors import ClusterError as ClusterError
from referee.tournament.errors import WorkerSetupError as WorkerSetupError
from referee.tournament.execute import GameFn, PlayedGame, play_batch
from referee.tournament.params import EntrantInfo

__all__ = [
    "BatchJob",
    "BatchOut",
    "ClusterError",
    "GameOut",
    "WorkerSetupError",
    "local_spec",
    "play_batch_task",
    "play_batches_task",
    "release_run",
    "stop_run",
]

#: Seconds an idle pool of bots waits for another batch of its tournament before its bots are closed.
IDLE_TIMEOUT = 120.0
#: The worker's GIL switch interval (seconds). The lane thread does a little Python between many short pipe
#: reads and writes; at Python's default 5 ms, every wake-up can wait that long for the GIL held by the Dask
#: worker's own threads, which made games several times slower than in the embedded runner.
SWITCH_INTERVAL = 0.0002
#: Most bytes of one bot's stderr sent back with one batch (the runner caps the whole log anyway).
STDERR_CHUNK = 256 * 1024

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class BatchJob:
    """One task: a table batch, its entrants and everything needed to play it anywhere.

    ``python`` is the coordinator's interpreter: an entrant command starting with it starts with the worker's
    own interpreter instead. ``files`` lists, per entrant, the paths it needs (checked before playing);
    ``startable`` names the entrants the coordinator could start (a worker that cannot is misconfigured).
    ``keep`` is how many processes of an entrant a worker thread keeps (``PlayerPool``); ``playing``, when not
    empty, names the entrants of the batch's round: the worker closes its idle bots of any other entrant.
    ``play`` and ``factory`` replace the runner's ``play_game`` and ``Player`` (the tests' in-process bots).
    """

    run_key: str
    batch: TableBatch
    entrants: tuple[EntrantInfo, ...]
    config: RunnerConfig
    ruleset: dict[str, Any]
    skip: frozenset[str]
    python: str
    files: Mapping[str, tuple[str, ...]]
    startable: frozenset[str]
    keep: int = 1
    playing: frozenset[str] = frozenset()
    logs: LogLevel = LogLevel.FULL
    play: GameFn | None = None
    factory: PlayerFactory | None = None


@dataclass(frozen=True, slots=True)
class GameOut:
    """A finished game as sent back: ``played.result.log_path`` is None; ``log`` is the log file's bytes as
    written (compressed: ``referee.runner.logfile``), None when none was kept."""

    played: PlayedGame
    log: bytes | None


@dataclass(frozen=True, slots=True)
class BatchOut:
    """A played batch: its games in rotation order, and ``(entrant, lane label, bytes)`` of new bot stderr.
    ``stopped``: its run was stopped (``stop_run``) before the batch ended; ``games`` holds the games finished."""

    batch: int
    worker: str
    games: tuple[GameOut, ...]
    stderr: tuple[tuple[str, str, bytes], ...]
    stopped: bool = False


def local_spec(info: EntrantInfo, python: str) -> BotSpec:
    """The entrant's ``BotSpec`` on this machine: the coordinator's interpreter ``python`` becomes this one's."""
    argv = info.argv
    if argv and argv[0] == python:
        argv = (sys.executable, *argv[1:])
    return BotSpec(info.name, argv, Path(info.cwd or "."), dict(info.env))


def required_files(info: EntrantInfo, python: str) -> tuple[str, ...]:
    """What an entrant needs on every machine, as seen here: its folder and each argument naming an existing path
    (the program, the script), except the interpreter ``python`` (every worker uses its own)."""
    paths = [info.cwd] if info.cwd else []
    for i, word in enumerate(info.argv):
        if i == 0 and word == python:
            continue
        if os.path.isabs(word) and os.path.exists(word):
            paths.append(word)
    return tuple(paths)


def _check_files(job: BatchJob, worker: str) -> None:
    for info in job.entrants:
        for path in job.files.get(info.name, ()):
            if not os.path.exists(path):
                raise WorkerSetupError(
                    worker,
                    info.name,
                    f"{path} does not exist on this worker (entrants' files must be at the same absolute paths on "
                    "every worker: see docs/cluster.md)",
                )
        program = local_spec(info, job.python).argv[0]
        if os.sep in program:
            if not os.access(program, os.X_OK):
                raise WorkerSetupError(worker, info.name, f"program {program} is not executable on this worker")
        elif shutil.which(program) is None:
            raise WorkerSetupError(worker, info.name, f"program {program} is not on this worker's PATH")


def _worker_address() -> str:
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return f"pid {os.getpid()}"


class _Lanes:
    """The per-process lane service: a daemon thread running trio, and the pools of bots it keeps between tasks."""

    def __init__(self) -> None:
        self._token: trio.lowlevel.TrioToken | None = None
        self._ready = threading.Event()
        self._stop: trio.Event | None = None
        self._root = Path(tempfile.mkdtemp(prefix="referee-worker-"))
        self._lanes = itertools.count()
        self._idle: dict[str, list[tuple[PlayerPool, float]]] = {}
        self._specs: dict[str, dict[str, BotSpec]] = {}
        self._verified: dict[str, set[str]] = {}
        self._offsets: dict[Path, int] = {}
        self._playing: dict[str, set[trio.CancelScope]] = {}  # the batches in play, by run key (``halt`` cancels)
        sys.setswitchinterval(min(sys.getswitchinterval(), SWITCH_INTERVAL))
        self._thread = threading.Thread(target=trio.run, args=(self._main,), name="referee-lanes", daemon=True)
        self._thread.start()
        self._ready.wait()

    async def _main(self) -> None:
        self._token = trio.lowlevel.current_trio_token()
        self._stop = trio.Event()
        self._ready.set()
        async with trio.open_nursery() as nursery:
            nursery.start_soon(self._reap)
            await self._stop.wait()
            nursery.cancel_scope.cancel()
        for key in list(self._idle):
            await self.release(key)
        shutil.rmtree(self._root, ignore_errors=True)

    def call(self, fn: Callable[..., Awaitable[T]], *args: Any) -> T:
        """Run ``await fn(*args)`` in the service's trio thread; blocks this (non-trio) thread until it is done."""
        return trio.from_thread.run(fn, *args, trio_token=self._token)

    def call_sync(self, fn: Callable[..., T], *args: Any) -> T:
        """Run ``fn(*args)`` in the service's trio thread; blocks this (non-trio) thread until it is done."""
        return trio.from_thread.run_sync(fn, *args, trio_token=self._token)

    def stop(self) -> None:
        """Close every pool's bots and end the thread (at interpreter exit)."""
        if self._stop is not None and self._thread.is_alive():
            with contextlib.suppress(trio.RunFinishedError):
                trio.from_thread.run_sync(self._stop.set, trio_token=self._token)
            self._thread.join(timeout=30)

    async def _reap(self) -> None:
        while True:
            await trio.sleep(min(10.0, IDLE_TIMEOUT))
            now = time.monotonic()
            for key, pools in list(self._idle.items()):
                stale = [p for p, since in pools if now - since > IDLE_TIMEOUT]
                self._idle[key] = [(p, since) for p, since in pools if now - since <= IDLE_TIMEOUT]
                for pool in stale:
                    await pool.aclose()

    async def release(self, key: str) -> None:
        """Close the idle bots of run ``key`` and forget it (its running batches, if any, finish first)."""
        pools = self._idle.pop(key, [])
        self._playing.pop(key, None)
        self._specs.pop(key, None)
        self._verified.pop(key, None)
        for pool, _ in pools:
            await pool.aclose()
        shutil.rmtree(self._root / key, ignore_errors=True)

    def halt(self, key: str) -> None:
        """Abandon the games in play of run ``key`` (``stop_run`` has marked it stopped: none is begun after)."""
        for scope in self._playing.get(key, ()):
            scope.cancel()

    async def play(self, job: BatchJob, worker: str) -> BatchOut:
        """Play ``job``'s batch with a pool of the run's idle bots (or a new one): its finished games, stopped
        early (``BatchOut.stopped``) when the run is stopped. Raises ``WorkerSetupError`` (``_verify``)."""
        if job.run_key in _stopped:  # checked, and the batch registered below, before the first await: no ``halt``
            return BatchOut(job.batch.batch, worker, (), (), stopped=True)  # of the run can come in between
        specs = self._specs.setdefault(job.run_key, {})
        for info in job.entrants:
            specs[info.name] = local_spec(info, job.python)
        idle = self._idle.setdefault(job.run_key, [])
        if idle:
            pool, _ = idle.pop()
        else:
            lane = next(self._lanes)
            bots = self._root / job.run_key / str(lane) / BOTS_DIR
            pool = PlayerPool(
                specs, job.config, bots, lane, factory=job.factory, keep=job.keep, freeze_idle=job.config.freeze
            )  # a ladder's bots are frozen between their games (``RunnerConfig.freeze``), a tournament's are not
        games_dir = pool.bots_dir.parent / GAMES_DIR
        games_dir.mkdir(parents=True, exist_ok=True)
        games: list[GameOut] = []

        def collect(played: PlayedGame) -> None:
            log = None
            path = played.result.log_path
            if path is not None:
                with contextlib.suppress(OSError):
                    log = Path(path).read_bytes()
                    Path(path).unlink()
            games.append(GameOut(replace(played, result=replace(played.result, log_path=None)), log))

        in_play = self._playing.setdefault(job.run_key, set())
        with trio.CancelScope() as scope:
            in_play.add(scope)
            try:
                if job.playing:
                    await pool.retire(job.playing)
                await self._verify(job, pool, worker)
                await play_batch(
                    job.batch,
                    pool,
                    ruleset=Ruleset.from_dict(job.ruleset),
                    games_dir=games_dir,
                    logs=job.logs,
                    skip=job.skip,
                    on_game=collect,
                    play=job.play,
                )
            except BaseException:
                await pool.aclose()  # shielded: a game abandoned by ``halt`` leaves no bot behind
                raise
            finally:
                in_play.discard(scope)
        stderr = self._new_stderr(pool, job.batch.entrants, worker)
        if scope.cancelled_caught:
            return BatchOut(job.batch.batch, worker, tuple(games), stderr, stopped=True)
        self._idle.setdefault(job.run_key, []).append((pool, time.monotonic()))
        return BatchOut(job.batch.batch, worker, tuple(games), stderr)

    async def _verify(self, job: BatchJob, pool: PlayerPool, worker: str) -> None:
        """Start, once per worker, each entrant of the batch that the coordinator could start."""
        verified = self._verified.setdefault(job.run_key, set())
        for name in job.batch.entrants:
            if name in verified or name not in job.startable:
                continue
            player: Any = pool.get(name)  # a ``Player``, or one wrapped by the ladder's bot clock (read through)
            await player.ensure_started()
            fault = player.startup_fault
            if fault is not None:
                detail = fault.detail
                raise WorkerSetupError(
                    worker, name, f"cannot start the bot here ({detail}), though the coordinator could start it"
                )
            verified.add(name)

    def _new_stderr(self, pool: PlayerPool, names: tuple[str, ...], worker: str) -> tuple[tuple[str, str, bytes], ...]:
        label = worker.split("://")[-1].replace(":", "-").replace("/", "-") + f"-{pool.lane}"
        out = []
        for name in names:
            path = pool.bots_dir / f"{name}.{pool.lane}.log"
            start = self._offsets.get(path, 0)
            try:
                with open(path, "rb") as f:
                    f.seek(start)
                    data = f.read(STDERR_CHUNK)
            except OSError:
                continue
            if data:
                self._offsets[path] = start + len(data)
                out.append((name, label, data))
        return tuple(out)


_service: _Lanes | None = None
_service_lock = threading.Lock()
_checked: set[tuple[str, str]] = set()
#: The run keys the coordinator stopped (``stop_run``): no batch of theirs is begun here any more. (A key is 32 hex
#: digits, one a stopped run: kept for the worker's life, so that no late task of a stopped run plays.)
_stopped: set[str] = set()


def _lanes() -> _Lanes:
    global _service
    with _service_lock:
        if _service is None:
            _service = _Lanes()
            atexit.register(_service.stop)
        return _service


def play_batch_task(job: BatchJob) -> BatchOut:
    """Play ``job``'s batch on this worker (the function a Dask task runs); once its run is stopped (``stop_run``),
    only until then: the games finished, ``BatchOut.stopped``.

    Raises ``WorkerSetupError`` when an entrant's files are missing here or its bot cannot start here although
    it starts on the coordinator; bot faults are recorded forfeits in the results, as in a local run.
    """
    worker = _worker_address()
    if any((job.run_key, e.name) not in _checked for e in job.entrants):
        _check_files(job, worker)
        _checked.update((job.run_key, e.name) for e in job.entrants)
    return _lanes().call(_lanes().play, job, worker)


def play_batches_task(jobs: tuple[BatchJob, ...]) -> tuple[tuple[BatchOut, ...], Exception | None]:
    """Play ``jobs`` in turn on this worker (one Dask task carrying several batches, so that the task's own cost to
    the coordinator is shared): the batches played, and the error that stopped the task, if any (its later batches
    not played). The errors are ``play_batch_task``'s. Once the run is stopped (``stop_run``) the task ends after
    the batch in play, which comes back with the games it finished (``BatchOut.stopped``)."""
    outs: list[BatchOut] = []
    for job in jobs:
        try:
            out = play_batch_task(job)
        except Exception as exc:  # the batches before it are played: their games are handed on all the same
            return tuple(outs), exc
        outs.append(out)
        if out.stopped:
            break
    return tuple(outs), None


def stop_run(run_key: str) -> None:
    """Stop the run ``run_key`` on this worker (the coordinator calls it on every worker when the run stops): its
    games in progress are abandoned and its batches not begun are not played (``play_batches_task``)."""
    with _service_lock:
        _stopped.add(run_key)
        service = _service
    if service is not None:
        with contextlib.suppress(trio.RunFinishedError):
            service.call_sync(service.halt, run_key)


def release_run(run_key: str) -> None:
    """Close this worker's idle bots of the run ``run_key`` (the coordinator calls it on every worker at the end)."""
    if _service is not None:
        with contextlib.suppress(trio.RunFinishedError):
            _service.call(_service.release, run_key)
