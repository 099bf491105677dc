"""Submissions as they arrive: streamed, size-capped and time-capped before anything is stored.

A submission is a ``multipart/form-data`` body with one file part named ``file`` (the browser's submit form and
``referee ladder submit`` send the same). The body is read through a guard that refuses it with 413 as soon as
it passes ``WebSettings.max_upload`` (at once when ``Content-Length`` already says so), with 408 when the client
sends nothing for ``upload_idle`` seconds, or sends less than ``upload_rate`` bytes a second past its first
``upload_idle`` seconds, or takes longer than ``upload_total`` in all (``bodies.bounded``). Only a body that arrived
whole and within the caps is handed to the ladder's intake, which checks the archive itself (bombs, paths,
links, devices); until then the file is a temporary one that is removed on every refusal.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath

import trio
from starlette.datastructures import UploadFile
from starlette.formparsers import MultiPartException
from starlette.requests import Request

from referee.engine.errors import RefereeError
from referee.web.bodies import bounded
from referee.web.settings import WebSettings

__all__ = ["Upload", "UploadRefused", "received_upload"]

#: What a submitted file may be called (its last path component): letters, digits, dot, dash, underscore.
_NAME = re.compile(r"[A-Za-z0-9_\-][A-Za-z0-9_.\-]{0,99}")
#: Room for the multipart framing (boundary lines, part headers) around the file itself.
_FRAMING = 16 * 1024


class UploadRefused(RefereeError):
    """An upload refused before it was stored: an HTTP status and a one-line message saying what to do."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True, slots=True)
class Upload:
    """A received submission: a temporary copy at ``path`` named like the sender's file, ``size`` bytes."""

    path: Path
    filename: str
    size: int


def safe_filename(raw: str | None) -> str:
    """The last component of the sender's file name, if it is a plain name. Raises ``UploadRefused`` (400)."""
    if not raw:
        raise UploadRefused(400, "the upload has no file name: send the bot as a file part named 'file'")
    name = PureWindowsPath(PurePosixPath(raw).name).name
    if not _NAME.fullmatch(name) or name in {".", ".."}:
        raise UploadRefused(
            400, f"file name {raw[:80]!r} is not allowed: use letters, digits, '.', '-' and '_' (at most 100)"
        )
    return name


def _guarded(request: Request, settings: WebSettings) -> Request:
    """``request`` whose body refuses itself past the size cap, after an idle gap, or past the total time."""
    declared = request.headers.get("content-length")
    cap = settings.max_upload + _FRAMING
    if declared is not None and declared.isdigit() and int(declared) > cap:
        raise UploadRefused(413, _too_large(settings))
    receive = bounded(
        request.receive, cap, settings.upload_idle, settings.upload_total,
        lambda: UploadRefused(413, _too_large(settings)), lambda: UploadRefused(408, _too_slow(settings)),
        rate=settings.upload_rate,
    )  # fmt: skip
    return Request(request.scope, receive)


def _too_large(settings: WebSettings) -> str:
    return f"upload refused: larger than the ladder's limit of {settings.max_upload:,} bytes; send a smaller archive"


def _too_slow(settings: WebSettings) -> str:
    return (
        f"upload refused: too slow (nothing for {settings.upload_idle:g} s, less than {settings.upload_rate:,} bytes "
        f"a second, or over {settings.upload_total:g} s in all); try again on a better connection"
    )


@asynccontextmanager
async def received_upload(request: Request, settings: WebSettings) -> AsyncIterator[Upload]:
    """The submission in ``request``, whole and within the caps, as a temporary file removed on leaving.

    Raises ``UploadRefused``: 413 (too large), 408 (too slow), 415 (not multipart), 400 (no file part, a bad name,
    an empty file).
    """
    if not request.headers.get("content-type", "").startswith("multipart/form-data"):
        raise UploadRefused(415, "send the bot as multipart/form-data with one file part named 'file'")
    guarded = _guarded(request, settings)
    try:
        form = await guarded.form(max_files=1, max_fields=4, max_part_size=64 * 1024)
    except MultiPartException as exc:
        raise UploadRefused(400, f"the upload is not valid multipart/form-data: {exc.message}") from None
    folder = Path(tempfile.mkdtemp(prefix="referee-upload-"))
    try:
        part = form.get("file")
        if not isinstance(part, UploadFile):
            raise UploadRefused(400, "the upload has no file part named 'file'")
        name = safe_filename(part.filename)
        target = folder / name
        with target.open("wb") as out:
            await trio.to_thread.run_sync(shutil.copyfileobj, part.file, out)
        size = target.stat().st_size
        if size == 0:
            raise UploadRefused(400, f"the uploaded file {name} is empty")
        yield Upload(target, name, size)
    finally:
        await form.close()
        shutil.rmtree(folder, ignore_errors=True)
