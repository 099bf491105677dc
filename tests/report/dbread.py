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
    """Games, mean score, mean rank and forfeits of each entrant, straight from the seats table; a forfeiting seat's
    score counted as the statistics count it (one more than the highest score of a seat of its game that did not
    forfeit, or its own when higher: referee/contest/counting.py)."""
    rows = query(
        folder,
        "SELECT s.entrant, count(*), "
        "avg(CASE WHEN s.forfeit AND b.best IS NOT NULL THEN max(s.score, b.best + 1) ELSE s.score END), "
        "avg(s.rank), sum(s.forfeit) FROM seats s LEFT JOIN "
        "(SELECT game_id, max(score) AS best FROM seats WHERE NOT forfeit GROUP BY game_id) b USING (game_id) "
        "GROUP BY s.entrant",
    )
    return {r[0]: {"games": r[1], "mean_score": r[2], "mean_rank": r[3], "forfeits": r[4]} for r in rows}
