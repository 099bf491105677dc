"""Read a tournament's results database directly with SQL, to check what the report shows against it."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any


def query(folder: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    db = sqlite3.connect(f"file:{folder / 'results.sqlite'}?mode=ro", uri=True)
    try:
        return db.execute(sql, args).fetchall()
    finally:
        db.close()


def per_entrant(folder: Path) -> dict[str, dict[str, float]]:
    """Games, mean score, mean rank and forfeits of each entrant, straight from the seats table."""
    rows = query(
        folder,
        "SELECT entrant, count(*), avg(score), avg(rank), sum(forfeit) FROM seats GROUP BY entrant",
    )
    return {r[0]: {"games": r[1], "mean_score": r[2], "mean_rank": r[3], "forfeits": r[4]} for r in rows}
