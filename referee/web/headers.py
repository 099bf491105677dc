"""Security headers on every response, pages, API, static files and errors alike.

The Content-Security-Policy allows scripts, styles, images and requests from this site only: no inline script
and no inline style anywhere (a name or bot output that slipped past the templates' escaping still could not run),
no frames of this site inside another's, no plugins, forms posting to this site only.
"""

from __future__ import annotations

from starlette.datastructures import MutableHeaders
from starlette.types import ASGIApp, Message, Receive, Scope, Send

CONTENT_SECURITY_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
    "font-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"
)

SECURITY_HEADERS: dict[str, str] = {
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "referrer-policy": "same-origin",
    "cross-origin-opener-policy": "same-origin",
    "cross-origin-resource-policy": "same-origin",
    "permissions-policy": "camera=(), microphone=(), geolocation=(), payment=()",
}


class SecurityHeaders:
    """ASGI middleware: adds ``SECURITY_HEADERS`` to every HTTP response, and ``Cache-Control: no-store`` to every
    response but the static files' (so no cache keeps an author's own data or a stale leaderboard)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def send_with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(scope=message)
                for name, value in SECURITY_HEADERS.items():
                    headers[name] = value
                if "cache-control" not in headers:
                    static = scope["path"].startswith("/static/")
                    headers["cache-control"] = "public, max-age=3600" if static else "no-store"
            await send(message)

        await self.app(scope, receive, send_with_headers)
