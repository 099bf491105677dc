"""One referee at a time in a results folder: an exclusive lock held for the whole run.

Two ``referee run`` (or ``--resume``) into one folder would both play the same games and write the same game
logs, so the logs would disagree with the database. The lock is ``fcntl.flock`` on ``DIR/.referee.lock``: the
kernel releases it when its holder ends, however it ends (even ``kill -9``), so no stale lock is ever left.
The file holds the holder's pid, which the refusal names, and is removed when the holder is done (while it
still holds the lock; a referee that locked the removed file sees it is gone and locks the new one instead).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from pathlib import Path
from types import TracebackType

from referee.contest.errors import FolderBusy

__all__ = ["LOCK_NAME", "ResultsLock"]

LOCK_NAME = ".referee.lock"


class ResultsLock:
    """``with ResultsLock(directory):`` holds the folder's lock, creating the folder if needed.

    Raises ``FolderBusy`` when another process holds it, ``OSError`` when the folder or the lock file cannot be
    created or written (a read-only or full file system).
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / LOCK_NAME
        self._fd: int | None = None

    def __enter__(self) -> ResultsLock:
        self.directory.mkdir(parents=True, exist_ok=True)
        while True:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 32, 0).decode("ascii", "replace").strip() or "unknown"
                os.close(fd)
                raise FolderBusy(
                    f"results folder {self.directory} is in use by another referee (pid {holder}); "
                    "wait for it to end, or write to another --out"
                ) from None
            except OSError:
                os.close(fd)
                raise
            if self._still_named(fd):
                break
            os.close(fd)  # the holder before removed the file once done: lock the file the path names now
        try:
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        except OSError:
            os.close(fd)
            raise
        self._fd = fd
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._fd is not None:
            with contextlib.suppress(OSError):
                os.unlink(self.path)  # while held: nobody else can hold the file being removed
            os.close(self._fd)  # releases the lock
            self._fd = None

    def _still_named(self, fd: int) -> bool:
        """Whether the lock file ``fd`` is still the one at ``self.path`` (not removed by the holder before)."""
        try:
            return os.fstat(fd).st_ino == os.stat(self.path).st_ino
        except FileNotFoundError:
            return False
