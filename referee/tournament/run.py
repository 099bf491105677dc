"""Running a tournament locally: schedule, skip what the store already holds, play the rest, commit each game.

``run_tournament`` is what ``referee run`` calls once the parameters are settled. SIGINT and SIGTERM stop it
cleanly: games in progress are abandoned (a resume plays them again), every finished game is already committed,
and every bot process is closed before it returns.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from referee.runner import Stopped, run_until_stopped
from referee.tournament.designs import schedule_for
from referee.tournament.execute import GameFn, PlayedGame, PlayerFactory, run_local
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

    def start(self, total: int, done: int, tally: Tally) -> None:
        pass

    def game_done(self, played: PlayedGame, tally: Tally) -> None:
        pass

    def stop(self) -> None:
        pass


def run_tournament(
    store: ResultsStore,
    params: TournamentParams,
    *,
    jobs: int,
    progress: Progress | None = None,
    fresh: bool = False,
    play: GameFn | None = None,
    factory: PlayerFactory | None = None,
    on_committed: Callable[[PlayedGame], None] | None = None,
    cluster: str | None = None,
) -> RunOutcome:
    """Play every scheduled game of ``params`` that ``store`` does not hold yet, committing each as it ends.

    ``store`` must already be initialised with ``params`` (and its deal secret); once every game is stored the
    secret is marked revealed. Raises ``ScheduleError`` for an impossible schedule, ``RulesetError`` for a
    ruleset or names under which a line could exceed ``protocol.MAX_SENT_LINE``, and the
    runner's ``ConfigError`` for impossible runner settings; bot faults are recorded, never raised. With
    ``cluster`` (a Dask scheduler address or ``local:N``) the batches are played there instead (``jobs``,
    ``fresh``, ``play`` and ``factory`` do not apply) and ``ClusterError`` reports a cluster that cannot be used.
    """
    progress = progress or Progress()
    secret = store.deal_secret()
    if params.format == "race":
        from referee.tournament.race import race_of, replay_race  # numpy: only for a race

        race = race_of(params, secret)
    else:
        race = None
    config = params.runner_config(results=store.directory)
    ruleset = params.game_ruleset()
    specs = params.bot_specs()
    finished = store.finished_game_ids()
    results: dict[str, tuple[SeatRow, ...]] = {}
    if race is not None:
        results = {g.game_id: g.seats for g in store.games()}
        batches = replay_race(race, results)
        total = params.max_games
        params.check_line_length([f"g{params.max_games:06d}"])  # the longest game id the race may use
    else:
        batches = schedule_for(params, secret)
        total = sum(len(b.games) for b in batches)
        params.check_line_length(g.game_id for b in batches for g in b.games)
    tally = tally_from_store(store)
    played = 0

    def pending(round_: list[TableBatch]) -> list[TableBatch]:
        return [b for b in round_ if any(g.game_id not in finished for g in b.games)]

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

    def next_round() -> list[TableBatch]:
        """After a round is played: the race's next round (nothing more for a fixed schedule)."""
        if race is None:
            return []
        from referee.tournament.race import replay_race

        return replay_race(race, results)

    async def work() -> None:
        nonlocal batches
        while batches:
            await run_local(
                pending(batches),
                specs,
                config,
                ruleset,
                store.directory,
                jobs=jobs,
                on_game=on_game,
                skip=finished,
                fresh=fresh,
                play=play,
                factory=factory,
            )
            batches = next_round()

    done_before = len(finished)
    progress.start(total, done_before, tally)

    def outcome(interrupted: bool) -> RunOutcome:
        return RunOutcome(total, done_before, played, interrupted, None if race is None else race.outcome())

    if cluster is not None:
        from referee.tournament.cluster import run_on_cluster

        try:
            while batches:
                run_on_cluster(
                    pending(batches),
                    params.entrants,
                    config,
                    ruleset,
                    store.directory,
                    address=cluster,
                    on_game=on_game,
                    skip=set(finished),
                )
                batches = next_round()
            interrupted = False
        except Stopped:
            interrupted = True
        finally:
            progress.stop()
        return _finish(store, outcome(interrupted))
    try:
        run_until_stopped(work)
        interrupted = False
    except Stopped:
        interrupted = True
    finally:
        progress.stop()
    return _finish(store, outcome(interrupted))


def _finish(store: ResultsStore, outcome: RunOutcome) -> RunOutcome:
    """Reveal the deal secret once every scheduled game is stored, or the race is over (see
    ``referee.tournament.deals``)."""
    over = outcome.race.reason is not None if outcome.race is not None else store.game_count() >= outcome.total
    if over:
        store.mark_revealed()
    return outcome
