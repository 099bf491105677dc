"""Standings as rich renderables: the standings table and the head-to-head matrix."""

from __future__ import annotations

import io
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.console import Console, Group
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

from referee.runner.safe_text import literal
from referee.tournament.execute import PlayedGame
from referee.tournament.run import Progress
from referee.tournament.standings import WINS_NOTE, EntrantStanding, Standings, Tally

if TYPE_CHECKING:
    import rich.progress
    from rich.live import Live

__all__ = ["LiveProgress", "head_to_head_table", "standings_table"]


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
    if width is not None and _narrowest(table) > width:
        table = _standings_table(standings, rows, title, keep=NARROW_COLUMNS)
        table.caption = NARROW_NOTE if table.caption is None else f"{table.caption} {NARROW_NOTE}"
        table.caption_justify = "left"
    return table


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


class LiveProgress(Progress):
    """A progress bar with ETA and the top of the standings, redrawn in place on a terminal.

    Elsewhere (a pipe, a CI log) it prints one plain line per tenth of the games instead. A race has no total (it
    stops once its order is settled): it shows the round, the games played and the entrants left, without ETA,
    and off a terminal prints that line whenever an entrant leaves the race and every ``RACE_LINE_EVERY`` rounds.
    """

    #: Off a terminal, a race's progress line is printed at least every this many rounds.
    RACE_LINE_EVERY = 10

    def __init__(self, console: Console, *, top: int = 8, refresh: float = 0.5) -> None:
        self.console = console
        self.top = top
        self.refresh = refresh
        self._live: Live | None = None
        self._bar: rich.progress.Progress | None = None
        self._task: rich.progress.TaskID | None = None
        self._shown = 0.0
        self._total: int | None = 0
        self._done = 0
        self._step = 1
        self._round = 0  # a race's round being played, and its entrants left
        self._left: int | None = None

    def start(self, total: int | None, done: int, tally: Tally) -> None:
        self._total, self._done = total, done
        self._step = max(1, (total or 0) // 10)
        if not self.console.is_terminal:
            if total is None:
                self.console.print(f"{done:,} games already played" if done else "Race: the games it needs to settle")
            else:
                self.console.print(f"{done}/{total} games already played" if done else f"{total} games to play")
            return
        import rich.progress  # a terminal only: the bar and the live view (off one, a run never loads them)
        from rich.live import Live

        columns: list[str | rich.progress.ProgressColumn]
        if total is None:
            columns = [
                rich.progress.TextColumn("race"),
                rich.progress.BarColumn(),
                rich.progress.TextColumn("{task.description}"),
                rich.progress.TimeElapsedColumn(),
            ]
        else:
            columns = [
                rich.progress.TextColumn("games"),
                rich.progress.BarColumn(),
                rich.progress.MofNCompleteColumn(),
                rich.progress.TaskProgressColumn(),
                rich.progress.TimeElapsedColumn(),
                rich.progress.TextColumn("ETA"),
                rich.progress.TimeRemainingColumn(),
            ]
        self._bar = rich.progress.Progress(*columns, console=self.console)
        self._task = self._bar.add_task(f"{done:,} games", total=total, completed=done)
        self._live = Live(self._view(tally), console=self.console, refresh_per_second=4, transient=True)
        self._live.start()

    def _view(self, tally: Tally) -> Group:
        assert self._bar is not None
        self._shown = time.monotonic()
        return Group(
            self._bar,
            standings_table(tally.standings(), top=self.top, title="Live standings", width=self.console.width),
        )

    def race_round(self, rounds: int, games: int, left: int) -> None:
        changed = left != self._left
        self._round, self._left = rounds + 1, left
        if self._live is None:
            if changed or rounds % self.RACE_LINE_EVERY == 0:
                self.console.print(f"Race: {self._race_line()}")
        else:
            assert self._bar is not None and self._task is not None
            self._bar.update(self._task, description=self._race_line())

    def _race_line(self) -> str:
        return f"round {self._round}, {self._done:,} games, {self._left} entrants left"

    def game_done(self, played: PlayedGame, tally: Tally) -> None:
        self._done += 1
        if self._live is None:
            if self._total is not None and (self._done % self._step == 0 or self._done == self._total):
                self.console.print(f"{self._done}/{self._total} games played")
            return
        assert self._bar is not None and self._task is not None
        self._bar.advance(self._task)
        if self._total is None:
            self._bar.update(self._task, description=self._race_line())
        if time.monotonic() - self._shown >= self.refresh:
            self._live.update(self._view(tally))

    def stop(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None
