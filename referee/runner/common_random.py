"""Common random numbers: the ``rng_seed`` each seat's ``game_start`` carries (PROTOCOL.md, "Common random numbers").

A duplicate block plays one deal in several seat orders, and ``referee compare`` plays it once with NEW and once with
OLD in the same seat. When the bots draw their random numbers from their own fresh seeds, each of those games has its
own luck of the draw on top of the cards' luck, and the block's paired difference carries that noise. With a seed that
is the same for whoever sits in seat ``s`` of a deal, a bot that seeds its generator from it (the Python SDK does)
draws the same numbers in every game of the block that gives it those cards, so the noise cancels as the cards' luck
does.

The seed is the first 8 bytes of ``HMAC-SHA256(key=K, message="referee-rng/2/<seat>/<deal>")``, in hex, where the
deal is every round's hands by seat as compact JSON (``[[[1,2,...],...],...]``) and ``K`` is a secret no bot sees:
``deal_key`` of the game's deal seed (which a tournament, a ladder or ``compare`` draws from its secret), or fresh
random bytes for a deal given without a seed (``referee play --deal``, ``referee check``'s planned deals). What a bot
learns from it:

- Nothing of the cards it does not hold, during the game or after it. Keyed with the deal alone (protocol 1's first
  form), the seed was a checksum of the whole deal: once a game was over, a seat could search the deals consistent
  with what it saw for the one whose checksum matched, and so learn the others' private discards. Without ``K`` the
  HMAC cannot be computed, and finding ``K`` means finding the 63-bit deal seed, which gives the whole deal anyway.
- Nothing of which games share a deal that its own hand does not already tell: two games give the same seed only to
  the seat holding the same cards of the same deal, and those cards are in the ``deal`` line that follows.

``rng_seed`` is a pure function of its arguments; only ``deal_key(None)`` draws random bytes.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets

from referee.engine import Deal

__all__ = ["deal_key", "rng_seed"]


def deal_key(seed: int | None) -> bytes:
    """The HMAC key of the deal dealt from ``seed``: the same for every game of that deal; fresh random bytes (every
    call its own) for None, a deal given without a seed."""
    if seed is None:
        return secrets.token_bytes(32)
    return f"referee-rng-key/{seed}".encode()


def rng_seed(deal: Deal, seat: int, key: bytes) -> str:
    """The ``rng_seed`` of ``seat`` on ``deal`` under ``key`` (``deal_key``): 16 lowercase hexadecimal digits."""
    message = f"referee-rng/2/{seat}/{json.dumps(deal, separators=(',', ':'))}".encode()
    return hmac.new(key, message, hashlib.sha256).hexdigest()[:16]
