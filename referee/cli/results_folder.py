"""The results folder of ``referee run`` and ``referee compare``: its lock, and a full or read-only disk."""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import NoReturn

import click


def fail(command: str, message: str, code: int = 2) -> NoReturn:
    """One line on stderr and exit: 2 for usage errors (bad options, entrants, manifest), 1 otherwise."""
    click.echo(f"referee {command}: error: {message}", err=True)
    sys.exit(code)


def hold_lock(held: contextlib.ExitStack, directory: Path, command: str) -> None:
    """Hold the results folder's lock (once) until ``held`` closes; another referee holding it is one line."""
    from referee.tournament.lock import FolderBusy, ResultsLock

    if getattr(held, "locked", False):
        return
    try:
        held.enter_context(ResultsLock(directory))
    except FolderBusy as e:
        fail(command, str(e), 1)
    except OSError as e:
        fail(command, f"cannot write to the results folder {directory}: {e.strerror or e}", 1)
    held.locked = True  # type: ignore[attr-defined]


def storage_failed(directory: Path, e: BaseException, command: str) -> NoReturn:
    """A full or read-only results folder: one line; every finished game is in the database already."""
    reason = (e.strerror if isinstance(e, OSError) else None) or str(e)
    fail(
        command,
        f"cannot write to the results folder {directory}: {reason}; the finished games are saved: make room (or "
        f"make it writable) and continue with: referee {command} --resume {directory}",
        1,
    )
