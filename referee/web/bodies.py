"""A cap on every request body that is not a submission (sign-in forms, JSON requests): ``SMALL_BODY`` bytes, sent
within the upload time limits.

Submissions have their own, larger cap (``uploads.py``); everything else a client sends is small, so a larger body
is refused with 413 at once (by its ``Content-Length``) or as soon as it passes the cap. Every body, a
submission's too, has a deadline (``bounded``), as Apache's mod_reqtimeout gives one (``RequestReadTimeout
body=10,MinRate=...``): ``idle`` seconds, one more second for every ``rate`` bytes received, and never more than
``total`` seconds in all; and no gap of ``idle`` seconds. A body that misses it is refused with 408 at that moment,
so that no client holds a request open by sending its body slowly, or without end: with the defaults a trickle is
cut after about 10 seconds, a 64 KiB form after 14 at most, a 16 MiB upload after 120 at most.
"""

from __future__ import annotations

import json
from collections.abc import Callable

import trio
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["SMALL_BODY", "SmallBodies", "bounded"]

SMALL_BODY = 64 * 1024


class _Refused(HTTPException):
    """Raised from the body as it is read: the app's error handlers answer it like any refusal."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(status, message, {"Connection": "close"})


def _too_large(path: str) -> _Refused:
    return _Refused(413, f"request body too large: at most {SMALL_BODY:,} bytes on {path}")


def _too_slow(path: str, idle: float, rate: int) -> _Refused:
    return _Refused(
        408,
        f"request body too slow on {path}: nothing for {idle:g} s, or less than {rate:,} bytes a second; send it at "
        "once",
    )


class SmallBodies:
    """ASGI middleware: bodies of requests outside ``upload_paths`` are capped at ``SMALL_BODY`` bytes and must
    arrive within the deadline of ``bounded`` (``idle``, ``rate``, ``total``)."""

    def __init__(
        self, app: ASGIApp, upload_paths: frozenset[str], idle: float = 10.0, total: float = 120.0, rate: int = 16384
    ) -> None:
        self.app = app
        self.upload_paths = upload_paths
        self.idle = idle
        self.total = total
        self.rate = rate

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in self.upload_paths:
            await self.app(scope, receive, send)
            return
        path = scope["path"]
        for name, value in scope.get("headers", ()):
            if name == b"content-length" and value.isdigit() and int(value) > SMALL_BODY:
                await _answer(send, path, _too_large(path))
                return
        started = False
        capped = bounded(
            receive, SMALL_BODY, self.idle, self.total, lambda: _too_large(path),
            lambda: _too_slow(path, self.idle, self.rate), rate=self.rate,
        )  # fmt: skip

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, capped, watched)
        except _Refused as refused:
            if not started:
                await _answer(send, path, refused)


def bounded(
    receive: Receive,
    cap: int,
    idle: float,
    total: float,
    too_large: Callable[[], Exception],
    too_slow: Callable[[], Exception],
    *,
    rate: int | None = None,
) -> Receive:
    """``receive`` for a request body of at most ``cap`` bytes that sends something every ``idle`` seconds and is
    whole within ``total`` seconds from now, and, with ``rate``, within ``idle`` seconds plus one for every ``rate``
    bytes received: raises ``too_large()`` or ``too_slow()`` otherwise. Once the body is whole, receiving (the
    client's disconnect, while a response streams) is not limited."""
    received = 0
    whole = False
    start = trio.current_time()
    deadline = start + total

    def due() -> float:
        """When the body's time is up, for what it has sent so far."""
        return deadline if rate is None else min(deadline, start + idle + received / rate)

    async def capped() -> Message:
        nonlocal received, whole
        if whole:
            return await receive()
        if trio.current_time() > due():
            raise too_slow()
        with trio.move_on_at(min(due(), trio.current_time() + idle)) as waited:
            message = await receive()
        if waited.cancelled_caught:
            raise too_slow()
        whole = message["type"] != "http.request" or not message.get("more_body", False)
        received += len(message.get("body", b""))
        if received > cap:
            raise too_large()
        return message

    return capped


async def _answer(send: Send, path: str, refused: _Refused) -> None:
    message, status = refused.detail, refused.status_code
    if path.startswith("/api/"):
        body, kind = json.dumps({"error": message, "status": status}).encode(), b"application/json"
    else:
        body, kind = message.encode(), b"text/plain; charset=utf-8"
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", kind),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
