"""Stopping on Ctrl-C (SIGINT) or SIGTERM, the same way for every command that drives bots.

A signal cancels the work instead of cutting through it, so its shielded clean-ups (closing every bot, handing on
every finished game) complete; then ``Stopped`` is raised. ``run_until_stopped`` does this for trio work (a game,
the check suite, the lanes of a tournament or a comparison); ``stopped_by_signals`` for code that waits outside
trio (the coordinator of a Dask cluster): there a signal is noted and wakes the coordinator's wait, which raises
``Stopped`` where it chooses (``StopGate.check``), with ``signals_deferred`` around its own clean-up.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import TypeVar

import trio

__all__ = ["StopGate", "Stopped", "run_until_stopped", "signals_deferred", "stopped_by_signals"]

T = TypeVar("T")
#: The signals that stop a run cleanly.
SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Stopped(Exception):
    """SIGINT (Ctrl-C) or SIGTERM stopped the work; its clean-ups have finished."""


def run_until_stopped(work: Callable[[], Awaitable[T]], *, storage: tuple[type[BaseException], ...] = (OSError,)) -> T:
    """``trio.run`` of ``work()``, cancelled by SIGINT or SIGTERM: its result, or ``Stopped`` once the cancelled
    work has finished its clean-ups (a Ctrl-C before the signals are watched also raises ``Stopped``).

    An error inside that is alone in its exception group is raised as itself; so is the first of several when
    every one is a failure of the disk or the database (one of ``storage``: the same full disk met by several
    lanes)."""

    async def main() -> list[T]:
        done: list[T] = []
        with trio.open_signal_receiver(*SIGNALS) as signals:
            async with trio.open_nursery() as nursery:

                async def watch() -> None:
                    async for _ in signals:
                        nursery.cancel_scope.cancel()
                        return

                nursery.start_soon(watch)
                done.append(await work())
                nursery.cancel_scope.cancel()
        return done

    try:
        done = trio.run(main)
    except KeyboardInterrupt:
        raise Stopped from None
    except BaseExceptionGroup as group:
        leaves = _leaves(group)
        # One failure, or the same failure in several lanes at once (a full or read-only disk): raise it alone.
        if len(leaves) == 1 or all(isinstance(e, storage) for e in leaves):
            raise leaves[0] from group
        raise
    if not done:
        raise Stopped
    return done[0]


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    """The exceptions inside a (nested) exception group."""
    out: list[BaseException] = []
    for e in group.exceptions:
        out.extend(_leaves(e) if isinstance(e, BaseExceptionGroup) else [e])
    return out


class StopGate:
    """A signal seen by ``stopped_by_signals``: noted at once (``requested``), it wakes the wait registered with
    ``waking`` and is raised as ``Stopped`` by ``check``, at a point the work chose. Only inside ``interruptible``
    blocks (a long wait in other code, such as reaching a scheduler) does the handler raise it itself.

    A handler that raised anywhere could raise inside a finaliser (``__del__``, whose exceptions Python prints and
    drops) or inside a library's ``except Exception``: the stop would be lost and the run would go on.
    """

    def __init__(self) -> None:
        self.requested = False
        self._raising = 0
        self._wake: Callable[[], None] | None = None

    def signalled(self) -> None:
        """The signal handler's work: note the stop, wake the registered wait, raise inside ``interruptible``."""
        self.requested = True
        if self._wake is not None:
            self._wake()
        if self._raising:
            raise Stopped

    def check(self) -> None:
        """Raise ``Stopped`` if a signal has come."""
        if self.requested:
            raise Stopped

    @contextmanager
    def interruptible(self) -> Iterator[None]:
        """A signal during the block raises ``Stopped`` at once (and, should other code swallow it, at the block's
        end when it ends without an error of its own)."""
        self.check()
        self._raising += 1
        try:
            yield
        finally:
            self._raising -= 1
        self.check()

    @contextmanager
    def waking(self, wake: Callable[[], None]) -> Iterator[None]:
        """Call ``wake`` (from the handler: it must be safe there, like ``queue.SimpleQueue.put``) when a signal
        comes during the block, so that the wait it ends then calls ``check``."""
        previous, self._wake = self._wake, wake
        try:
            yield
        finally:
            self._wake = previous


@contextmanager
def stopped_by_signals() -> Iterator[StopGate]:
    """SIGINT and SIGTERM are noted by the gate while the block runs (``StopGate``); the handlers are given back at
    its end."""
    gate = StopGate()

    def handler(signum: int, frame: FrameType | None) -> None:
        gate.signalled()

    previous = {s: signal.signal(s, handler) for s in SIGNALS}
    try:
        yield gate
    finally:
        for s, h in previous.items():
            signal.signal(s, h)


@contextmanager
def signals_deferred() -> Iterator[None]:
    """While saving what finished and closing down, a second Ctrl-C waits: SIGINT and SIGTERM are ignored. Outside
    the main thread (a clean-up run by ``trio.to_thread``), where signals cannot be set, nothing is deferred."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, signal.SIG_IGN) for s in SIGNALS}
    try:
        yield
    finally:
        for s, h in previous.items():
            signal.signal(s, h)
