"""The errors of ``referee compare``: impossible test parameters or a results folder that holds something else."""

from __future__ import annotations

from referee.engine.errors import RefereeError

__all__ = ["CompareError", "DesignError"]


class CompareError(RefereeError, ValueError):
    """A comparison that cannot be run or continued; the message says what to change."""


class DesignError(CompareError):
    """Impossible test parameters (alpha or beta outside (0, 0.5), d1 not above d0, too few blocks)."""
