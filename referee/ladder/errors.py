"""The ladder's errors: each a one-line message naming what was refused and what to do.

LadderError          referee.engine.RefereeError: a ladder folder or request that cannot be used
├── ConfigFileError  ladder.toml is unreadable or holds an impossible value (names the key)
├── IntakeError      a submitted bot (file, folder, archive, bot.toml) is refused (names the entry)
├── Refused          a request the ladder's rules refuse (daily cap, a gate already running, unknown name)
│   └── SeatRefused  a human game that may not start now (too many at once, on the server or for one person)
├── LadderStoreError the ladder's database cannot be used (not a ladder, newer schema, unreadable)
├── LaneLost         a lane's worker (a process of ours, a Dask worker) ended while it played a block
├── ClusterGone      serve --cluster's Dask scheduler gone for good (not reached again in time): serve stops
└── VersionShipError a version's files could not be fetched on a Dask worker, or did not match their digest
    └── VersionBuildError  a version's build failed on a Dask worker of another platform than the coordinator's
"""

from __future__ import annotations

from referee.engine.errors import RefereeError

__all__ = [
    "ClusterGone",
    "ConfigFileError",
    "IntakeError",
    "LadderError",
    "LadderStoreError",
    "LaneLost",
    "NotFound",
    "Refused",
    "SeatRefused",
    "VersionBuildError",
    "VersionShipError",
]


class LadderError(RefereeError):
    """A ladder folder or request that cannot be used; the message is one line."""


class ConfigFileError(LadderError, ValueError):
    """``ladder.toml`` cannot be read or holds an impossible value; the message names the file and the key."""


class IntakeError(LadderError, ValueError):
    """A submitted bot is refused: the message names the entry (an archive member, a file, a bot.toml field)."""


class Refused(LadderError):
    """A request the ladder's rules refuse: an unknown entrant or version, a name taken, the daily submission cap,
    a build or gate of the entrant still running, a retired version."""


class SeatRefused(Refused):
    """A human game that may not start now: too many at once on the server, or for this person (``referee.web``'s
    human seat); ``status`` is the HTTP status that says so (503 or 429)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class NotFound(Refused):
    """No entrant, version, block, game or epoch of that name or number. ``organiser``: what the organiser can do
    about it (a command), said after the message in the organiser's tools and left out of ``public`` (what the web
    shows everyone)."""

    def __init__(self, message: str, *, organiser: str | None = None) -> None:
        super().__init__(f"{message}: {organiser}" if organiser else message)
        self.public = message


class LadderStoreError(LadderError):
    """The ladder's database cannot be used (not a ladder folder, a newer schema, unreadable), or a read or write of
    it failed (a full or read-only disk, a lock held too long): ``reason`` is SQLite's own words (``"database or
    disk is full"``), or the message when the store found the problem."""

    def __init__(self, message: str, *, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = message if reason is None else reason


class LaneLost(LadderError):
    """A lane's worker (a process of ours, or a Dask worker) ended while it played a block: ``serve`` voids the
    block and plays it again; the message is the one line said about it."""


class VersionShipError(LadderError):
    """A version's files could not be fetched on a Dask worker, or did not match their digest (``lanes_ship``)."""


class VersionBuildError(VersionShipError):
    """A version's build failed on a Dask worker whose platform is not the coordinator's (``platform_build``): the
    block is voided, the version not charged (it passed its gate), and the build not tried again on that platform
    while ``serve`` runs."""


class ClusterGone(LadderError):
    """``serve --cluster``'s Dask scheduler is gone (its connection lost and not back within Dask's connect timeout):
    ``serve`` stops, the block it was playing voided; the message is the one line said about it."""
