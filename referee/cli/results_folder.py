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


class ResultsFolder:
    """The results folder of one ``referee run`` or ``referee compare``: ``lock(directory)`` takes its lock (once)
    and holds it until the ``with`` block ends; another referee holding it is one line."""

    def __init__(self, command: str) -> None:
        self.command = command
        self._held = contextlib.ExitStack()
        self._locked = False

    def __enter__(self) -> ResultsFolder:
        return self

    def __exit__(self, *exc: object) -> None:
        self._held.close()

    def lock(self, directory: Path) -> None:
        from referee.tournament.lock import FolderBusy, ResultsLock

        if self._locked:
            return
        try:
            self._held.enter_context(ResultsLock(directory))
        except FolderBusy as e:
            fail(self.command, str(e), 1)
        except OSError as e:
            fail(self.command, f"cannot write to the results folder {directory}: {e.strerror or e}", 1)
        self._locked = True


def storage_failed(directory: Path, e: BaseException, command: str) -> NoReturn:
    """A full or read-only results folder: one line; every finished game is in the database already."""
    reason = (e.strerror if isinstance(e, OSError) else None) or str(e)
    fail(
        command,
        f"cannot write to the results folder {directory}: {reason}; the finished games are saved: make room (or "
        f"make it writable) and continue with: referee {command} --resume {directory}",
        1,
    )
