"""The bytes of a game log file: how much a log keeps (``LogLevel``), its name, its compression, and reading it back.

A tournament writes each game's log as one Zstandard frame (``games/<id>.jsonl.zst``: ``zstdcat`` prints it); a log
named anything else (``referee play``'s ``referee-logs/<id>.jsonl``, the logs of an older referee) is plain JSON
Lines. Readers go by the file's first bytes, not its name, and read plain, Zstandard and gzip logs alike.

Zstandard was chosen by measurement (bench/bench_logs.py, bench/README.md "Compact logs"): about as small as gzip's
default level at a sixth of its CPU time a game; its level 1, not its default 3, as measured there and for issue 33.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import zlib
from collections.abc import Iterator
from enum import StrEnum
from pathlib import Path
from typing import BinaryIO

import zstandard

__all__ = [
    "COMPRESSED_SUFFIX",
    "DECODE_ERRORS",
    "LogLevel",
    "LogPacker",
    "log_name",
    "open_log",
]


class LogLevel(StrEnum):
    """How much of each game a run logs: ``full`` every message and reply (``referee verify`` re-reads what each bot
    sent), ``compact`` only the applied moves, faults and results (replays and the engine's check of every move, not
    of the bots' reply lines: a fifth of the size), ``none`` no log file (the report still replays each game from
    the replay stored with its result)."""

    FULL = "full"
    COMPACT = "compact"
    NONE = "none"


#: What a tournament's game logs end with: one Zstandard frame of the JSON Lines.
COMPRESSED_SUFFIX = ".jsonl.zst"

_ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"
_GZIP_MAGIC = b"\x1f\x8b"
#: Zstandard's level 1: a game's log as small as at the default level 3 (within 2%, smaller for some) for about
#: three quarters of its CPU time, and its compressor needs under half the memory (bench/README.md, "Compact logs" and
#: "Hot paths").
_LEVEL = 1
#: The largest window a log's frame may ask the reader for (the writer's frames need at most 512 KiB, an older
#: referee's at level 3 up to 2 MiB): a hostile frame asking for more is refused instead of allocated.
_MAX_WINDOW = 1 << 24
#: Compressed bytes fed to the decompressor at a time: a Zstandard block (at least 4 bytes) holds at most 128 KiB,
#: so one feed gives at most 8 MiB, however the data was made (a decompression bomb is read in bounded steps).
_FEED = 256


def log_name(game_id: str, level: LogLevel) -> str | None:
    """The file name of a tournament game's log at ``level`` (None: no log)."""
    return None if level is LogLevel.NONE else game_id + COMPRESSED_SUFFIX


class LogPacker:
    """Compresses one log file's bytes as they are written (one Zstandard frame); ``None`` from ``for_path`` for a
    plain log. One packer per file: a compressor is not shared between threads (a Dask worker plays several
    tables at once)."""

    def __init__(self) -> None:
        self._obj = zstandard.ZstdCompressor(level=_LEVEL).compressobj()

    @classmethod
    def for_path(cls, path: Path) -> LogPacker | None:
        """A packer for a log written to ``path`` when its name ends with ``.zst``, else None (plain JSON Lines)."""
        return cls() if path.name.endswith(".zst") else None

    def pack(self, data: bytes) -> bytes:
        """The compressed bytes of ``data`` ready to be written (may be empty: the compressor holds some back)."""
        return self._obj.compress(data)

    def end(self) -> bytes:
        """The rest of the frame: write it last."""
        return self._obj.flush()


class _Unzstd(io.RawIOBase):
    """A Zstandard file's content as a raw stream, decompressed in bounded steps; a frame cut short (a referee
    killed while writing) raises ``EOFError`` at its end, as ``gzip`` does, rather than reading as a shorter log."""

    def __init__(self, raw: BinaryIO) -> None:
        self._raw = raw
        self._dctx = zstandard.ZstdDecompressor(max_window_size=_MAX_WINDOW)
        self._obj = self._dctx.decompressobj()
        self._ready = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        while not self._ready:
            if self._obj.eof:  # a frame ended: what follows is another frame (``zstd`` concatenates them) or the end
                rest = self._obj.unused_data or self._raw.read(_FEED)
                if not rest:
                    return 0
                self._obj = self._dctx.decompressobj()
            else:
                rest = self._raw.read(_FEED)
                if not rest:
                    raise EOFError("the compressed log ends in the middle of its frame (cut short)")
            self._ready = memoryview(self._obj.decompress(rest))
        n = min(len(buffer), len(self._ready))
        buffer[:n] = self._ready[:n]
        self._ready = self._ready[n:]
        return n

    def close(self) -> None:
        self._raw.close()
        super().close()


#: What reading a compressed log may raise besides ``OSError`` (which includes ``gzip.BadGzipFile``): a cut-short
#: file, data that is not what its first bytes say.
DECODE_ERRORS: tuple[type[Exception], ...] = (EOFError, zstandard.ZstdError, zlib.error)


@contextlib.contextmanager
def open_log(path: Path) -> Iterator[BinaryIO]:
    """The log at ``path`` opened for reading its content (a plain, Zstandard or gzip file, by its first bytes).
    Raises ``OSError`` when it cannot be opened; reading it may raise ``OSError`` or one of ``DECODE_ERRORS``."""
    with open(path, "rb") as handle:
        magic = handle.peek(4)[:4]
        if magic == _ZSTD_MAGIC:
            with io.BufferedReader(_Unzstd(handle), buffer_size=64 * 1024) as content:
                yield content
        elif magic[:2] == _GZIP_MAGIC:
            with gzip.GzipFile(fileobj=handle, mode="rb") as content:
                yield content  # type: ignore[misc]
        else:
            yield handle
