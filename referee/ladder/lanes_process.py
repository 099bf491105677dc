"""``serve --lane-processes``: each lane plays its blocks in a worker process of its own.

One process running every lane is one core's worth of referee. Here each lane is a child process (started as
``python -m referee.ladder.lanes_process FD``: a fresh interpreter, since the serve process is already inside trio
and may hold the web server's threads, so it cannot fork), connected by a socket pair and speaking the tournament's
lane channel (``referee.contest.lane_channel``). The child holds the lane's ``PlayerPool`` (its warm bot
processes, never dealt a deal twice) and writes each game's log and its bots' stderr where an in-process lane
would; the serve process keeps the matchmaker, the store, the settle step and the web.

Messages: ``LaneSetup`` once (the lane's number and settings), then per block ``LanePlay`` (the games and the specs of
their versions) answered by ``LaneDone`` (the games, and each version's reply time in the block, measured by the
child's own ``BotClock`` and added to the serve's); ``Retire`` between blocks; ``Stop`` at the end, answered by
``Bye`` (the child's own CPU time). A failure in the child comes back as ``Failed`` and is raised here as itself;
a child that ends unexpectedly (killed, out of memory) raises ``LaneLost`` for the block it was playing, and the lane
starts a new child for its next block. A child whose serve process ends (``kill -9`` included: it watches the parent's
pidfd) closes its bots and exits; it ignores SIGINT and SIGTERM (a terminal's Ctrl-C reaches the whole group):
the serve process stops it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import trio

from referee.contest.lane_channel import Bye, Channel, Failed, GameOut, Retire, Stop
from referee.contest.pool import PlayerFactory, PlayerPool
from referee.contest.schedule import ScheduledGame, TableBatch
from referee.engine import Ruleset
from referee.ladder.botclock import BotClock
from referee.ladder.lanes import LaneLost, LaneSettings
from referee.ladder.model import Version
from referee.runner import BotSpec, RunnerConfig
from referee.runner.stopping import SIGNALS
from referee.tournament.execute import GameFn, PlayedGame, play_batch
from referee.tournament.lane_workers import STOP_MARGIN, _worker_error, run_lane

__all__ = ["LaneDone", "LanePlay", "LaneSetup", "ProcessLanes", "lanes_cpu_seconds"]

#: Seconds a new child has to start and answer its first block before the lane gives up on it.
START_TIMEOUT = 60.0

#: CPU seconds of every lane child that said ``Bye`` to this process.
_children_cpu: list[float] = []


def lanes_cpu_seconds() -> float:
    """The CPU time (user + system) of the lane children that have ended in this process: their own, not their
    bots'."""
    return sum(_children_cpu)


@dataclass(frozen=True, slots=True)
class LaneSetup:
    """Parent → child, first: the lane's number and what every block of it is played under (``LaneSettings``'s
    fields that a child needs)."""

    lane: int
    runner: RunnerConfig
    ruleset: Ruleset
    bots_dir: Path
    keep: int
    max_live: int
    play: GameFn | None
    factory: PlayerFactory | None

    @classmethod
    def of(cls, lane: int, s: LaneSettings) -> LaneSetup:
        return cls(lane, s.runner, s.ruleset, s.bots_dir, s.keep, s.max_live, s.play, s.factory)


@dataclass(frozen=True, slots=True)
class LanePlay:
    """Parent → child: play block ``batch``'s games (``rows``: ``ScheduledGame`` fields), logs to ``games_dir``;
    ``specs`` are the specs of versions the child has not been sent yet."""

    batch: int
    rows: tuple[tuple[Any, ...], ...]
    specs: tuple[BotSpec, ...]
    games_dir: str


@dataclass(frozen=True, slots=True)
class LaneDone:
    """Child → parent: the block's games, each finished (in the order sent), and ``(version, seconds)``: each
    version's reply time over the block."""

    games: tuple[GameOut, ...]
    bot_seconds: tuple[tuple[str, float], ...]


@dataclass
class _Child:
    """A lane's child process as the serve process sees it, and the versions it has been sent the specs of."""

    lane: int
    process: trio.Process
    channel: Channel
    sent: set[str] = field(default_factory=set)
    kept: frozenset[str] | None = None  # the last ``Retire``'s versions: the same again is not sent


class ProcessLanes:
    """Each of ``settings.jobs`` lanes in a child process of its own (see the module's docstring)."""

    def __init__(self, settings: LaneSettings) -> None:
        self.settings = settings
        self.jobs = settings.jobs
        self.max_live = settings.max_live
        self.children: dict[int, _Child] = {}

    async def start(self) -> None:
        for lane in range(self.jobs):
            await self._child(lane)

    async def _child(self, lane: int) -> _Child:
        child = self.children.get(lane)
        if child is not None and child.process.returncode is None:
            return child
        ours, theirs = socket.socketpair()
        try:
            process = await trio.lowlevel.open_process(
                [sys.executable, "-m", "referee.ladder.lanes_process", str(theirs.fileno()), str(os.getpid())],
                pass_fds=(theirs.fileno(),),
                stdin=subprocess.DEVNULL,
                env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)},
            )
        except OSError as e:
            ours.close()
            raise LaneLost(f"cannot start the worker process of lane {lane}: {e.strerror or e}") from None
        finally:
            theirs.close()
        child = _Child(lane, process, Channel(ours))
        await self._send(child, LaneSetup.of(lane, self.settings))
        self.children[lane] = child
        return child

    async def play(
        self, lane: int, batch: TableBatch, versions: Sequence[Version], games_dir: Path
    ) -> list[PlayedGame]:
        child = await self._child(lane)
        new = tuple(self.settings.spec(v) for v in versions if v.key not in child.sent)
        rows = tuple(tuple(getattr(g, f) for f in ScheduledGame.__dataclass_fields__) for g in batch.games)
        try:
            await self._send(child, LanePlay(batch.batch, rows, new, str(games_dir)))
            child.sent.update(s.name for s in new)
            message = await child.channel.receive()
        except BaseException:
            await self._stop(child)  # a block abandoned midway (a stop, a cancel): its deal may still be in play
            raise
        if message is None:
            raise await self._lost(child, batch.batch)
        if isinstance(message, Failed):
            await self._stop(child)
            raise _worker_error(lane, message)
        if not isinstance(message, LaneDone):
            await self._stop(child)
            raise LaneLost(f"lane {lane}: unexpected {type(message).__name__} from its worker process")
        if self.settings.clock is not None:
            self.settings.clock.add(message.bot_seconds)
        return [
            PlayedGame(game, result, duration, declared)
            for game, (result, duration, declared) in zip(batch.games, message.games, strict=True)
        ]

    async def wanted(self) -> int:
        return self.jobs

    async def retire(self, lane: int, keep: set[str]) -> None:
        child = self.children.get(lane)
        wanted = frozenset(keep)
        if child is not None and child.process.returncode is None and wanted != child.kept:
            child.kept = wanted
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                await self._send(child, Retire(wanted))

    async def aclose(self) -> None:
        children, self.children = list(self.children.values()), {}
        async with trio.open_nursery() as nursery:
            for child in children:
                nursery.start_soon(self._stop, child)

    async def _send(self, child: _Child, message: object) -> None:
        await child.channel.send(cast(Any, message))

    async def _lost(self, child: _Child, block: int) -> LaneLost:
        """The error of a child that ended while it played ``block`` (reaped here)."""
        self.children.pop(child.lane, None)
        with trio.CancelScope(shield=True), trio.move_on_after(5):
            await child.process.wait()
        code = child.process.returncode
        how = (
            f"killed by signal {signal.Signals(-code).name}"
            if code is not None and code < 0 and -code in signal.Signals.__members__.values()
            else f"exit status {code}"
        )
        return LaneLost(f"the worker process of lane {child.lane} (pid {child.process.pid}) ended ({how})")

    async def _stop(self, child: _Child) -> None:
        """Tell the child to stop, wait for its ``Bye`` and its exit (killing it past its bots' grace), shielded."""
        self.children.pop(child.lane, None)
        with trio.CancelScope(shield=True):
            if child.process.returncode is None:
                with trio.move_on_after(2 * self.settings.runner.grace + STOP_MARGIN):
                    with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
                        await child.channel.send(Stop())
                    while (message := await child.channel.receive()) is not None:
                        if isinstance(message, Bye):
                            _children_cpu.append(message.cpu_seconds)
                    await child.process.wait()
                if child.process.returncode is None:
                    child.process.kill()
                    await child.process.wait()
            with contextlib.suppress(Exception):
                await child.channel._stream.aclose()


# The child's side: ``python -m referee.ladder.lanes_process FD``.


def main(fd: int, parent: int) -> int:
    """The child of serve process ``parent``: leave SIGINT and SIGTERM to it, play the lane until ``Stop`` or until
    the serve process ends (then close the lane's bots and exit)."""
    for signum in SIGNALS:
        signal.signal(signum, _ignore)  # a handler, not SIG_IGN: bots start with the default again
    sock = socket.socket(fileno=fd)
    return trio.run(_serve_lane, sock, parent)


def _ignore(signum: int, frame: object) -> None:
    """SIGINT and SIGTERM in a lane's child: the serve process stops the lane."""


async def _serve_lane(sock: socket.socket, parent: int) -> int:
    code = 1  # unless the lane ends as told
    async with trio.open_nursery() as nursery:
        nursery.start_soon(_watch_parent, parent, nursery.cancel_scope)
        code = await _play_lane(sock)
        nursery.cancel_scope.cancel()
    return code


async def _watch_parent(parent: int, scope: trio.CancelScope) -> None:
    """Cancel ``scope`` (the lane: its bots are closed) when the serve process ``parent`` ends, ``kill -9``
    included. Not the parent-death signal: trio starts this process from one of its threads, and that signal comes
    when the thread ends."""
    try:
        pidfd = os.pidfd_open(parent)
    except (AttributeError, OSError):
        pidfd = None
    if pidfd is not None:
        try:
            await trio.lowlevel.wait_readable(pidfd)
        finally:
            trio.lowlevel.notify_closing(pidfd)
            os.close(pidfd)
    else:
        while os.getppid() == parent:
            await trio.sleep(1.0)
    scope.cancel()


async def _play_lane(sock: socket.socket) -> int:
    channel = Channel(sock)
    setup = await channel.receive()
    if not isinstance(setup, LaneSetup):
        return 1
    s = setup
    specs: dict[str, BotSpec] = {}
    clock = BotClock()
    # This process plays its lane alone: a turn's wait for its reply may hold the loop.
    runner = s.runner.alone()
    pool = PlayerPool(
        specs, runner, s.bots_dir, setup.lane, factory=clock.wrap(s.factory), keep=s.keep, freeze_idle=runner.freeze
    )
    pool.max_live = s.max_live

    async def body() -> None:
        while (message := await channel.receive()) is not None and not isinstance(message, Stop):
            if isinstance(message, LanePlay):
                specs.update((spec.name, spec) for spec in message.specs)
                games = tuple(ScheduledGame(*row) for row in message.rows)
                before = clock.read({name for g in games for name in g.seats})
                played = await play_batch(
                    TableBatch(message.batch, games), pool, ruleset=s.ruleset, games_dir=Path(message.games_dir),
                    play=s.play,
                )  # fmt: skip
                out = tuple((p.result, p.duration, p.declared) for p in played)
                pool.take_report()  # the tournament's process count: not the ladder's
                await channel.send(cast(Any, LaneDone(out, clock.block_seconds(before))))
            elif isinstance(message, Retire):
                await pool.retire(message.keep)

    return await run_lane(channel, pool, body)


if __name__ == "__main__":  # run as a script, this module is ``__main__``: the messages' classes are the module's
    from referee.ladder.lanes_process import main as lane_main

    sys.exit(lane_main(int(sys.argv[1]), int(sys.argv[2])))
