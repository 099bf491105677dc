"""The organiser's page (``/admin``, and ``/me`` for the organiser's token): what needs an eye, read from the ladder.

The gate queue; the versions that failed their gate lately or are suspended, and why; each entrant's faults as a
count over blocks (``3 of 120 blocks``: the deal is the unit); the workers lost (blocks voided because a lane's
worker process or Dask worker ended); the epochs; the disk the ladder folder takes and the memory of the process
serving the page (``serve``'s own when the pages are served by ``referee ladder serve``); the latest notices and
where each was sent. Its actions (suspend, lift, retire) are POST forms that go through the ``Ladder`` methods the
shell commands call (``pages.py``).

``overview`` walks the ladder folder for its size (at most ``WALK_CAP`` files), so it runs in a worker thread.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.ladder.model import GATE_STATES, VersionState
from referee.ladder.notices import recent_notices

__all__ = ["FaultRate", "Overview", "folder_bytes", "human_bytes", "overview", "process_memory"]

#: Files counted at most by the folder walk (a ladder of millions of logs is said to be "at least" so big).
WALK_CAP = 200_000
#: How a void's reason says a lane's worker was lost (``LaneLost``'s messages).
_LOST = ("worker", "by the Dask scheduler", "cancelled by the scheduler")


@dataclass(frozen=True, slots=True)
class FaultRate:
    """An entrant's or a version's done blocks, those in which it forfeited at least once, and its games and
    forfeits."""

    who: str
    state: str
    blocks: int
    faulty_blocks: int
    games: int
    forfeits: int


@dataclass(frozen=True, slots=True)
class Overview:
    entrants: list[dict[str, Any]]
    gate: list[Any]
    troubled: list[Any]
    entrant_faults: list[FaultRate]
    version_faults: list[FaultRate]
    lost: list[tuple[int, int, str, str]]
    lost_total: int
    voids: list[tuple[int, int, str, str]]
    epochs: list[Any]
    notices: list[Any]
    disk: dict[str, Any]
    memory: dict[str, Any]


def human_bytes(n: int | None) -> str:
    """``n`` bytes in the largest binary unit that keeps it 1 or more ("12.3 MiB"); "unknown" for None."""
    if n is None:
        return "unknown"
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024:
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} TiB"


def folder_bytes(root: Path, cap: int = WALK_CAP) -> tuple[int, int, bool]:
    """(bytes, files, complete) of the files under ``root`` (symbolic links not followed), at most ``cap`` files."""
    total = files = 0
    stack = [root]
    while stack:
        try:
            entries = list(os.scandir(stack.pop()))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append(Path(entry.path))
                elif entry.is_file(follow_symlinks=False):
                    total += entry.stat(follow_symlinks=False).st_size
                    files += 1
                    if files >= cap:
                        return total, files, False
            except OSError:
                continue
    return total, files, True


def process_memory(pid: int) -> dict[str, int] | None:
    """VmRSS and VmHWM (its peak) of process ``pid`` in bytes, from ``/proc`` (None where it cannot be read)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text(encoding="ascii", errors="replace")
    except OSError:
        return None
    out = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM") and value.strip().endswith("kB"):
            out[key] = int(value.split()[0]) * 1024
    return out or None


def _fault_rates(ladder: Any) -> tuple[list[FaultRate], list[FaultRate]]:
    store = ladder.store
    by_version = store._read(
        "SELECT s.version_id, count(*), sum(s.forfeits > 0), sum(s.games), sum(s.forfeits) FROM block_seats s "
        "JOIN blocks b ON b.id = s.block_id WHERE b.state = 'done' GROUP BY s.version_id"
    )
    versions = store.versions_by_id([int(r[0]) for r in by_version])
    entrants = {e.id: e for e in store.entrants()}
    per_entrant: dict[int, list[int]] = {}
    shown = []
    for vid, blocks, faulty, games, forfeits in by_version:
        v = versions[int(vid)]
        sums = per_entrant.setdefault(v.entrant_id, [0, 0, 0, 0])
        for i, x in enumerate((blocks, faulty, games, forfeits)):
            sums[i] += int(x)
        if v.state in (VersionState.PLACEMENT, VersionState.RANKED, VersionState.SUSPENDED):
            shown.append(FaultRate(v.key, v.state.value, int(blocks), int(faulty), int(games), int(forfeits)))
    rates = [FaultRate(entrants[e].name, entrants[e].state.value, *sums) for e, sums in per_entrant.items()]
    order = lambda r: (-r.faulty_blocks / max(1, r.blocks), r.who)  # noqa: E731
    return sorted(rates, key=order), sorted(shown, key=order)


def overview(ladder: Any) -> Overview:
    """Everything the organiser's page shows (see the module's docstring)."""
    store = ladder.store
    entrants = []
    active = {VersionState.PLACEMENT, VersionState.RANKED, VersionState.SUSPENDED, *GATE_STATES}
    for e in store.entrants():
        live = [v for v in store.versions(entrant_id=e.id) if v.state in active]
        entrants.append({"name": e.name, "state": e.state.value, "reason": e.reason, "versions": live})
    gate = store.versions(states=GATE_STATES)
    failed = store.versions(states=[VersionState.FAILED])[-20:][::-1]
    troubled = store.versions(states=[VersionState.SUSPENDED])[::-1] + failed
    entrant_faults, version_faults = _fault_rates(ladder)
    voids = store.recent_voids(20)
    lost_rows = store._read(
        "SELECT block_id, attempt, reason, at FROM voids WHERE "
        + " OR ".join("reason LIKE ?" for _ in _LOST)
        + " ORDER BY at DESC, block_id DESC",
        [f"%{x}%" for x in _LOST],
    )
    root = ladder.layout.root
    size, files, complete = folder_bytes(root)
    db = sum(p.stat().st_size for p in root.glob(f"{ladder.layout.db.name}*") if p.is_file())
    usage = shutil.disk_usage(root)
    serving = ladder.serving()
    here = os.getpid()
    memory = {
        "pid": here,
        "serve_pid": serving,
        "here": process_memory(here),
        "serve": process_memory(serving) if serving not in (None, -1, here) else None,
    }
    return Overview(
        entrants=entrants, gate=gate, troubled=troubled, entrant_faults=entrant_faults,
        version_faults=version_faults, lost=[tuple(r) for r in lost_rows[:20]], lost_total=len(lost_rows),
        voids=voids, epochs=store.epochs()[::-1], notices=recent_notices(store, 30),
        disk={"folder": size, "files": files, "complete": complete, "database": db, "free": usage.free,
              "total": usage.total},
        memory=memory,
    )  # fmt: skip
