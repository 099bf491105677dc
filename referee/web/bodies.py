"""A cap on every request body that is not a submission (sign-in forms, JSON requests): ``SMALL_BODY`` bytes.

Submissions have their own, larger cap and time limits (``uploads.py``); everything else a client sends is
small, so a larger body is refused with 413 at once (by its ``Content-Length``) or as soon as it passes the cap.
"""

from __future__ import annotations

import json

from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["SMALL_BODY", "SmallBodies"]

SMALL_BODY = 64 * 1024


class _TooLarge(HTTPException):
    """Raised from the body as it is read: the app's error handlers answer it (413) like any refusal."""

    def __init__(self, path: str) -> None:
        super().__init__(413, _message(path), {"Connection": "close"})


def _message(path: str) -> str:
    return f"request body too large: at most {SMALL_BODY:,} bytes on {path}"


class SmallBodies:
    """ASGI middleware: bodies of requests outside ``upload_paths`` are capped at ``SMALL_BODY`` bytes."""

    def __init__(self, app: ASGIApp, upload_paths: frozenset[str]) -> None:
        self.app = app
        self.upload_paths = upload_paths

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["path"] in self.upload_paths:
            await self.app(scope, receive, send)
            return
        for name, value in scope.get("headers", ()):
            if name == b"content-length" and value.isdigit() and int(value) > SMALL_BODY:
                await _refuse(send, scope["path"])
                return
        received = 0
        started = False

        async def capped() -> Message:
            nonlocal received
            message = await receive()
            received += len(message.get("body", b""))
            if received > SMALL_BODY:
                raise _TooLarge(scope["path"])
            return message

        async def watched(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, capped, watched)
        except _TooLarge:
            if not started:
                await _refuse(send, scope["path"])


async def _refuse(send: Send, path: str) -> None:
    message = _message(path)
    if path.startswith("/api/"):
        body, kind = json.dumps({"error": message, "status": 413}).encode(), b"application/json"
    else:
        body, kind = message.encode(), b"text/plain; charset=utf-8"
    await send(
        {
            "type": "http.response.start",
            "status": 413,
            "headers": [
                (b"content-type", kind),
                (b"content-length", str(len(body)).encode()),
                (b"connection", b"close"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
