"""Common random numbers: the ``rng_seed`` each seat's ``game_start`` carries (PROTOCOL.md, "Common random numbers").

A duplicate block plays one deal in several seat orders, and ``referee compare`` plays it once with NEW and once with
OLD in the same seat. When the bots draw their random numbers from their own fresh seeds, each of those games has its
own luck of the draw on top of the cards' luck, and the block's paired difference carries that noise. With a seed that
is the same for whoever sits in seat ``s`` of a deal, a bot that seeds its generator from it (the Python SDK does)
draws the same numbers in every game of the block that gives it those cards, so the noise cancels as the cards' luck
does.

The seed is the first 8 bytes of ``HMAC-SHA256(key=the deal, message="referee-rng/1/<seat>")``, in hex, where the
deal is every round's hands by seat as compact JSON (``[[[1,2,...],...],...]``). What a bot learns from it:

- Nothing of the cards it does not hold. Without the whole deal the HMAC cannot be computed, and inverting it is no
  easier than finding the deal from the bot's own hand, which it already holds: a tournament's deals come from a
  secret 63-bit seed (``referee.tournament.deals``), and a search over seeds is checked as cheaply against the
  hand as against this value.
- Nothing of which games share a deal that its own hand does not already tell: two games give the same seed only to
  the seat holding the same cards of the same deal, and those cards are in the ``deal`` line that follows.

A pure function: no clock, no global random state.
"""

from __future__ import annotations

import hashlib
import hmac
import json

from referee.engine import Deal

__all__ = ["rng_seed"]


def rng_seed(deal: Deal, seat: int) -> str:
    """The ``rng_seed`` of ``seat`` on ``deal``: 16 lowercase hexadecimal digits."""
    key = json.dumps(deal, separators=(",", ":")).encode()
    return hmac.new(key, f"referee-rng/1/{seat}".encode(), hashlib.sha256).hexdigest()[:16]
