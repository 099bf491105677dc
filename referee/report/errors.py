"""The report's own errors."""

from __future__ import annotations

from referee.engine.errors import RefereeError


class ReportError(RefereeError):
    """The report cannot be built: no tournament in the folder, an unreadable store, an unwritable output.

    The message is one line that names the thing and what to do.
    """


class NoTournament(ReportError):
    """The folder does not exist or holds no tournament (a usage error of ``referee report``)."""


class ReplayError(RefereeError):
    """A game log does not replay through the engine (a malformed or foreign log); that game shows no replay."""
