"""Lanes in worker processes: ``LocalExecutor`` with ``jobs`` >= 2 plays each lane in a process of its own.

One process running every lane is one core's worth of referee: with four bots answering at once it is the
referee's CPU that bounds the games per second. So ``run_in_workers`` forks one worker per lane before trio starts
(a copy-on-write copy of the interpreter with everything imported), and each worker runs its own trio loop with
its lane's ``PlayerPool``: it plays the games it is sent (``play_batch``; game logs and bot stderr go where the
lanes write them in one process) and sends each finished game back. This process keeps everything else: the
``DealQueue`` (two rotations of one deal never run at once), the rounds of a race, storing each finished game as
it arrives (``setup.on_game``), the live display.

``DealQueue.take(fits)`` needs each lane's pool: the worker reports which of its processes played each game and
which it closed (``PoolReport``, in its ``Done``), and this process follows them (``PoolView``), so ``fits`` is
the worker's pool's own answer.

The two sides speak over a socket pair (``lane_channel``: typed messages): one message each way per table batch
(``Play``, then ``Done`` with the finished games), ``Retire`` between rounds, ``Stop`` at the end (the worker
abandons a game in progress, closes its bots, answers ``Bye`` with its own CPU time and exits). A worker that fails
sends ``Failed`` with the exception, which is raised here. Each lane's life is a ``LaneState``.

Lifecycles:

- SIGINT or SIGTERM: this process stops as with lanes of its own (``run_until_stopped``); the workers ignore both
  (a terminal's Ctrl-C reaches the whole process group) and are stopped by it, so a finished game is stored,
  even one that ends while the workers are being stopped, and every bot is closed before ``Stopped`` is raised.
- ``kill -9`` of this process: each worker dies with it (the parent-death signal, as a bot has), and its bots
  with the worker.
- A worker that dies (a referee bug, the out-of-memory killer): ``LaneError`` names the lane and how it ended;
  the other lanes are stopped, the finished games are stored already, and the dead worker's bots died with it.

Each worker's own CPU time is counted (``workers_cpu_seconds``): getrusage of this process counts the workers
among its children, together with their bots.
"""

from __future__ import annotations

import contextlib
import gc
import math
import os
import pickle
import resource
import signal
import socket
import sys
import traceback
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from enum import Enum
from functools import partial

import trio

from referee.contest.lane_channel import Bye, Channel, Done, Failed, Play, Retire, Stop, ToWorker
from referee.contest.pool import PlayerFactory, PlayerPool, PoolView
from referee.contest.schedule import ScheduledGame, TableBatch
from referee.runner import Stopped, run_until_stopped
from referee.runner.limits import die_with_parent
from referee.runner.stopping import SIGNALS
from referee.tournament.errors import LaneError
from referee.tournament.execute import (
    STORAGE_FAILURES,
    GameFn,
    PlayedGame,
    PlaySetup,
    Rounds,
    lane_folders,
    lane_pool,
    play_batch,
    play_lanes,
)

__all__ = ["LaneState", "run_in_workers", "run_lane", "workers_cpu_seconds"]

#: Seconds a worker has to close its bots and exit once told to stop, beyond the bots' own grace (twice theirs:
#: bye, then TERM): after that it is killed (its bots die with it).
STOP_MARGIN = 10.0

#: CPU seconds (user + system) of every worker that has ended in this process, as each reported it.
_worker_cpu: list[float] = []


def workers_cpu_seconds() -> float:
    """The CPU time of the lane workers that have ended in this process: their own, not their bots'."""
    return sum(_worker_cpu)


@dataclass
class Worker:
    """A forked lane worker as this process sees it: its lane number, process id and socket."""

    lane: int
    pid: int
    sock: socket.socket
    status: int | None = None  # os.waitpid's status once reaped
    killed: bool = False  # ended by ``kill`` while still running

    def poll(self) -> bool:
        """Reap the worker if it has exited; True once it is reaped."""
        if self.status is None:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self.status = status
        return self.status is not None

    def kill(self) -> None:
        """End the worker now if it is still running (its bots die with it), and reap it."""
        if not self.poll():
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGKILL)
            self.killed = True
            self.status = os.waitpid(self.pid, 0)[1]

    async def reap(self, deadline: float) -> None:
        """Wait until the worker has exited, killing it at ``deadline``, and reap it."""
        with trio.move_on_at(deadline):
            try:
                pidfd = os.pidfd_open(self.pid)
            except (AttributeError, OSError):
                while not self.poll():
                    await trio.sleep(0.01)
            else:
                try:
                    await trio.lowlevel.wait_readable(pidfd)
                finally:
                    trio.lowlevel.notify_closing(pidfd)
                    os.close(pidfd)
        self.kill()

    def unexpected_end(self) -> LaneError:
        """The error of the reaped worker that ended on its own."""
        return LaneError(f"the worker process of lane {self.lane} (pid {self.pid}) ended unexpectedly: {self.ending()}")

    def ending(self) -> str:
        """How the reaped worker ended, in words."""
        status = self.status or 0
        if os.WIFSIGNALED(status):
            number = os.WTERMSIG(status)
            try:
                name = signal.Signals(number).name
            except ValueError:
                name = str(number)
            return f"killed by signal {name}" + (" (the out-of-memory killer sends it)" if name == "SIGKILL" else "")
        return f"exit status {os.WEXITSTATUS(status)}"


def run_in_workers(
    setup: PlaySetup,
    rounds: Rounds,
    jobs: int,
    *,
    fresh: bool = False,
    play: GameFn | None = None,
    factory: PlayerFactory | None = None,
) -> None:
    """``Executor.run`` with each of ``jobs`` lanes in a worker process forked from this one (``play`` and
    ``factory`` as ``LocalExecutor``'s, used in the workers). Call it from the main thread, outside trio.

    Raises ``Stopped`` on SIGINT or SIGTERM once every worker is gone, ``LaneError`` when a worker dies or cannot
    be started, and a worker's own exception (a bot's impossible sandbox, a full disk) as itself."""
    lane_folders(setup)
    workers: list[Worker] = []
    try:
        _fork_workers(workers, jobs, setup, fresh, play, factory)

        async def work() -> None:
            lanes = [_WorkerLane(w, setup) for w in workers]
            await play_lanes(setup, rounds, lanes, fresh=fresh)

        run_until_stopped(work, storage=STORAGE_FAILURES)
    except KeyboardInterrupt:  # a Ctrl-C while the workers were being forked
        raise Stopped from None
    finally:
        for worker in workers:  # each is gone already, unless the lanes never started
            worker.kill()
            worker.sock.close()


def _fork_workers(
    workers: list[Worker], jobs: int, setup: PlaySetup, fresh: bool, play: GameFn | None, factory: PlayerFactory | None
) -> None:
    """Fork ``jobs`` workers into ``workers``, each holding only its own end of its socket pair. SIGINT and SIGTERM
    are held back meanwhile, so that none arrives between a fork and the worker's own handlers."""
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()  # nothing buffered is written twice
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)
    try:
        for lane in range(jobs):
            ours, theirs = socket.socketpair()
            try:
                pid = os.fork()
            except OSError as e:
                ours.close()
                theirs.close()
                raise LaneError(f"cannot start the worker process of lane {lane}: {e.strerror or e}") from None
            if pid == 0:
                ours.close()
                for other in workers:
                    other.sock.close()
                _worker_main(theirs, lane, setup, fresh, play, factory, mask)  # never returns
            theirs.close()
            workers.append(Worker(lane, pid, ours))
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)


class LaneState(Enum):
    """Where a worker lane is in its life, as this process drives it."""

    READY = "ready"  # its worker waits for a table batch
    PLAYING = "playing"  # a batch sent: its games come back in one ``Done``
    STOPPED = "stopped"  # told to stop and reaped: it said ``Bye``, or was killed at the deadline
    LOST = "lost"  # reaped after it ended on its own, without a ``Bye``: its end is still to be raised
    FAILED = "failed"  # its failure has been raised (an error it sent, or its unexpected end)


@dataclass
class _WorkerLane:
    """The lane of ``worker`` as this process drives it (a ``Lane`` for ``play_lanes``): its state, the games it is
    playing (sent, not yet handed on), its pool as its reports tell it, and errors it sent while stopping."""

    worker: Worker
    setup: PlaySetup
    view: PoolView = field(default_factory=PoolView)
    state: LaneState = LaneState.READY
    sent: tuple[ScheduledGame, ...] = ()
    late: list[BaseException] = field(default_factory=list)
    channel: Channel | None = None

    def _channel(self) -> Channel:
        if self.channel is None:
            self.channel = Channel(self.worker.sock)
        return self.channel

    def fits(self, game: ScheduledGame) -> bool:
        return self.view.fits(game)

    async def play(self, batch: TableBatch) -> None:
        """Send the batch's games not stored yet to the worker and hand on each as it comes back. Left early (a
        signal, an error), it first stops the worker, so that the deal is not released (``DealQueue``) while the
        worker may still be playing it."""
        games = tuple(g for g in batch.games if g.game_id not in self.setup.finished)
        if not games:
            return
        self.sent, self.state = games, LaneState.PLAYING
        try:
            await self._send(Play.of(batch.batch, games))
            message = await self._receive()
            if not isinstance(message, Done):
                raise LaneError(f"lane {self.worker.lane}: unexpected {type(message).__name__} from its worker")
        except BaseException:
            await self._stop()
            raise
        self._hand_on(message)

    def _hand_on(self, done: Done) -> None:
        """Hand the games sent to the worker, with their results, to ``setup.on_game``; follow its pool."""
        sent, self.sent = self.sent, ()
        if self.state is LaneState.PLAYING:
            self.state = LaneState.READY
        self.view.follow(sent, done.pool)
        for game, (result, duration, declared) in zip(sent, done.games, strict=True):
            self.setup.on_game(PlayedGame(game, result, duration, declared))

    async def retire(self, keep: Iterable[str]) -> None:
        wanted = frozenset(keep)
        self.view.retire(wanted)
        await self._send(Retire(wanted))

    async def aclose(self) -> None:
        """Stop the worker (``_stop``); a worker that ended badly while the lane was idle, or failed while stopping,
        raises here (unless its failure was raised already)."""
        await self._stop()
        if self.state is LaneState.FAILED:
            return
        if self.late:
            self.state = LaneState.FAILED
            raise self.late[0]
        if self.state is LaneState.LOST:
            self.state = LaneState.FAILED
            raise self.worker.unexpected_end()

    async def _stop(self) -> None:
        """Once (until the worker is reaped): tell it to stop, store the games it finished meanwhile, wait for its
        ``Bye`` and its exit (killing it if it takes longer than its bots' grace allows), shielded."""
        worker = self.worker
        if worker.status is not None:
            return
        said_bye = False
        with trio.CancelScope(shield=True):
            deadline = trio.current_time() + 2 * self.setup.config.grace + STOP_MARGIN
            try:
                with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    await self._channel().send(Stop())
                with trio.move_on_at(deadline):
                    while (message := await self._channel().receive()) is not None:
                        match message:
                            case Done() if self.sent:  # it ended before the worker saw ``Stop``
                                self._hand_on(message)
                            case Bye(cpu_seconds=cpu):
                                said_bye = True
                                _worker_cpu.append(cpu)
                            case Failed():
                                self.late.append(_worker_error(worker.lane, message))
            finally:
                await worker.reap(deadline)
        if self.state is not LaneState.FAILED:
            self.state = LaneState.STOPPED if said_bye or worker.killed else LaneState.LOST

    async def _send(self, message: ToWorker) -> None:
        try:
            await self._channel().send(message)
        except (trio.BrokenResourceError, OSError):
            raise await self._died() from None

    async def _receive(self) -> Done | Bye:
        message = await self._channel().receive()
        if message is None:
            raise await self._died()
        if isinstance(message, Failed):
            self.state = LaneState.FAILED
            raise _worker_error(self.worker.lane, message)
        return message  # type: ignore[no-any-return]

    async def _died(self) -> LaneError:
        """The error of a worker that ended on its own (reaped here)."""
        self.state = LaneState.FAILED
        worker = self.worker
        with trio.CancelScope(shield=True):
            await worker.reap(trio.current_time() + 1.0)
        return worker.unexpected_end()


def _worker_error(lane: int, message: Failed) -> BaseException:
    """The exception a worker sent, with the worker's traceback as a note; a ``LaneError`` when it could not be
    sent or read."""
    try:
        if message.error is None:
            raise ValueError("not pickled")
        error: BaseException = pickle.loads(message.error)
    except Exception:
        text = message.traceback.strip()
        last = text.splitlines()[-1] if text else "unknown error"
        error = LaneError(f"the worker process of lane {lane} failed: {last}")
    error.add_note(f"in the worker process of lane {lane}:\n{message.traceback}")
    return error


# The worker's side. Everything below runs in the forked child.


def _worker_main(
    sock: socket.socket,
    lane: int,
    setup: PlaySetup,
    fresh: bool,
    play: GameFn | None,
    factory: PlayerFactory | None,
    mask: set[int | signal.Signals],
) -> None:
    """The forked child: die with the parent, leave SIGINT and SIGTERM to it, play the lane, exit (never returns:
    nothing of the parent's, its atexit handlers, its results database, its buffered output, is touched)."""
    code = 1
    try:
        parent = os.getppid()
        die_with_parent()
        for signum in SIGNALS:
            signal.signal(signum, _ignore)  # a handler, not SIG_IGN: bots start with the default again
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        if os.getppid() != parent:  # the parent died before the parent-death signal was set
            return
        # The parent's stdio objects may have been locked by another of its threads at the fork.
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - for the life of the process
        sys.stderr = os.fdopen(os.dup(2), "w", buffering=1)
        gc.freeze()  # the parent's objects stay out of this process's collections (and its pages shared)
        code = trio.run(_serve, sock, lane, setup, fresh, play, factory)
    except BaseException:
        with contextlib.suppress(BaseException):
            traceback.print_exc()
    finally:
        os._exit(code)


def _ignore(signum: int, frame: object) -> None:
    """SIGINT and SIGTERM in a worker: the parent stops the lane."""


async def _serve(
    sock: socket.socket, lane: int, setup: PlaySetup, fresh: bool, play: GameFn | None, factory: PlayerFactory | None
) -> int:
    """Play what the parent sends until it says ``Stop`` (or goes away), then close every bot and say ``Bye`` with
    this process's CPU time; on a failure, ``Failed`` instead. The exit status: 0 after ``Bye``."""
    channel = Channel(sock)
    pool = lane_pool(setup, lane, fresh=fresh, factory=factory, alone=True)
    return await run_lane(channel, pool, partial(_play_lane, channel, pool, setup, play))


async def run_lane(channel: Channel, pool: PlayerPool, body: Callable[[], Awaitable[None]]) -> int:
    """A worker's life around ``body`` (its loop over the parent's messages): close the pool's bots after it, then
    say ``Bye`` with this process's CPU time, or ``Failed`` when it failed. The exit status: 0 after ``Bye``."""
    try:
        try:
            await body()
        finally:
            await pool.aclose()
    except Exception as exc:
        with trio.CancelScope(shield=True), contextlib.suppress(Exception):
            await channel.send(_failed(exc))
        return 1
    usage = resource.getrusage(resource.RUSAGE_SELF)
    with contextlib.suppress(trio.BrokenResourceError, OSError):
        await channel.send(Bye(usage.ru_utime + usage.ru_stime))
    return 0


async def _play_lane(channel: Channel, pool: PlayerPool, setup: PlaySetup, play: GameFn | None) -> None:
    """Handle the parent's messages in order; ``Stop`` or the end of the stream abandons a game in progress."""
    inbox_in, inbox = trio.open_memory_channel[ToWorker](math.inf)
    async with trio.open_nursery() as nursery:

        async def read() -> None:
            while (message := await channel.receive()) is not None and not isinstance(message, Stop):
                inbox_in.send_nowait(message)
            nursery.cancel_scope.cancel()

        nursery.start_soon(read)
        async for message in inbox:
            match message:
                case Play(batch=number):
                    batch = TableBatch(number, message.games)
                    played = await play_batch(
                        batch, pool, ruleset=setup.ruleset, games_dir=setup.games_dir, logs=setup.logs, play=play
                    )
                    games = tuple((p.result, p.duration, p.declared) for p in played)
                    await channel.send(Done(games, pool.take_report()))
                case Retire(keep=keep):
                    await pool.retire(keep)


def _failed(exc: BaseException) -> Failed:
    """The ``Failed`` message of ``exc`` (the exception alone when it is a group of one)."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    text = "".join(traceback.format_exception(exc))
    try:
        data: bytes | None = pickle.dumps(exc)
    except Exception:
        data = None
    return Failed(data, text)
