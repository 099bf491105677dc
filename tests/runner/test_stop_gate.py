"""``stopped_by_signals``: a signal is never lost. The coordinator of a cluster waits on a queue a signal wakes and
stops there, in its own code; only inside ``interruptible`` blocks (reaching a scheduler) does the handler raise."""

from __future__ import annotations

import gc
import os
import queue
import signal
import threading
import time

import pytest

from referee.runner.stopping import Stopped, stopped_by_signals


def test_a_signal_inside_an_interruptible_block_stops_at_once() -> None:
    with pytest.raises(Stopped), stopped_by_signals() as gate, gate.interruptible():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(10)  # the handler runs at once (here at the latest, which it cuts short)
        raise AssertionError("not stopped")


def test_a_signal_elsewhere_is_noted_and_stops_the_work_where_it_checks_and_the_handlers_are_given_back() -> None:
    done = []
    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(Stopped), stopped_by_signals() as gate:
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)
        done.append("the work in hand")  # not cut in half (handing on a task's games)
        gate.check()
        done.append("after")  # not reached
    assert done == ["the work in hand"]
    assert signal.getsignal(signal.SIGINT) is before


def test_a_signal_wakes_the_wait_registered_with_the_gate() -> None:
    waiting: queue.SimpleQueue[str | None] = queue.SimpleQueue()
    threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT)).start()
    started = time.monotonic()
    with pytest.raises(Stopped), stopped_by_signals() as gate, gate.waking(lambda: waiting.put(None)):
        while True:
            item = waiting.get(timeout=30)  # nothing else ever comes: only the signal ends this wait
            gate.check()
            assert item is not None
    assert time.monotonic() - started < 20


class _Finalised:
    """An object whose finaliser the test is inside of when the signal's handler runs."""

    def __init__(self, inside: threading.Event) -> None:
        self.inside = inside

    def __del__(self) -> None:
        self.inside.set()
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # the handler runs here, inside the finaliser


def test_a_signal_whose_handler_runs_inside_a_finaliser_still_stops_the_run() -> None:
    """Python prints and drops an exception raised in ``__del__``: a handler that raised ``Stopped`` wherever it
    ran lost the stop there (the run went on and held games waited out their move time). The gate keeps it."""
    inside = threading.Event()
    with pytest.raises(Stopped), stopped_by_signals() as gate:
        _Finalised(inside)  # dropped at once: its finaliser runs here
        gc.collect()
        assert inside.is_set()
        gate.check()


def test_a_block_that_fails_raises_its_own_error() -> None:
    with stopped_by_signals() as gate:
        with pytest.raises(ValueError), gate.interruptible():
            raise ValueError("the block's own error")
        gate.check()  # no signal came: nothing stops
