"""Cross-site request forgery: a request that changes something (``POST``, ``PUT``, ``PATCH``, ``DELETE``) and
that a browser may have sent with the sign-in cookie must come from a page of this very site (its origin: scheme,
host and port), whatever route it goes to: the sign-in, sign-out and submit forms and the API's submissions alike.

``SameSite=Strict`` keeps the cookie off requests from *other sites*, but a sibling subdomain
(``evil.example.org`` beside ``ladder.example.org``) or another port of the same host is the *same site*, and
the browser sends the cookie along. So such a request is refused with 403 when its ``Sec-Fetch-Site`` (Fetch
Metadata, sent by every current browser) is anything but ``same-origin`` or ``none`` (typed by the user), or when
its ``Origin`` (sent by browsers on every POST) is ``null`` or names another host. A request that carries a
Bearer token is not checked: its token, not the cookie, says who it is, and a page of another site cannot add
that header without a CORS preflight this site never answers. A client that sends neither header is no browser
(``referee ladder submit --server``, curl): it has to hold the token or the cookie itself.
"""

from __future__ import annotations

from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from referee.web.auth import bearer_token
from referee.web.errors import error_response

__all__ = ["SAFE_METHODS", "SameOrigin", "cross_origin"]

#: Methods that change nothing: never checked.
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: ``Sec-Fetch-Site`` values of a request made by a page of this origin, or by the user (a typed address, a bookmark).
_OWN = ("same-origin", "none")


def cross_origin(headers: Headers) -> str | None:
    """Why a browser request with ``headers`` did not come from a page of the origin it was sent to (one line), or
    None when it did, or when it says nothing of where it came from (no ``Sec-Fetch-Site``, no ``Origin``)."""
    fetched_from = headers.get("sec-fetch-site")
    if fetched_from is not None and fetched_from not in _OWN:
        return f"a request from another origin (Sec-Fetch-Site: {fetched_from[:40]}) may not change anything here"
    origin = headers.get("origin")
    if origin is None:
        return None
    if origin == "null" or origin.split("://", 1)[-1] != headers.get("host", ""):
        return f"a request from {origin[:100]} may not change anything here: post from this site's own pages"
    return None


class SameOrigin:
    """ASGI middleware: a request of a method not in ``SAFE_METHODS`` and without a Bearer token is answered 403
    (the API's JSON error or the error page, one line) when ``cross_origin`` finds it came from another origin; its
    body is never read."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] in SAFE_METHODS:
            await self.app(scope, receive, send)
            return
        headers = Headers(scope=scope)
        problem = None if bearer_token(headers.get("authorization")) is not None else cross_origin(headers)
        if problem is None:
            await self.app(scope, receive, send)
            return
        response = error_response(Request(scope, receive), 403, problem, {"Connection": "close"})
        await response(scope, receive, send)
