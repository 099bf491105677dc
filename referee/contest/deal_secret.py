"""Deal secrecy: every tournament deal comes from a secret no bot sees, and the tournament commits to it.

A tournament draws a random 32-byte *deal secret* (or takes one from ``--deal-secret FILE``) and keeps it in its
results database, which the sandbox hides from every bot. The deal seed of the table batch ``batch`` of a
tournament with seed ``seed`` is the first 63 bits of ``HMAC-SHA256(secret, "referee-deal/1/<seed>/<batch>")``;
the engine deals the cards from that seed (``seeded_deal``). Every seat rotation of a table has the same batch,
so the same deal (the duplicate format). Without the secret, knowing the tournament seed, the game id and the
schedule tells a bot nothing of the cards; with it, anyone re-derives every deal.

The *commitment* is ``SHA-256(secret)``, printed and stored before the first game. When the tournament ends
the secret is revealed (standings.json, the report, the database) and ``referee verify-deals`` checks that it
hashes to the commitment and re-derives every game's deal from it. The engine stays pure: it only sees seeds.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from dataclasses import dataclass
from pathlib import Path

from referee.contest.errors import DealSecretError
from referee.runner.input_file import InputFileError, read_input

__all__ = [
    "DEAL_SCHEME",
    "SECRET_BYTES",
    "DealSecret",
    "commitment_of",
    "deal_seed",
]

#: The name of the derivation, stored and shown with the commitment (a later scheme gets a new name).
DEAL_SCHEME = "hmac-sha256/v1"
#: Bytes of a new secret; a secret given from a file must have at least this many.
SECRET_BYTES = 32

_HEX = re.compile(r"[0-9a-fA-F]+")


@dataclass(frozen=True, slots=True)
class DealSecret:
    """A tournament's deal secret. ``hex`` is how it is stored, revealed and given back with ``--deal-secret``."""

    key: bytes

    def __post_init__(self) -> None:
        if len(self.key) < SECRET_BYTES:
            raise DealSecretError(f"a deal secret has at least {SECRET_BYTES} bytes, got {len(self.key)}")

    @classmethod
    def new(cls) -> DealSecret:
        """A fresh random secret from the operating system's generator."""
        return cls(os.urandom(SECRET_BYTES))

    @classmethod
    def from_hex(cls, text: str) -> DealSecret:
        text = text.strip()
        if not _HEX.fullmatch(text) or len(text) % 2:
            raise DealSecretError("a deal secret is written as hexadecimal digits (as standings.json reveals it)")
        return cls(bytes.fromhex(text))

    @classmethod
    def from_file(cls, path: Path) -> DealSecret:
        """Read a secret written as hex (e.g. the ``secret`` of an earlier tournament's standings.json)."""
        try:
            data = read_input(path, "deal secret file", 4096)
        except InputFileError as exc:
            raise DealSecretError(str(exc)) from None
        try:
            return cls.from_hex(data.decode("ascii"))
        except (UnicodeDecodeError, DealSecretError) as exc:
            detail = str(exc) if isinstance(exc, DealSecretError) else "not hexadecimal text"
            raise DealSecretError(f"deal secret file {path}: {detail}") from None

    @property
    def hex(self) -> str:
        return self.key.hex()

    def weakness(self) -> str | None:
        """Why the secret is plainly not random (too few different bytes: zeros, a repeated pattern), or None. A
        secret made by ``new`` has 30 different bytes of 32 on average, never fewer than 16 in practice."""
        distinct = len(set(self.key))
        if distinct < min(16, len(self.key) // 2):
            return f"it has only {distinct} different byte value{'s' if distinct != 1 else ''} in {len(self.key)}"
        return None

    @property
    def commitment(self) -> str:
        """``SHA-256(secret)`` in hex: published before the first game, checked against the revealed secret."""
        return commitment_of(self.key)

    def seed(self, tournament_seed: int, batch: int) -> int:
        """The deal seed of table batch ``batch`` (see ``deal_seed``)."""
        return deal_seed(self.key, tournament_seed, batch)

    def __repr__(self) -> str:  # never print the secret by accident
        return f"DealSecret(commitment={self.commitment[:16]}…)"


def commitment_of(key: bytes) -> str:
    return hashlib.sha256(key).hexdigest()


def deal_seed(key: bytes, tournament_seed: int, batch: int) -> int:
    """The first 63 bits of ``HMAC-SHA256(key, "referee-deal/1/<tournament_seed>/<batch>")``, as an integer."""
    message = f"referee-deal/1/{tournament_seed}/{batch}".encode()
    return int.from_bytes(hmac.new(key, message, hashlib.sha256).digest()[:8], "big") >> 1
