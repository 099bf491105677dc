"""Reading a file an organiser names or an entrant supplies (a manifest, a ruleset, a deal secret): never waiting on
it, never reading without end.

``read_input`` opens without blocking (a FIFO with no writer would otherwise hold the open), refuses anything but
a regular file (a FIFO, a device such as ``/dev/zero``, a folder) before reading a byte, and reads at most its limit,
refusing a longer file: each in one line naming the file. The parsers that read what it returns raise
``RecursionError`` on input nested thousands deep (a manifest of ``a = [[[[...``); ``nested_too_deeply`` words that
one line.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from referee.engine.errors import RefereeError

__all__ = ["InputFileError", "nested_too_deeply", "read_input"]


class InputFileError(RefereeError, ValueError):
    """A named input file that cannot be used: missing, unreadable, not a regular file, or too large."""


def read_input(path: Path, what: str, limit: int) -> bytes:
    """The bytes of the regular file ``path`` (at most ``limit``); ``what`` names it in the one-line
    ``InputFileError`` raised when it is missing or unreadable, is not a regular file, or holds more than ``limit``
    bytes."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise InputFileError(f"{what} {path} not found") from None
    except OSError as exc:
        raise InputFileError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            kind = "a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else "not a regular file"
            raise InputFileError(f"{what} {path} is {kind}: give a file")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise InputFileError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if size > limit:
        raise InputFileError(f"{what} {path} is larger than {limit:,} bytes: not a {what}")
    return b"".join(chunks)


def nested_too_deeply(what: str, path: Path) -> str:
    """The line for a file whose parser gave up on its nesting (``RecursionError``)."""
    return f"{what} {path} is nested too deeply to read"
