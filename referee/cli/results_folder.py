"""The results folder of ``referee run`` and ``referee compare``: which one, its lock, refusing to continue it, and
a full or read-only disk."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

if TYPE_CHECKING:
    from referee.tournament import EntrantInfo


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
        from referee.contest.errors import FolderBusy
        from referee.contest.lock import ResultsLock

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
    """A full or read-only results folder (an ``OSError`` or a ``StoreError``): one line; every finished game is in
    the database already."""
    from referee.tournament import StoreError

    reason = (e.strerror if isinstance(e, OSError) else e.reason if isinstance(e, StoreError) else None) or str(e)
    fail(
        command,
        f"cannot write to the results folder {directory}: {reason}; the finished games are saved: make room (or "
        f"make it writable) and continue with: referee {command} --resume {directory}",
        1,
    )


def results_directory(command: str, out: Path | None, resume: Path | None, fresh: str) -> Path:
    """The results folder that ``--out`` or ``--resume`` names, else a new one, ``fresh/<time>``. Refuses the two
    naming different folders, and ``--resume`` of a folder that holds no results."""
    from datetime import UTC, datetime

    from referee.runner.layout import DB_NAME

    what = "tournament" if command == "run" else "comparison"
    if resume is not None and out is not None and resume != out:
        fail(command, "give either --out or --resume (both name the results folder)")
    if resume is not None and not (resume / DB_NAME).exists():
        fail(command, f"--resume {resume}: no {what} there ({DB_NAME} not found)")
    return resume or out or Path(fresh) / datetime.now(UTC).strftime("%Y%m%d-%H%M%S")


def refuse(command: str, directory: Path, resumed: bool, message: str) -> NoReturn:
    """Refuse what the options ask; on a resume, name the results folder and say how to go on."""
    if resumed:
        fail(command, f"results folder {directory}: {message}; use the same options, or another --out")
    fail(command, message)


def check_unchanged(command: str, directory: Path, entrants: Iterable[EntrantInfo], label: str = "") -> None:
    """Refuse to continue when an entrant's files changed since its first game (``label`` goes before its name)."""
    what = "tournament" if command == "run" else "comparison"
    for entrant in entrants:
        if (change := entrant.changed()) is not None:
            fail(
                command,
                f"results folder {directory}: {label}{entrant.name} is not the program that played its games so far "
                f"({change}); put its files back as they were, or start a new {what} with another --out",
            )


def tidy(directory: Path) -> None:
    """Leave the results folder without SQLite's side files (``results.sqlite-wal`` and ``-shm``): a read-only
    reader (the report) that closes last leaves them; the store, opened and closed alone, checkpoints and removes
    them. Best effort: a folder that cannot be tidied keeps them, which is harmless."""
    from referee.tournament import ResultsStore, StoreError

    with contextlib.suppress(StoreError, OSError):
        ResultsStore(directory, create=False).close()
