"""Workers lost while a run goes on: what is said of each (``WorkerLost``) and what the results folder keeps of them
(the ``meta`` entry ``workers_lost``, over every session of a resumed run), for the summary and standings.json.

Light on purpose (no trio, no runner): ``referee standings`` reads it."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, Protocol

__all__ = ["LOST_KEY", "WorkerLost", "lost_workers"]

#: The ``meta`` key under which a run keeps the workers lost in all its sessions (JSON list of
#: ``WorkerLost.to_dict``).
LOST_KEY = "workers_lost"


class _Meta(Protocol):
    def meta(self) -> dict[str, str]: ...


@dataclass(frozen=True, slots=True)
class WorkerLost:
    """A worker that ended while the run went on: which one (``worker``: a Dask worker's address, or a lane), when
    (``at``, seconds since the epoch), the tables it was playing (``tables``: the first game id of each, played
    again by another worker), whether it was told to stop (``expected``: retired, not lost), and how many workers
    the run had left then (None when unknown)."""

    worker: str
    at: float
    tables: tuple[str, ...]
    expected: bool = False
    left: int | None = None

    def line(self) -> str:
        """One line: ``worker tcp://… lost at 17:40:12 UTC playing 2 tables (g000013, g000017): played again …``."""
        when = time.strftime("%H:%M:%S UTC", time.gmtime(self.at))
        how = "retired" if self.expected else "lost"
        shown = ", ".join(self.tables[:5]) + (", ..." if len(self.tables) > 5 else "")
        tables = (
            f"playing {len(self.tables)} table(s) ({shown}), played again on the others"
            if self.tables
            else "playing no table"
        )
        left = "" if self.left is None else f"; {self.left} worker(s) now"
        return f"worker {self.worker} {how} at {when}, {tables}{left}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "worker": self.worker,
            "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.at)),
            "tables": list(self.tables),
            "expected": self.expected,
        }


def lost_workers(store: _Meta) -> list[dict[str, object]]:
    """The workers lost in every session of the run ``store`` holds (``WorkerLost.to_dict``), in order."""
    text = store.meta().get(LOST_KEY)
    try:
        lost = json.loads(text) if text else []
    except ValueError:
        return []
    return lost if isinstance(lost, list) else []
