"""The game ids the bots see: opaque, the same form in every command.

A tournament numbers its games in schedule order (``g000001``...), and from that number a bot could work out which
earlier game was dealt the same cards (a round robin plays every rotation of a table in a row). So the bots are sent
an id that tells nothing: ``g`` and 16 hexadecimal digits of a hash (of the game's secret deal seed and rotation in a
tournament, of fresh random bytes in ``referee play`` and ``referee check``). The logs and the results keep the
schedule's ids; the ``send`` events of a log show what the bots were sent.
"""

from __future__ import annotations

import hashlib
import secrets

__all__ = ["opaque_game_id"]


def opaque_game_id(token: bytes | None = None) -> str:
    """``g`` and 16 hexadecimal digits of ``SHA-256(token)`` (of 16 fresh random bytes without one)."""
    return "g" + hashlib.sha256(secrets.token_bytes(16) if token is None else token).hexdigest()[:16]
