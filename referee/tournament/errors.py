"""The tournament's errors, in one light module: ``referee run`` names them without loading what raises them (the
store, the cluster's Dask side, the lanes) unless it is used."""

from __future__ import annotations

from referee.engine.errors import RefereeError


class ClusterError(RefereeError):
    """A cluster run cannot go on: no Dask, an unreachable scheduler, no workers, a batch lost with its workers."""


class WorkerSetupError(ClusterError):
    """A worker lacks an entrant's files or cannot start its bot; ``worker`` and ``entrant`` name them."""

    def __init__(self, worker: str, entrant: str, detail: str) -> None:
        super().__init__(worker, entrant, detail)  # the arguments, so that the error pickles back to the coordinator
        self.worker = worker
        self.entrant = entrant
        self.detail = detail

    def __str__(self) -> str:
        return f"worker {self.worker}: entrant {self.entrant}: {self.detail}"


class ParamsError(RefereeError, ValueError):
    """The requested tournament cannot be run (no entrants, or it differs from the one it would continue)."""


class LaneError(RefereeError):
    """A lane's worker process failed: it ended unexpectedly, or could not be started."""


class ManifestError(RefereeError, ValueError):
    """A bots.toml manifest cannot be used; the message names the file, the entrant and the field."""


class StoreError(RefereeError):
    """The results directory or database cannot be used (not a tournament, newer schema, unreadable), or a read or
    write of it failed (a full or read-only disk). Every ``sqlite3`` error of the store is one of these: ``reason``
    is SQLite's own words (``"database or disk is full"``), or the message when the store found the problem."""

    def __init__(self, message: str, *, reason: str | None = None) -> None:
        super().__init__(message)
        self.reason = message if reason is None else reason


class EmptyStore(StoreError):
    """A results database that holds no tournament yet."""
