"""A run's progress as it goes, with its horizon: games/s, elapsed time and an estimate of the time left (a race:
the round being played, its games, the entrants left and the places still open).

``LiveProgress`` shows it to a person: a live bar and the top of the standings on a terminal, plain lines elsewhere
(a pipe, a CI log); ``JsonProgress`` writes the same as JSON events, one object a line, for tools.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from typing import IO, TYPE_CHECKING, Any

from rich.console import Console, Group

from referee.tournament.display import standings_table
from referee.tournament.formats import RoundStatus
from referee.tournament.run import Progress

if TYPE_CHECKING:
    import rich.progress
    from rich.live import Live

    from referee.contest.workers_lost import WorkerLost
    from referee.tournament.execute import PlayedGame
    from referee.tournament.standings import Tally

__all__ = ["JsonProgress", "LiveProgress", "Pace"]


def _clock(seconds: float) -> str:
    """``1:02:03`` (hours, minutes, seconds)."""
    s = round(seconds)
    return f"{s // 3600}:{s // 60 % 60:02d}:{s % 60:02d}"


class Pace:
    """The games of this session against the time: the rate, the time elapsed, and the time left of ``total``."""

    def __init__(self, total: int | None, done: int, clock: Callable[[], float] = time.monotonic) -> None:
        self.total, self.done, self._first = total, done, done
        self._clock = clock
        self._start = clock()

    def add(self) -> None:
        self.done += 1

    @property
    def elapsed(self) -> float:
        return self._clock() - self._start

    @property
    def rate(self) -> float | None:
        """Games a second this session (None before its first game)."""
        played, elapsed = self.done - self._first, self.elapsed
        return played / elapsed if played and elapsed > 0 else None

    def left(self, games: int | None = None) -> float | None:
        """Seconds to play ``games`` more (default: the rest of ``total``) at this session's rate."""
        rate = self.rate
        todo = games if games is not None else None if self.total is None else self.total - self.done
        return None if rate is None or todo is None else max(0, todo) / rate

    def line(self) -> str:
        """``3.2 games/s, elapsed 0:01:02, ETA 0:10:00`` (ETA only with a total)."""
        rate = self.rate
        parts = [f"{rate:.1f} games/s" if rate is not None else "- games/s", f"elapsed {_clock(self.elapsed)}"]
        left = self.left()
        if self.total is not None and left is not None:
            parts.append(f"ETA {_clock(left)}")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        rate, left = self.rate, self.left()
        return {
            "games": self.done,
            "total": self.total,
            "rate": None if rate is None else round(rate, 3),
            "elapsed": round(self.elapsed, 1),
            "eta": None if left is None else round(left, 1),
        }


class LiveProgress(Progress):
    """A progress bar (games/s, elapsed, ETA) and the top of the standings, redrawn in place on a terminal.

    Elsewhere (a pipe, a CI log) it prints a plain line per tenth of the games, and at least every ``LINE_EVERY``
    seconds: ``120/1,200 games played (10%): 3.2 games/s, elapsed 0:00:37, ETA 0:05:37``. A race has no total
    (it stops once its order is settled): its bar counts the games of the round being played, and its line says
    the round, its games, the entrants left and which of the top places are still open; off a terminal that line
    is printed whenever an entrant leaves the race, every ``RACE_LINE_EVERY`` rounds and at least every
    ``LINE_EVERY`` seconds.
    """

    #: Off a terminal, a race's progress line is printed at least every this many rounds.
    RACE_LINE_EVERY = 10
    #: Off a terminal, a line is printed at least this often (seconds) while games finish.
    LINE_EVERY = 60.0

    def __init__(self, console: Console, *, top: int = 8, refresh: float = 0.5) -> None:
        self.console = console
        self.top = top
        self.refresh = refresh
        self._live: Live | None = None
        self._bar: rich.progress.Progress | None = None
        self._task: rich.progress.TaskID | None = None
        self._shown = 0.0
        self._printed = time.monotonic()
        self._pace = Pace(0, 0)
        self._step = 1
        self._race: RoundStatus | None = None  # the round a format that decides as it goes (a race) plays
        self._round_start = 0  # games played when the race's round began

    def start(self, total: int | None, done: int, tally: Tally) -> None:
        self._pace = Pace(total, done)
        self._step = max(1, (total or 0) // 10)
        if not self.console.is_terminal:
            if total is None:
                self.console.print(
                    f"{done:,} games already played" if done else "Race: it plays until the order is settled"
                )
            else:
                self.console.print(f"{done:,}/{total:,} games already played" if done else f"{total:,} games to play")
            return
        import rich.progress  # a terminal only: the bar and the live view (off one, a run never loads them)
        from rich.live import Live

        columns: list[str | rich.progress.ProgressColumn] = [
            rich.progress.TextColumn("race" if total is None else "games"),
            rich.progress.BarColumn(),
            rich.progress.MofNCompleteColumn(),
            rich.progress.TextColumn("{task.description}"),
        ]
        self._bar = rich.progress.Progress(*columns, console=self.console)
        self._task = self._bar.add_task(self._pace.line(), total=total, completed=done if total is not None else 0)
        self._live = Live(self._view(tally), console=self.console, refresh_per_second=4, transient=True)
        self._live.start()

    def _view(self, tally: Tally) -> Group:
        assert self._bar is not None
        self._shown = time.monotonic()
        return Group(
            self._bar,
            standings_table(tally.standings(), top=self.top, title="Live standings", width=self.console.width),
        )

    def round_started(self, status: RoundStatus) -> None:
        before, self._race = self._race, status
        self._round_start = self._pace.done
        if self._live is None:
            if status.news(before) or status.round % self.RACE_LINE_EVERY == 1 or self._due():
                self._print_race()
        else:
            assert self._bar is not None and self._task is not None
            self._bar.update(self._task, total=status.round_games, completed=0, description=self._race_line())

    def _race_line(self) -> str:
        assert self._race is not None
        in_round = self._pace.done - self._round_start
        return f"{self._race.line()}; {self._pace.done:,} games in all, {self._pace.line()}" + (
            f", round ETA {_clock(left)}"
            if (left := self._pace.left(self._race.round_games - in_round)) is not None
            else ""
        )

    def _print_race(self) -> None:
        self._printed = time.monotonic()
        assert self._race is not None
        self.console.print(f"{self._race.label}: {self._race_line()}", highlight=False)

    def _due(self) -> bool:
        return time.monotonic() - self._printed >= self.LINE_EVERY

    def game_done(self, played: PlayedGame, tally: Tally) -> None:
        self._pace.add()
        done, total = self._pace.done, self._pace.total
        if self._live is None:
            if total is not None:
                if done % self._step == 0 or done == total or self._due():
                    self._printed = time.monotonic()
                    self.console.print(f"{done:,}/{total:,} games played ({done / total:.0%}): {self._pace.line()}")
            elif self._race is not None and self._due():
                self._print_race()
            return
        assert self._bar is not None and self._task is not None
        self._bar.advance(self._task)
        self._bar.update(self._task, description=self._race_line() if self._race is not None else self._pace.line())
        if time.monotonic() - self._shown >= self.refresh:
            self._live.update(self._view(tally))

    def worker_lost(self, lost: WorkerLost) -> None:
        self.console.print(f"Cluster: {lost.line()}", highlight=False, soft_wrap=True)

    def stop(self) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None


class JsonProgress(Progress):
    """The progress as JSON events on ``out``, one object a line: ``{"event": "start", "total", "games"}``, then
    ``progress`` (games, total, rate in games/s, elapsed and eta in seconds) per tenth of the games and at least
    every ``EVERY`` seconds, ``race_round`` (``RaceStatus.to_dict``: a ``RoundStatus``'s event) as each round of a
    race begins, and
    ``worker_lost`` (``WorkerLost.to_dict``) when a worker ends while the run goes on, and ``stop``. A total or an eta
    is null where there is none (a race)."""

    #: A ``progress`` event at least this often (seconds) while games finish.
    EVERY = 5.0

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self._pace = Pace(0, 0)
        self._step = 1
        self._sent = time.monotonic()

    def event(self, kind: str, **fields: Any) -> None:
        """Write one event (``{"event": kind, **fields}``) and flush it."""
        self.out.write(json.dumps({"event": kind, **fields}) + "\n")
        self.out.flush()

    def start(self, total: int | None, done: int, tally: Tally) -> None:
        self._pace = Pace(total, done)
        self._step = max(1, (total or 0) // 10)
        self.event("start", total=total, games=done)

    def game_done(self, played: PlayedGame, tally: Tally) -> None:
        self._pace.add()
        done, total = self._pace.done, self._pace.total
        now = time.monotonic()
        if (total and (done % self._step == 0 or done == total)) or now - self._sent >= self.EVERY:
            self._sent = now
            self.event("progress", **self._pace.to_dict())

    def round_started(self, status: RoundStatus) -> None:
        self.event(status.event, **{**self._pace.to_dict(), **status.to_dict()})

    def worker_lost(self, lost: WorkerLost) -> None:
        self.event("worker_lost", **lost.to_dict(), left=lost.left)

    def stop(self) -> None:
        self.event("stop", **self._pace.to_dict())
