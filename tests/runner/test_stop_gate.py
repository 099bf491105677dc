"""``stopped_by_signals``: a signal stops the waiting coordinator at once, but never in the middle of a held block
(handing on a task's games): there it stops the run once the block is done."""

from __future__ import annotations

import os
import signal
import time

import pytest

from referee.runner.stopping import Stopped, stopped_by_signals


def test_a_signal_outside_a_held_block_stops_at_once() -> None:
    with pytest.raises(Stopped), stopped_by_signals():
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(10)  # the handler runs at once (here at the latest, which it cuts short)
        raise AssertionError("not stopped")


def test_a_signal_inside_a_held_block_stops_at_its_end_after_the_whole_block() -> None:
    done = []
    before = signal.getsignal(signal.SIGINT)
    with pytest.raises(Stopped), stopped_by_signals() as gate:
        with gate.held():
            os.kill(os.getpid(), signal.SIGINT)
            with gate.held():  # nested: the outermost block's end is the one that stops
                done.append("inner")
            done.append("outer")
        done.append("after")  # not reached
    assert done == ["inner", "outer"]
    assert signal.getsignal(signal.SIGINT) is before  # the handlers are given back


def test_a_held_block_that_fails_raises_its_own_error_and_a_clean_block_runs_unstopped() -> None:
    with stopped_by_signals() as gate:
        with gate.held():
            pass
        with pytest.raises(ValueError), gate.held():
            os.kill(os.getpid(), signal.SIGINT)
            raise ValueError("the block's own error")
