"""A run's progress as it goes: a bar with ETA and the top of the standings on a terminal, plain lines elsewhere."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.console import Console, Group

from referee.tournament.display import standings_table
from referee.tournament.run import Progress

if TYPE_CHECKING:
    import rich.progress
    from rich.live import Live

    from referee.tournament.execute import PlayedGame
    from referee.tournament.standings import Tally

__all__ = ["LiveProgress"]


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
