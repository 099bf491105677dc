"""Running a tournament: schedule, skip what the store already holds, play the rest, commit each game.

``run_tournament`` is what ``referee run`` calls once the parameters are settled, with the executor that plays
the games (``LocalExecutor`` or ``cluster.DaskExecutor``). SIGINT and SIGTERM stop it
cleanly: games in progress are abandoned (a resume plays them again), every finished game is already committed,
and every bot process is closed before it returns.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from referee.contest.schedule import TableBatch
from referee.contest.workers_lost import LOST_KEY, WorkerLost, lost_workers
from referee.runner import Stopped
from referee.runner.logfile import LogLevel
from referee.tournament.execute import Executor, PlayedGame, PlaySetup
from referee.tournament.formats import Outcome, Results, RoundStatus, Schedule, format_of, schedule_of
from referee.tournament.params import TournamentParams
from referee.tournament.standings import Tally, tally_from_store
from referee.tournament.store import ResultsStore, SeatRow, seat_rows

__all__ = ["Progress", "RunOutcome", "run_tournament"]


@dataclass(frozen=True, slots=True)
class RunOutcome:
    total: int
    done_before: int
    played: int
    interrupted: bool
    #: Where a format that decides as it goes stood as the run ended (``Schedule.outcome``: a race's outcome).
    decided: Outcome | None = None
    #: The workers lost during this session (``WorkerLost``), in order.
    lost: tuple[WorkerLost, ...] = ()


class Progress:
    """What a run reports as it goes; the default does nothing. ``tally`` holds the standings so far."""

    def start(self, total: int | None, done: int, tally: Tally) -> None:
        """The run begins with ``done`` games already stored; ``total`` is the schedule's size, None for a race
        (adaptive: it stops when the order is settled, at most at ``--max-games``)."""

    def game_done(self, played: PlayedGame, tally: Tally) -> None:
        pass

    def round_started(self, status: RoundStatus) -> None:
        """A format that decides as it goes begins a round (``status``: for a race, the round, its games, where the
        race stands)."""

    def worker_lost(self, lost: WorkerLost) -> None:
        """A worker ended while the run goes on (its tables are played again by the others)."""

    def stop(self) -> None:
        pass


def run_tournament(
    store: ResultsStore,
    params: TournamentParams,
    executor: Executor,
    *,
    progress: Progress | None = None,
    on_committed: Callable[[PlayedGame], None] | None = None,
    logs: LogLevel = LogLevel.FULL,
) -> RunOutcome:
    """Play every scheduled game of ``params`` that ``store`` does not hold yet with ``executor``, committing each
    as it ends (then ``on_committed`` sees it); a format that decides as it goes (a race) is played round after
    round. ``logs``: how much of each game its log in ``games/`` keeps.

    ``store`` must already be initialised with ``params`` (and its deal secret); once every game is stored the
    secret is marked revealed. Raises ``ScheduleError`` for an impossible schedule, ``RulesetError`` for a
    ruleset or names under which a line could exceed ``protocol.MAX_SENT_LINE``, and the
    runner's ``ConfigError`` for impossible runner settings; bot faults are recorded, never raised. The executor
    may raise errors of its own (``ClusterError``).
    """
    progress = progress or Progress()
    schedule: Schedule = schedule_of(params, store.deal_secret())
    adaptive = format_of(params).decides_as_it_goes(params)  # its rounds read the results so far
    finished = store.finished_game_ids()
    results: dict[str, tuple[SeatRow, ...]] = {}
    tally = tally_from_store(store)
    played = 0

    def on_game(p: PlayedGame) -> None:
        nonlocal played
        store.record_game(p.game, p.result, duration=p.duration, declared=p.declared)
        rows = seat_rows(p.game.seats, p.result)
        if adaptive:
            results[p.game.game_id] = rows
        finished.add(p.game.game_id)
        tally.declared.update((name, said) for name, (said, _) in p.declared.items())
        tally.add(rows, p.game.batch)
        played += 1
        progress.game_done(p, tally)
        if on_committed is not None:
            on_committed(p)

    lost: list[WorkerLost] = []

    def on_lost(worker: WorkerLost) -> None:
        lost.append(worker)
        store.set_meta(LOST_KEY, json.dumps([*lost_workers(store), worker.to_dict()]))
        progress.worker_lost(worker)

    setup = PlaySetup.of(params, store.directory, finished, on_game, logs, on_lost)
    if adaptive:
        results.update((g.game_id, g.seats) for g in store.games())
    known: Results = results
    upcoming = schedule.next_round(known)
    total = params.max_games if schedule.total is None else schedule.total
    params.check_line_length(schedule.game_ids())
    rounds = [upcoming]

    def next_round() -> list[TableBatch]:
        """The batches of the next round with a game to play: the first (replayed from the store), then the ones
        the schedule decides from the results (a fixed schedule has no more)."""
        round_ = rounds.pop() if rounds else schedule.next_round(known)
        now = schedule.round_started()
        if now.outcome is not None:
            tally.decided = now.outcome
        if now.status is not None:
            progress.round_started(now.status)
        return [b for b in round_ if any(g.game_id not in finished for g in b.games)]

    done_before = len(finished)
    progress.start(schedule.total, done_before, tally)
    try:
        executor.run(setup, next_round)
        interrupted = False
    except Stopped:
        interrupted = True
    finally:
        progress.stop()
    outcome = RunOutcome(total, done_before, played, interrupted, schedule.outcome(), tuple(lost))
    if schedule.over(store.game_count()):  # every scheduled game is stored, or the race is over: the secret is
        store.mark_revealed()  # revealed (see referee.contest.deal_secret)
    return outcome
