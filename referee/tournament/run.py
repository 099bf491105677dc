"""Running a tournament: schedule, skip what the store already holds, play the rest, commit each game.

``run_tournament`` is what ``referee run`` calls once the parameters are settled, with the executor that plays
the games (``LocalExecutor`` or ``cluster.DaskExecutor``). SIGINT and SIGTERM stop it
cleanly: games in progress are abandoned (a resume plays them again), every finished game is already committed,
and every bot process is closed before it returns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from referee.runner import Stopped
from referee.tournament.designs import schedule_for
from referee.tournament.execute import Executor, PlayedGame, PlaySetup
from referee.tournament.params import TournamentParams
from referee.tournament.schedule import TableBatch
from referee.tournament.standings import Tally, tally_from_store
from referee.tournament.store import ResultsStore, SeatRow, seat_rows

if TYPE_CHECKING:
    from referee.tournament.race import RaceOutcome

__all__ = ["Progress", "RunOutcome", "run_tournament"]


@dataclass(frozen=True, slots=True)
class RunOutcome:
    total: int
    done_before: int
    played: int
    interrupted: bool
    race: RaceOutcome | None = None


class Progress:
    """What a run reports as it goes; the default does nothing. ``tally`` holds the standings so far."""

    def start(self, total: int | None, done: int, tally: Tally) -> None:
        """The run begins with ``done`` games already stored; ``total`` is the schedule's size, None for a race
        (adaptive: it stops when the order is settled, at most at ``--max-games``)."""

    def game_done(self, played: PlayedGame, tally: Tally) -> None:
        pass

    def race_round(self, rounds: int, games: int, left: int) -> None:
        """A race has played ``rounds`` complete rounds (``games`` games) and ``left`` entrants are still in it."""

    def stop(self) -> None:
        pass


def run_tournament(
    store: ResultsStore,
    params: TournamentParams,
    executor: Executor,
    *,
    progress: Progress | None = None,
    on_committed: Callable[[PlayedGame], None] | None = None,
) -> RunOutcome:
    """Play every scheduled game of ``params`` that ``store`` does not hold yet with ``executor``, committing each
    as it ends (then ``on_committed`` sees it); a race is played round after round.

    ``store`` must already be initialised with ``params`` (and its deal secret); once every game is stored the
    secret is marked revealed. Raises ``ScheduleError`` for an impossible schedule, ``RulesetError`` for a
    ruleset or names under which a line could exceed ``protocol.MAX_SENT_LINE``, and the
    runner's ``ConfigError`` for impossible runner settings; bot faults are recorded, never raised. The executor
    may raise errors of its own (``ClusterError``).
    """
    progress = progress or Progress()
    secret = store.deal_secret()
    if params.format == "race":
        from referee.tournament.race import race_of, replay_race  # numpy: only for a race

        race = race_of(params, secret)
    else:
        race = None
    finished = store.finished_game_ids()
    results: dict[str, tuple[SeatRow, ...]] = {}
    tally = tally_from_store(store)
    played = 0

    def on_game(p: PlayedGame) -> None:
        nonlocal played
        store.record_game(p.game, p.result, duration=p.duration, declared=p.declared)
        rows = seat_rows(p.game.seats, p.result)
        if race is not None:
            results[p.game.game_id] = rows
        finished.add(p.game.game_id)
        tally.declared.update((name, said) for name, (said, _) in p.declared.items())
        tally.add(rows, p.game.batch)
        played += 1
        progress.game_done(p, tally)
        if on_committed is not None:
            on_committed(p)

    setup = PlaySetup.of(params, store.directory, finished, on_game)
    if race is not None:
        results.update((g.game_id, g.seats) for g in store.games())
        upcoming = replay_race(race, results)
        total = params.max_games
        params.check_line_length([f"g{params.max_games:06d}"])  # the longest game id the race may use
    else:
        upcoming = schedule_for(params, secret)
        total = sum(len(b.games) for b in upcoming)
        params.check_line_length(g.game_id for b in upcoming for g in b.games)
    rounds = [upcoming]

    def next_round() -> list[TableBatch]:
        """The batches of the next round with a game to play: the schedule, then (a race) the race's next round."""
        round_ = rounds.pop() if rounds else [] if race is None else replay_race(race, results)
        if race is not None:  # where the race stands, and the live standings in its order
            tally.order = race.outcome().order
            if race.reason is None:
                progress.race_round(race.rounds, race.games, len(race.survivors))
        return [b for b in round_ if any(g.game_id not in finished for g in b.games)]

    done_before = len(finished)
    progress.start(None if race is not None else total, done_before, tally)
    try:
        executor.run(setup, next_round)
        interrupted = False
    except Stopped:
        interrupted = True
    finally:
        progress.stop()
    outcome = RunOutcome(total, done_before, played, interrupted, None if race is None else race.outcome())
    return _finish(store, outcome)


def _finish(store: ResultsStore, outcome: RunOutcome) -> RunOutcome:
    """Reveal the deal secret once every scheduled game is stored, or the race is over (see
    ``referee.tournament.deals``)."""
    over = outcome.race.reason is not None if outcome.race is not None else store.game_count() >= outcome.total
    if over:
        store.mark_revealed()
    return outcome
