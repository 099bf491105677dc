"""Access tokens: printed once, stored only as a scrypt hash, compared in constant time.

A token reads ``lt-<who>-<secret>``: ``who`` is the entrant's number in the store (``admin`` for the organiser), so
the one stored hash to check is found without trying every entrant's; ``secret`` is 32 random bytes (URL-safe
base64, ``secrets.token_urlsafe``). The store keeps ``scrypt$<n>$<r>$<p>$<salt>$<hash>`` (RFC 7914, through
``hashlib.scrypt``: about 16 MiB and a few tens of milliseconds per check, so a stolen database does not give
the tokens away). ``check_token`` always computes one scrypt, also for a token naming nobody, and compares with
``hmac.compare_digest``, so neither the time nor the answer tells a guesser which part was wrong.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
import secrets
from dataclasses import dataclass

__all__ = ["ADMIN", "Principal", "check_token", "hash_token", "new_token", "token_owner"]

#: The ``who`` of the organiser's token.
ADMIN = "admin"
_PREFIX = "lt"
_N, _R, _P = 2**14, 8, 1
_SALT_BYTES = 16
_TOKEN = re.compile(r"^lt-(admin|[1-9][0-9]{0,17})-([A-Za-z0-9_-]{43})$")
#: A hash no token matches, checked against when a token names nobody (so that it takes as long as a real check).
_NOBODY = "scrypt$16384$8$1$" + "00" * _SALT_BYTES + "$" + "00" * 32


@dataclass(frozen=True, slots=True)
class Principal:
    """Who a token authenticates: the organiser (``admin``), or the entrant ``entrant_id`` named ``name``."""

    admin: bool
    entrant_id: int | None = None
    name: str | None = None


def new_token(who: int | str) -> str:
    """A fresh token for entrant number ``who`` (or ``ADMIN``)."""
    return f"{_PREFIX}-{who}-{secrets.token_urlsafe(32)}"


def token_owner(token: str) -> int | str | None:
    """The entrant number (or ``ADMIN``) a well-formed token names; None for anything else."""
    match = _TOKEN.match(token.strip())
    if match is None:
        return None
    who = match.group(1)
    return ADMIN if who == ADMIN else int(who)


def hash_token(token: str) -> str:
    """The stored form of ``token``: ``scrypt$n$r$p$salt$hash`` with a fresh salt."""
    salt = os.urandom(_SALT_BYTES)
    digest = _scrypt(token.strip().encode(), salt, _N, _R, _P)
    return f"scrypt${_N}${_R}${_P}${salt.hex()}${digest.hex()}"


def check_token(token: str, stored: str | None) -> bool:
    """Whether ``token`` is the one ``stored`` was made from (None or malformed: no; still one scrypt long)."""
    try:
        scheme, n, r, p, salt, want = (stored or _NOBODY).split("$")
        if scheme != "scrypt":
            raise ValueError(scheme)
        got = _scrypt(token.strip().encode(), bytes.fromhex(salt), int(n), int(r), int(p))
        expected = bytes.fromhex(want)
    except ValueError:
        _scrypt(b"", b"\0" * _SALT_BYTES, _N, _R, _P)
        return False
    return hmac.compare_digest(got, expected) and stored is not None


def _scrypt(secret: bytes, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(secret, salt=salt, n=n, r=r, p=p, maxmem=64 * 1024 * 1024, dklen=32)
