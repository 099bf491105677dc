"""Standings as rich renderables: the standings table and the head-to-head matrix (a run's live view of them is
``referee.tournament.live``)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from referee.runner.safe_text import literal
from referee.tournament.standings import WINS_NOTE, EntrantStanding, Standings

__all__ = ["head_to_head_table", "standings_table"]


#: Widest a declared name is shown (a bot chooses it, and it may be of any length); the files have it whole.
DECLARED_WIDTH = 40


def _f(x: float | None, digits: int = 2) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


#: The columns the standings keep on a terminal too narrow for all of them (the files have every column).
NARROW_COLUMNS = ("#", "entrant", "games", "mean score", "forfeits", "matchpoints", "vs next")
NARROW_NOTE = "Some columns are left out to fit the terminal: standings.csv and standings.json have them all."


def standings_table(
    standings: Standings, *, top: int | None = None, title: str | None = None, width: int | None = None
) -> Table:
    """Entrants best first (``top`` rows at most): games, wins, mean score ± 95% CI, mean rank, forfeits, rating,
    then the deal statistics: deals played, matchpoints ± 95% CI, and whether the place is separated from the next.

    The column "declared" (the name each bot gave in its hello) appears when some bot declared another name; a
    caption says how a shared first place splits a win when some wins are fractional. Given the ``width`` it must
    fit (a terminal's), a table that cannot fit keeps only ``NARROW_COLUMNS``, with a caption saying so, rather
    than squeezing columns to nothing.
    Names are shown literally (see ``referee.runner.safe_text``): a bot's markup or escape codes stay text.
    """
    rows = standings.entrants if top is None else standings.entrants[:top]
    table = _standings_table(standings, rows, title, keep=None)
    if width is not None and _widest(table) > width and _narrowest(table) > width:
        table = _standings_table(standings, rows, title, keep=NARROW_COLUMNS)
        table.caption = NARROW_NOTE if table.caption is None else f"{table.caption} {NARROW_NOTE}"
        table.caption_justify = "left"
    return table


def _widest(table: Table) -> int:
    """An upper bound on ``_narrowest(table)``, without rich's measurement (a few milliseconds): every column as
    wide as its widest cell unwrapped, with the padding and the rules between columns."""
    widths = [
        max(
            column.min_width or 0,
            *(cell_len(line) for cell in (column.header, *column.cells) for line in str(cell).splitlines() or [""]),
        )
        for column in table.columns
    ]
    left, right = table.padding[3], table.padding[1]
    return sum(widths) + len(widths) * (left + right) + len(widths) + 1


def _narrowest(table: Table) -> int:
    """The fewest columns ``table`` needs to show every cell without squeezing one."""
    console = Console(width=10_000, file=io.StringIO())
    return Measurement.get(console, console.options, table).minimum


def _standings_table(
    standings: Standings, rows: Sequence[EntrantStanding], title: str | None, keep: Sequence[str] | None
) -> Table:
    declared = any(e.declared_name and e.declared_name != e.name for e in rows)
    table = Table(title=title or f"Standings after {standings.games} games", title_justify="left")
    # Only the names and the forfeits wrap: on a narrow terminal rich narrows the columns that may wrap, and would
    # squeeze a short one such as "#" to nothing; the names fold onto more lines instead.
    columns: dict[str, dict[str, Any]] = {"#": {"justify": "right", "no_wrap": True}, "entrant": {"overflow": "fold"}}
    if declared:
        columns["declared"] = {"max_width": DECLARED_WIDTH, "overflow": "fold"}
    for name in ("games", "wins", "mean score", "mean rank"):
        columns[name] = {"justify": "right", "no_wrap": True}
    columns["forfeits"] = {"min_width": len("forfeits")}
    for name in ("rating", "deals", "matchpoints", "vs next"):
        columns[name] = {"justify": "right", "no_wrap": True}
    shown = [name for name in columns if keep is None or name in keep]
    for name in shown:
        table.add_column(name, **columns[name])
    for place, e in enumerate(rows, start=1):
        score = _f(e.mean_score)
        if e.mean_score is not None and e.mean_score_ci95 is not None:
            score += f" ± {(e.mean_score_ci95[1] - e.mean_score_ci95[0]) / 2:.2f}"
        d = e.deals
        points = _f(d.matchpoints)
        if d.matchpoints is not None and d.matchpoints_ci95 is not None:
            points += f" ± {(d.matchpoints_ci95[1] - d.matchpoints_ci95[0]) / 2:.2f}"
        cells: dict[str, str | Text] = {
            "#": str(place),
            "entrant": literal(e.name),
            "declared": literal(e.declared_name or "-"),
            "games": str(e.games),
            "wins": _f(e.wins, 1),
            "mean score": score,
            "mean rank": _f(e.mean_rank),
            "forfeits": ", ".join(f"{k} {v}" for k, v in sorted(e.forfeits.items())) or "-",
            "rating": _f(e.rating),
            "deals": str(d.deals),
            "matchpoints": points,
            "vs next": "" if e.separated is None else "separated" if e.separated else "-",
        }
        table.add_row(*(cells[name] for name in shown))
    if "wins" in shown and any(e.wins != int(e.wins) for e in rows):
        table.caption = WINS_NOTE
        table.caption_justify = "left"
    return table


def head_to_head_table(standings: Standings) -> Table:
    """Row entrant's share of shared games in which it placed ahead of the column entrant (names shown literally)."""
    names = [e.name for e in standings.entrants]
    table = Table(title="Head to head: share of shared games the row entrant placed ahead", title_justify="left")
    table.add_column("")
    for n in names:
        table.add_column(literal(n), justify="right")
    for a in names:
        cells = []
        for b in names:
            share = standings.head_to_head[a].get(b) if a != b else None
            cells.append("" if a == b else "-" if share is None else f"{100 * share:.0f}%")
        table.add_row(literal(a), *cells)
    return table
