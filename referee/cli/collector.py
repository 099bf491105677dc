"""Python's cyclic garbage collector while a command loads its modules (on the command line only).

Loading what ``referee run`` needs (click, trio, rich, sqlite3, the referee's own modules: some 350 modules)
makes objects that live as long as the process. The collector, which runs every 700 new objects, would go over
them again and again while they load: some 80 collections, about 17 ms of CPU of a run (bench/README.md). So on
the command line the collector is off while the command's modules load (``main`` to the command's start, and
``loading`` around the part of a command that imports the rest), then what exists is frozen (``gc.freeze``: left
out of every later collection, as it will never be garbage) and the collector is on again for the real work.

Only the process started as ``referee`` does this (``start``, from the command group's ``main`` called with the
process's own arguments); a caller in the same process (the tests' ``CliRunner``, ``run(...)``) keeps the collector
as it is, so nothing of a test's is frozen. A collector already off (``gc.disable`` by the caller) stays off.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["loading", "release", "start"]

_command_line = False  # this process is a ``referee`` command started from the command line
_held = False  # the collector is off because of ``start`` or ``loading``, until ``release``


def start() -> None:
    """The command line's ``referee`` starts: the collector is off until ``release``."""
    global _command_line
    _command_line = True
    _hold()


def release() -> None:
    """The modules are loaded: freeze what exists and turn the collector on again (if it was turned off here)."""
    global _held
    if _held:
        _held = False
        gc.freeze()
        gc.enable()


@contextmanager
def loading() -> Iterator[None]:
    """Around a part of a command that imports most of its modules: the collector is off in it on the command line
    (``start``), then ``release``. Elsewhere it does nothing."""
    if _command_line:
        _hold()
    try:
        yield
    finally:
        release()


def _hold() -> None:
    global _held
    if gc.isenabled():
        gc.disable()
        _held = True
