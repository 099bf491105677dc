"""The web's way into the ladder's store: every call runs in a worker thread, never on the trio loop.

SQLite calls block, and a page must never stall the scheduler's trio loop, so ``await access.run(fn, *args)``
runs ``fn(ladder, *args)`` in one of at most ``threads`` worker threads (the ``Ladder`` gives each thread its own
connection; reads see the last committed block, WAL) — or, with ``inline``, right on the loop when the web has a
loop of its own (``server.WebThread``): a page's reads are quick, and every hop between threads costs a turn of
the GIL, which a busy scheduler holds for milliseconds at a time. The leaderboard's long computation always runs in
a worker thread (``run_in_thread``). ``access.stream(fn)`` runs a generator of text (the export, a game's log)
in a thread of its own and hands its chunks over as they come, a few at a time, so a large export never sits in
memory; a client that goes away stops it.

Streams and ``run_paced`` (a game's replay) are paced: past ``FREE`` seconds of CPU their thread uses at most
``SHARE`` of a core, waiting
between chunks (and before its answer) for as long as it takes, so that a flooding bot's log of hundreds of
megabytes, read over and over, never takes the serve process's interpreter (one lock for every thread) from the
scheduler and the pages. A page's reads are quick and are not paced.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import AsyncIterator, Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

import trio

if TYPE_CHECKING:
    from referee.ladder import Ladder

__all__ = ["FREE", "LOGS_SHARE", "SHARE", "LadderAccess", "Pace"]

T = TypeVar("T")
#: Lines of a stream handed over at once, and chunks waiting at most (the producer waits for the client).
_LINES, _WAITING = 500, 4
_DONE = object()
#: The share of a core a stream's or a paced call's thread may use, over its life, past its first ``FREE`` seconds
#: of CPU (a usual game's log or replay takes a few milliseconds and never waits).
SHARE, FREE = 0.25, 0.05
#: The share of a core a game log's or a replay's read may use (a flooding bot's log is hundreds of megabytes,
#: and every thread of serve shares the interpreter with its scheduler).
LOGS_SHARE = 0.1


class Pace:
    """The CPU time of the calling thread since it was made, past its first ``free`` seconds, held to ``share`` of
    the time elapsed: ``wait()`` sleeps (in this thread) until it is, or until ``stop`` is set."""

    def __init__(self, share: float = SHARE, stop: threading.Event | None = None, free: float = FREE) -> None:
        self.share = share
        self.free = free
        self.stop = stop or threading.Event()
        self._cpu = time.thread_time()
        self._start = time.monotonic()

    def ahead(self) -> float:
        """Seconds to wait before the thread's CPU time is within its share."""
        used = time.thread_time() - self._cpu - self.free
        return used / self.share - (time.monotonic() - self._start) if used > 0 else 0.0

    def wait(self) -> None:
        ahead = self.ahead()
        if ahead > 0:
            self.stop.wait(ahead)


class LadderAccess:
    """The ladder (``referee.ladder.Ladder``) as the web uses it."""

    def __init__(self, ladder: Ladder, *, threads: int = 4, inline: bool = False) -> None:
        self.ladder = ladder
        self.inline = inline
        self._limiter = trio.CapacityLimiter(threads)

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(ladder, *args)``: a quick read (a page's, at most tens of milliseconds), on the web's own loop when it
        has one (``inline``), else in a worker thread; what it raises is raised here."""
        if self.inline:
            await trio.lowlevel.checkpoint()
            return fn(self.ladder, *args)
        return await self.run_in_thread(fn, *args)

    async def run_in_thread(self, fn: Callable[..., T], *args: Any) -> T:
        """``fn(ladder, *args)`` in a worker thread (a long computation: the leaderboard's standing)."""
        return await trio.to_thread.run_sync(lambda: fn(self.ladder, *args), limiter=self._limiter)

    async def run_paced(self, fn: Callable[..., T], *args: Any, share: float = SHARE) -> T:
        """``fn(ladder, *args)`` in a worker thread, answered once that thread's CPU time is within ``share`` of the
        time since it started (a long read: a game's replay)."""

        def timed(ladder: Ladder) -> tuple[T, float]:
            pace = Pace(share)
            return fn(ladder, *args), pace.ahead()

        found, ahead = await self.run_in_thread(timed)
        await trio.sleep(max(0.0, ahead))  # on the loop: no worker thread is held meanwhile
        return found

    def remembered(self, token: str) -> Any:
        """The ladder's look-up of a token it verified before (no scrypt; one read), in the calling thread."""
        return self.ladder.remembered(token)

    def authenticate(self, token: str) -> Any:
        """The ladder's token check, in the calling thread (``auth.Authenticator`` calls it in a worker thread)."""
        return self.ladder.authenticate(token)

    async def stream(self, fn: Callable[..., Iterator[str]], *args: Any, share: float = SHARE) -> AsyncIterator[str]:
        """The text ``fn(ladder, *args)`` yields, in chunks of ``_LINES`` items, produced in a thread of its own that
        uses at most ``share`` of a core (``Pace``: it may wait after any item; an empty one is only a pause point)."""
        chunks: queue.Queue[Any] = queue.Queue(_WAITING)
        stop = threading.Event()

        def put(item: Any) -> bool:
            while not stop.is_set():
                try:
                    chunks.put(item, timeout=0.2)
                    return True
                except queue.Full:
                    continue
            return False

        def produce() -> None:
            pace = Pace(share, stop)
            try:
                batch: list[str] = []
                for line in fn(self.ladder, *args):
                    pace.wait()
                    if not line:  # a pause point
                        continue
                    batch.append(line)
                    if len(batch) >= _LINES:
                        if not put("".join(batch)):
                            return
                        batch = []
                pace.wait()
                if batch:
                    put("".join(batch))
                put(_DONE)
            except BaseException as exc:  # handed to the consumer, which raises it
                put(exc)

        threading.Thread(target=produce, name="referee-web-stream", daemon=True).start()
        try:
            while True:
                # not through ``_limiter``: a waiting export must not hold up the leaderboard's recomputation or an
                # intake (how many exports run at once is capped by ``slots.Slots``)
                item = await trio.to_thread.run_sync(chunks.get)
                if item is _DONE:
                    return
                if isinstance(item, BaseException):
                    raise item
                yield item
        finally:
            stop.set()
