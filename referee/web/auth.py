"""Who is asking: an entrant's token (``Authorization: Bearer``, or the sign-in cookie) or the organiser's.

The store keeps only a scrypt hash of each token and checks a token against it with a constant-time comparison
(``referee.ladder``). scrypt is slow on purpose (tens of milliseconds), so a token once verified is remembered
here under an HMAC of it with a key made at start and never stored: a later request with the same token costs a
dictionary look-up, and the look-up reveals nothing about other tokens (an attacker cannot compute the HMAC).
Wrong tokens are never remembered (a flood of them would fill memory); ``access.caller`` limits how many tokens
not seen before one client address may have checked a minute, and a check runs in a thread, one at a time, so it
never stalls the pages.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Callable
from typing import Generic, TypeVar

import trio

P = TypeVar("P")

__all__ = ["COOKIE", "Authenticator", "bearer_token"]

#: The sign-in cookie: HttpOnly, SameSite=Strict, Secure behind a TLS proxy (``WebSettings.behind_proxy``).
COOKIE = "referee_token"
#: What a token can look like (URL-safe base64 and dots, bounded): anything else is refused before any hashing.
_SHAPE = re.compile(r"[A-Za-z0-9_.\-]{16,200}")
#: At most this many verified tokens are remembered (the oldest is forgotten first).
_REMEMBERED = 10_000


def bearer_token(authorization: str | None) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header, or None when the header is absent or another scheme."""
    if not authorization:
        return None
    scheme, _, value = authorization.strip().partition(" ")
    if scheme.lower() != "bearer":
        return None
    return value.strip() or None


class Authenticator(Generic[P]):
    """Tokens to principals (``referee.ladder.Principal``). ``verify(token)`` is the store's check (slow;
    constant-time against the stored hash), returning the principal or None."""

    def __init__(self, verify: Callable[[str], P | None]) -> None:
        self._verify = verify
        self._key = secrets.token_bytes(32)
        self._known: dict[bytes, P] = {}
        self._limiter = trio.CapacityLimiter(1)

    def _digest(self, token: str) -> bytes:
        return hmac.new(self._key, token.encode(), hashlib.sha256).digest()

    def remembered(self, token: str) -> P | None:
        """The principal of a token verified before, else None (a dictionary look-up: no scrypt)."""
        return self._known.get(self._digest(token))

    async def principal(self, token: str | None) -> P | None:
        """The principal of ``token``, or None when it is missing, malformed or wrong (runs the store's check in a
        thread, one at a time, unless the token was verified before)."""
        if token is None or not _SHAPE.fullmatch(token):
            return None
        digest = self._digest(token)
        known = self._known.get(digest)
        if known is not None:
            return known
        found = await trio.to_thread.run_sync(self._verify, token, limiter=self._limiter)
        if found is not None:
            if len(self._known) >= _REMEMBERED:
                self._known.pop(next(iter(self._known)))
            self._known[digest] = found
        return found

    def forget(self, name: str | None = None) -> None:
        """Forget remembered tokens: ``name``'s (its token was replaced or it was removed), or every one."""
        if name is None:
            self._known.clear()
            return
        for digest in [d for d, p in self._known.items() if getattr(p, "name", None) == name]:
            del self._known[digest]
