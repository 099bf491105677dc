"""Ctrl-C for the commands that drive bots: cancel the work so its shielded clean-ups (closing every bot) finish."""

from __future__ import annotations

import signal
from collections.abc import Awaitable, Callable
from typing import TypeVar

import trio

T = TypeVar("T")

#: The exit status of a command stopped by Ctrl-C.
EXIT_INTERRUPTED = 130


def run_unless_interrupted(work: Callable[[], Awaitable[T]]) -> T | None:
    """``trio.run`` of ``work()``: its result, or None when Ctrl-C (SIGINT) stopped it. The work is cancelled as
    ``referee run`` does, so its shielded clean-ups finish instead of a KeyboardInterrupt cutting through them;
    a Ctrl-C before the watch begins also gives None."""

    async def main() -> T | None:
        with trio.CancelScope() as scope:

            async def watch() -> None:  # a system task: it ends with the run, whenever work() ends
                with trio.open_signal_receiver(signal.SIGINT) as signals:
                    async for _ in signals:
                        scope.cancel()
                        return

            trio.lowlevel.spawn_system_task(watch)
            return await work()
        return None

    try:
        return trio.run(main)
    except KeyboardInterrupt:
        return None
