"""Stopping on Ctrl-C (SIGINT) or SIGTERM, the same way for every command that drives bots.

A signal cancels the work instead of cutting through it, so its shielded clean-ups (closing every bot, handing on
every finished game) complete; then ``Stopped`` is raised. ``run_until_stopped`` does this for trio work (a game,
the check suite, the lanes of a tournament or a comparison); ``stopped_by_signals`` for code that waits outside
trio (the coordinator of a Dask cluster), whose ``StopGate.held`` blocks a signal stops at their end, not in their
middle, with ``signals_deferred`` around its own clean-up.
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
    """Where ``stopped_by_signals`` may raise ``Stopped``: anywhere but inside ``held`` blocks."""

    def __init__(self) -> None:
        self._held = 0
        self._pending = False

    def signalled(self) -> None:
        """The signal handler's work: raise ``Stopped``, or note it for the end of the ``held`` block in progress."""
        if self._held:
            self._pending = True
            return
        raise Stopped

    @contextmanager
    def held(self) -> Iterator[None]:
        """A signal during the block raises ``Stopped`` once it is done (when it ends without an error of its own),
        so that work that must be whole (handing on a task's games, submitting a task) is never cut in half."""
        self._held += 1
        try:
            yield
        finally:
            self._held -= 1
        if self._pending and not self._held:
            self._pending = False
            raise Stopped


@contextmanager
def stopped_by_signals() -> Iterator[StopGate]:
    """SIGINT and SIGTERM raise ``Stopped`` in the main thread while the block runs (it waits outside trio), but
    inside the gate's ``held`` blocks, at whose end they raise it."""
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
