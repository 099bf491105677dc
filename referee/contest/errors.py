"""The contest core's errors: a folder held by another referee, a schedule that cannot be made, a deal secret that
cannot be used."""

from __future__ import annotations

from referee.engine.errors import RefereeError


class FolderBusy(RefereeError):
    """Another referee holds the results folder; the message names the folder and the holder's pid."""


class ScheduleError(RefereeError, ValueError):
    """The entrants and options cannot make a schedule (too few entrants, bad table size or repeats)."""


class DealSecretError(RefereeError, ValueError):
    """A deal secret cannot be used (unreadable file, not hex, too short, or not the committed one)."""
