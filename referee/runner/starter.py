"""The thread that starts bot processes, so that the event loop runs on while a child gets to its ``exec``.

Starting a bot forks the referee and runs the child's set-up (parent-death signal, cgroups, rlimits) before
``exec``; ``subprocess.Popen`` waits for that in the thread that called it: 3 to 5 ms on a calm machine, tens of
milliseconds under load, during which no other game could move. ``run_in_starter`` runs the start on one thread
instead and wakes the calling task when it is done.

It is one thread for the life of the process, never a worker thread: a bot's parent-death signal (and
bubblewrap's ``--die-with-parent``) is sent when the thread that forked it ends, and trio's worker threads end
after a few idle seconds. The thread is a daemon: it ends with the process, and so do the bots it started. A
process forked from this one (a lane worker) starts a starter thread of its own.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable
from typing import TypeVar

import trio

T = TypeVar("T")

_jobs: queue.SimpleQueue[Callable[[], None]] | None = None
_lock = threading.Lock()


def _forget_after_fork() -> None:
    """In a child forked from this process (a lane worker): the starter thread is not there, so the first start
    makes its own (a parent's queue and lock would wait forever)."""
    global _jobs, _lock
    _jobs, _lock = None, threading.Lock()


os.register_at_fork(after_in_child=_forget_after_fork)


def _serve(jobs: queue.SimpleQueue[Callable[[], None]]) -> None:
    while True:
        jobs.get()()


def _queue() -> queue.SimpleQueue[Callable[[], None]]:
    global _jobs
    with _lock:
        if _jobs is None:
            _jobs = queue.SimpleQueue()
            threading.Thread(target=_serve, args=(_jobs,), name="referee-bot-starter", daemon=True).start()
        return _jobs


async def run_in_starter(start: Callable[[], T]) -> T:
    """``start()`` run on the starter thread; its value, or the exception it raised. Not cancellable: a process
    that was started is always handed back (to be ended by its owner), and a start is short."""
    token = trio.lowlevel.current_trio_token()
    done = trio.Event()
    value: list[T] = []
    error: list[BaseException] = []

    def job() -> None:
        try:
            value.append(start())
        except BaseException as exc:  # handed to the waiting task, which raises it
            error.append(exc)
        finally:
            token.run_sync_soon(done.set)

    _queue().put(job)
    with trio.CancelScope(shield=True):
        await done.wait()
    if error:
        raise error[0]
    return value[0]
