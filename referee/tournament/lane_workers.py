"""Lanes in worker processes: ``LocalExecutor`` with ``jobs`` >= 2 plays each lane in a process of its own.

One process running every lane is one core's worth of referee: with four bots answering at once it is the
referee's CPU that bounds the games per second. So ``run_in_workers`` forks one worker per lane before trio starts
(a copy-on-write copy of the interpreter with everything imported), and each worker runs its own trio loop with
its lane's ``PlayerPool``: it plays the games it is sent (``play_batch``; game logs and bot stderr go where the
lanes write them in one process) and sends each finished game back. This process keeps everything else: the
``DealQueue`` (two rotations of one deal never run at once), the rounds of a race, storing each finished game as
it arrives (``setup.on_game``), the live display.

``DealQueue.take(fits)`` needs each lane's pool: this process keeps a *mirror* of it, a ``PlayerPool`` of inert
stand-ins that is given the same calls in the same order as the worker's (``for_game`` and ``after_game`` for each
game sent, ``retire``), so its choices, and ``fits``, are the worker's.

The two sides speak over a socket pair: length-prefixed pickles, one message each way per game (``play``, then
``done`` with the finished games), ``retire`` between rounds, ``stop`` at the end (the worker abandons a game in
progress, closes its bots, answers ``bye`` with its own CPU time and exits). A worker that fails sends ``error``
with the exception, which is raised here.

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
import dataclasses
import gc
import math
import operator
import os
import pickle
import resource
import signal
import socket
import struct
import sys
import traceback
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import trio

from referee.engine import RefereeError
from referee.runner import Stopped, run_until_stopped
from referee.runner.limits import die_with_parent
from referee.runner.stopping import SIGNALS
from referee.tournament.execute import (
    STORAGE_FAILURES,
    GameFn,
    PlayedGame,
    PlayerFactory,
    PlayerPool,
    PlaySetup,
    Rounds,
    lane_folders,
    lane_pool,
    play_batch,
    play_lanes,
)
from referee.tournament.schedule import ScheduledGame, TableBatch

__all__ = ["LaneError", "run_in_workers", "workers_cpu_seconds"]

_HEADER = struct.Struct("!I")
#: Seconds a worker has to close its bots and exit once told to stop, beyond the bots' own grace (twice theirs:
#: bye, then TERM): after that it is killed (its bots die with it).
STOP_MARGIN = 10.0

#: A scheduled game as a plain tuple, sent to a worker (``ScheduledGame(*fields)`` there).
_fields = operator.attrgetter(*(f.name for f in dataclasses.fields(ScheduledGame)))

#: CPU seconds (user + system) of every worker that has ended in this process, as each reported it.
_worker_cpu: list[float] = []


class LaneError(RefereeError):
    """A lane's worker process failed: it ended unexpectedly, or could not be started."""


def workers_cpu_seconds() -> float:
    """The CPU time of the lane workers that have ended in this process: their own, not their bots'."""
    return sum(_worker_cpu)


class Channel:
    """Messages (picklable tuples) over a connected socket, each a 4-byte length and a pickle; both ends are ours."""

    def __init__(self, sock: socket.socket) -> None:
        self._stream = trio.SocketStream(trio.socket.from_stdlib_socket(sock))
        self._buffer = bytearray()
        self._sending = trio.Lock()

    async def send(self, message: tuple[Any, ...]) -> None:
        """Send ``message`` whole, shielded: a message cut by a cancellation would garble every one after it (the
        other end always reads, so this waits only for a socket buffer)."""
        data = pickle.dumps(message, protocol=pickle.HIGHEST_PROTOCOL)
        with trio.CancelScope(shield=True):
            async with self._sending:
                await self._stream.send_all(_HEADER.pack(len(data)) + data)

    async def receive(self) -> tuple[Any, ...] | None:
        """The next message; None at the end of the stream (the other end closed or exited)."""
        buffer = self._buffer
        while True:
            if len(buffer) >= _HEADER.size:
                (size,) = _HEADER.unpack_from(buffer)
                end = _HEADER.size + size
                if len(buffer) >= end:
                    message: tuple[Any, ...] = pickle.loads(buffer[_HEADER.size : end])
                    del buffer[:end]
                    return message
            try:
                chunk = await self._stream.receive_some(1 << 16)
            except trio.BrokenResourceError:
                chunk = b""
            if not chunk:
                return None
            buffer += chunk


class _StandIn:
    """What the mirror pool holds for each bot process of its worker: nothing to start or close."""

    hello = None

    async def aclose(self) -> None:
        pass


def _stand_in(*_: object) -> _StandIn:
    return _StandIn()


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
            lanes = [_WorkerLane(w, setup, lane_pool(setup, w.lane, fresh=fresh, factory=_stand_in)) for w in workers]
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


@dataclass
class _WorkerLane:
    """The lane of ``worker`` as this process drives it (a ``Lane`` for ``play_lanes``)."""

    worker: Worker
    setup: PlaySetup
    mirror: PlayerPool
    channel: Channel | None = None
    failed: bool = False  # an error of its worker was raised already
    sent: tuple[ScheduledGame, ...] = ()  # the games the worker is playing (sent, not yet handed on)
    stopped: bool = False  # told to stop, and reaped
    bye: bool = False  # it said bye: it stopped as told
    late: list[BaseException] = dataclasses.field(default_factory=list)  # errors it sent while stopping

    def _channel(self) -> Channel:
        if self.channel is None:
            self.channel = Channel(self.worker.sock)
        return self.channel

    def fits(self, game: ScheduledGame) -> bool:
        return self.mirror.fits(game)

    async def play(self, batch: TableBatch) -> None:
        """Send the batch's games not stored yet to the worker and hand on each as it comes back. Left early (a
        signal, an error), it first stops the worker, so that the deal is not released (``DealQueue``) while the
        worker may still be playing it."""
        setup = self.setup
        games = tuple(g for g in batch.games if g.game_id not in setup.finished)
        if not games:
            return
        self.sent = games
        try:
            await self._send(("play", batch.batch, tuple(_fields(g) for g in games)))
            for game in games:  # what the worker's pool does for them, in the same order
                await self.mirror.for_game(game.seats, game.seed)
                await self.mirror.after_game()
            message = await self._receive()
        except BaseException:
            await self._stop()
            raise
        if message[0] != "done":
            await self._stop()
            raise LaneError(f"lane {self.worker.lane}: unexpected message {message[0]!r} from its worker")
        self._hand_on(message[1])

    def _hand_on(self, results: list[tuple[Any, float, Any]]) -> None:
        """Hand the games sent to the worker, with their results (a ``done`` message's), to ``setup.on_game``."""
        sent, self.sent = self.sent, ()
        for game, (result, duration, declared) in zip(sent, results, strict=True):
            self.setup.on_game(PlayedGame(game, result, duration, declared))

    async def retire(self, keep: Iterable[str]) -> None:
        wanted = frozenset(keep)
        await self.mirror.retire(wanted)
        await self._send(("retire", wanted))

    async def aclose(self) -> None:
        """Stop the worker (``_stop``); a worker that ended badly while the lane was idle, or failed while stopping,
        raises here (unless its error was raised already)."""
        await self._stop()
        if self.failed:
            return
        self.failed = True
        if self.late:
            raise self.late[0]
        worker = self.worker
        if not self.bye and not worker.killed:
            raise worker.unexpected_end()

    async def _stop(self) -> None:
        """Once: tell the worker to stop, store the games it finished meanwhile, wait for its ``bye`` and its exit
        (killing it if it takes longer than its bots' grace allows), shielded."""
        if self.stopped:
            return
        self.stopped = True
        worker = self.worker
        with trio.CancelScope(shield=True):
            deadline = trio.current_time() + 2 * self.setup.config.grace + STOP_MARGIN
            try:
                with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                    await self._channel().send(("stop",))
                with trio.move_on_at(deadline):
                    while (message := await self._channel().receive()) is not None:
                        if message[0] == "done" and self.sent:  # it ended before the worker saw ``stop``
                            self._hand_on(message[1])
                        elif message[0] == "bye":
                            self.bye = True
                            _worker_cpu.append(message[1])
                        elif message[0] == "error":
                            self.late.append(_worker_error(worker.lane, message))
            finally:
                await worker.reap(deadline)

    async def _send(self, message: tuple[Any, ...]) -> None:
        try:
            await self._channel().send(message)
        except (trio.BrokenResourceError, OSError):
            raise await self._died() from None

    async def _receive(self) -> tuple[Any, ...]:
        message = await self._channel().receive()
        if message is None:
            raise await self._died()
        if message[0] == "error":
            self.failed = True
            raise _worker_error(self.worker.lane, message)
        return message

    async def _died(self) -> LaneError:
        """The error of a worker that ended on its own (reaped here)."""
        self.failed = True
        worker = self.worker
        with trio.CancelScope(shield=True):
            await worker.reap(trio.current_time() + 1.0)
        return worker.unexpected_end()


def _worker_error(lane: int, message: tuple[Any, ...]) -> BaseException:
    """The exception a worker sent (``("error", pickled exception or None, its traceback)``), with the worker's
    traceback as a note; a ``LaneError`` when it could not be sent or read."""
    _, data, text = message
    try:
        error: BaseException = pickle.loads(data)
    except Exception:
        last = text.strip().splitlines()[-1] if text.strip() else "unknown error"
        error = LaneError(f"the worker process of lane {lane} failed: {last}")
    error.add_note(f"in the worker process of lane {lane}:\n{text}")
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
    """Play what the parent sends until it says ``stop`` (or goes away), then close every bot and say ``bye`` with
    this process's CPU time; on a failure, ``error`` instead. The exit status: 0 after ``bye``."""
    channel = Channel(sock)
    pool = lane_pool(setup, lane, fresh=fresh, factory=factory)
    try:
        try:
            await _play_lane(channel, pool, setup, play)
        finally:
            await pool.aclose()
    except Exception as exc:
        with trio.CancelScope(shield=True), contextlib.suppress(Exception):
            await channel.send(_error_message(exc))
        return 1
    usage = resource.getrusage(resource.RUSAGE_SELF)
    with contextlib.suppress(trio.BrokenResourceError, OSError):
        await channel.send(("bye", usage.ru_utime + usage.ru_stime))
    return 0


async def _play_lane(channel: Channel, pool: PlayerPool, setup: PlaySetup, play: GameFn | None) -> None:
    """Handle the parent's messages in order; ``stop`` or the end of the stream abandons a game in progress."""
    inbox_in, inbox = trio.open_memory_channel[tuple[Any, ...]](math.inf)
    games_dir = setup.games_dir
    async with trio.open_nursery() as nursery:

        async def read() -> None:
            while (message := await channel.receive()) is not None and message[0] != "stop":
                inbox_in.send_nowait(message)
            nursery.cancel_scope.cancel()

        nursery.start_soon(read)
        async for message in inbox:
            if message[0] == "play":
                batch = TableBatch(message[1], tuple(ScheduledGame(*fields) for fields in message[2]))
                played = await play_batch(batch, pool, ruleset=setup.ruleset, games_dir=games_dir, play=play)
                await channel.send(("done", [(p.result, p.duration, p.declared) for p in played]))
            elif message[0] == "retire":
                await pool.retire(message[1])


def _error_message(exc: BaseException) -> tuple[Any, ...]:
    """``("error", pickled exception or None, traceback text)``, the exception alone when it is a group of one."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    text = "".join(traceback.format_exception(exc))
    try:
        data: bytes | None = pickle.dumps(exc)
    except Exception:
        data = None
    return ("error", data, text)
