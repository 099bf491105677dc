"""The errors of a cluster run, apart from the cluster's modules: ``referee run`` names them without loading Dask's
side of the referee unless ``--cluster`` is given."""

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
