"""Who is asking: an entrant's token (``Authorization: Bearer``, or the sign-in cookie) or the organiser's.

The store keeps only a scrypt hash of each token and checks a token against it with a constant-time comparison
(``referee.ladder``). scrypt is slow on purpose (tens of milliseconds), so the ladder remembers a token it verified
(``Ladder.remembered``: a dictionary look-up and one read that the token's stored hash is unchanged, so a token
renewed with ``referee ladder token``, even from another process, stops working at once). Wrong tokens are never
remembered (a flood of them would fill memory); ``access.caller`` limits how many tokens not seen before one client
address may have checked a minute, and a check runs in a thread, one at a time, so it never stalls the pages.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Generic, TypeVar

import trio

P = TypeVar("P")

__all__ = ["COOKIE", "Authenticator", "bearer_token", "cookie_name"]

#: The sign-in cookie: HttpOnly, SameSite=Strict; behind a TLS proxy (``WebSettings.behind_proxy``) Secure and named
#: with the ``__Host-`` prefix (``cookie_name``), so that no other host (a sibling subdomain) can set it for this one.
COOKIE = "referee_token"
#: What a token can look like (URL-safe base64 and dots, bounded): anything else is refused before any hashing.
_SHAPE = re.compile(r"[A-Za-z0-9_.\-]{16,200}")


def cookie_name(secure: bool) -> str:
    """The sign-in cookie's name: ``__Host-referee_token`` when it is Secure (browsers then take it only from this
    host, over TLS, for the whole site), else ``referee_token``."""
    return f"__Host-{COOKIE}" if secure else COOKIE


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header, or None when the header is absent or another scheme."""
    if not authorization:
        return None
    scheme, _, value = authorization.strip().partition(" ")
    if scheme.lower() != "bearer":
        return None
    return value.strip() or None


class Authenticator(Generic[P]):
    """Tokens to principals (``referee.ladder.Principal``). ``remember(token)`` is the ladder's look-up of a token
    verified before (quick: no scrypt), ``verify(token)`` its full check (slow; constant-time against the stored
    hash); both return the principal or None."""

    def __init__(self, remember: Callable[[str], P | None], verify: Callable[[str], P | None]) -> None:
        self._remember = remember
        self._verify = verify
        self._limiter = trio.CapacityLimiter(1)

    def remembered(self, token: str) -> P | None:
        """The principal of a token verified before and not renewed since, else None (no scrypt)."""
        if not _SHAPE.fullmatch(token):
            return None
        return self._remember(token)

    async def principal(self, token: str | None) -> P | None:
        """The principal of ``token``, or None when it is missing, malformed or wrong (runs the store's check in a
        thread, one at a time, unless the token was verified before)."""
        if token is None or not _SHAPE.fullmatch(token):
            return None
        known = self.remembered(token)
        if known is not None:
            return known
        return await trio.to_thread.run_sync(self._verify, token, limiter=self._limiter)
