"""The error of ``referee check`` itself (the bot's faults are findings, not errors)."""

from __future__ import annotations

from referee.engine.errors import RefereeError

__all__ = ["CheckError"]


class CheckError(RefereeError, ValueError):
    """Options the conformance suite cannot run with (no game, no opponent); the message names the option."""
