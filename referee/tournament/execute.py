"""Playing scheduled games on table lanes: what an executor is given (``PlaySetup``) and does (``Executor``), one
table batch played with a lane's ``PlayerPool`` (``play_batch``), and lanes driven round after round from the
``DealQueue`` (``play_lanes``).

``play_batch`` plays the games of one table batch with a ``PlayerPool`` (one persistent ``Player`` per entrant,
which restarts its bot after a fault) and reports each finished game at once. An ``Executor`` plays the rounds of
a run given its ``PlaySetup`` and hands every finished game to a callback (the caller commits it):
``local.LocalExecutor`` runs ``jobs`` lanes at the same time (``play_lanes``), each with its own pool, in this
process or each in a worker process of its own (``lane_workers``); ``cluster.DaskExecutor`` ships the batches to a
Dask cluster. ``play_table`` is the same work as a plain synchronous function of picklable values, for executors
that ship table batches to other processes or machines.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import trio

from referee.contest.play_order import DealQueue, rotation_order
from referee.contest.pool import PlayerFactory, PlayerPool
from referee.contest.schedule import ScheduledGame, TableBatch
from referee.contest.workers_lost import WorkerLost
from referee.engine import Ruleset
from referee.runner import RunnerConfig, opaque_game_id, play_game
from referee.runner.layout import BOTS_DIR, GAMES_DIR
from referee.runner.logfile import LogLevel, log_name
from referee.tournament.errors import StoreError
from referee.tournament.formats import format_of
from referee.tournament.params import EntrantInfo, TournamentParams

__all__ = [
    "STORAGE_FAILURES",
    "Executor",
    "GameFn",
    "Lane",
    "PlaySetup",
    "PlayedGame",
    "PoolLane",
    "Rounds",
    "lane_folders",
    "lane_pool",
    "play_batch",
    "play_lanes",
    "play_table",
]

#: What a full or read-only disk raises in the lanes (a game log, the results database): several lanes failing
#: with these at once raise the first alone (``run_until_stopped``).
STORAGE_FAILURES: tuple[type[BaseException], ...] = (OSError, StoreError)


GameFn = Callable[..., Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """A finished scheduled game: the runner's result, the wall time it took, and the bots' declared names."""

    game: ScheduledGame
    result: Any
    duration: float
    declared: dict[str, tuple[str | None, str | None]]


async def play_batch(
    batch: TableBatch,
    pool: PlayerPool,
    *,
    ruleset: Ruleset,
    games_dir: Path,
    logs: LogLevel = LogLevel.FULL,
    skip: frozenset[str] | set[str] = frozenset(),
    on_game: Callable[[PlayedGame], None] | None = None,
    play: GameFn | None = None,
) -> list[PlayedGame]:
    """Play the batch's games not in ``skip``, in rotation order; ``on_game`` sees each as soon as it ends. Each
    game's log goes to ``games_dir`` as ``logs`` says (``referee.runner.logfile.log_name``).

    Bot faults are recorded forfeits in the results; only referee bugs raise.
    """
    game_fn: GameFn = play or play_game
    done = []
    for game in batch.games:
        if game.game_id in skip:
            continue
        players = await pool.for_game(game.seats, game.seed)
        start = time.perf_counter()
        name = log_name(game.game_id, logs)
        result = await game_fn(
            players,
            game_id=game.game_id,
            ruleset=ruleset,
            seed=game.seed,
            log_path=None if name is None else games_dir / name,
            wire_id=wire_id(game),
            **_COMPACT if logs is LogLevel.COMPACT else {},
        )
        played = PlayedGame(game, result, time.perf_counter() - start, pool.declared(game.seats))
        await pool.after_game()
        done.append(played)
        if on_game is not None:
            on_game(played)
    return done


#: What ``play_batch`` adds to ``play_game``'s arguments for a compact log (a fake game function need not take it).
_COMPACT = {"log_wire": False}


def wire_id(game: ScheduledGame) -> str:
    """The id the bots of ``game`` see: ``opaque_game_id`` of its deal seed (which comes from the secret) and seat
    rotation, so that it tells nothing of the game's place in the schedule (the ids ``g000001``... number it, and
    from the number a bot could tell which earlier game had its deal)."""
    return opaque_game_id(f"referee-wire/1/{game.seed}/{game.rotation}".encode())


def play_table(
    batch: TableBatch, params: TournamentParams, out_dir: str, skip: frozenset[str] = frozenset()
) -> list[PlayedGame]:
    """Play one table batch of ``params``'s schedule in this process, with its own bots (closed at the end).

    Inputs and output are plain picklable values, so an executor can run it in another process or on another
    machine (game logs and bot logs go below ``out_dir`` there); the caller stores the results.
    """

    async def main() -> list[PlayedGame]:
        out = Path(out_dir)
        games_dir, bots_dir = out / GAMES_DIR, out / BOTS_DIR
        games_dir.mkdir(parents=True, exist_ok=True)
        bots_dir.mkdir(parents=True, exist_ok=True)
        pool = PlayerPool(params.bot_specs(), params.runner_config(results=out), bots_dir, batch.batch)
        try:
            return await play_batch(batch, pool, ruleset=params.game_ruleset(), games_dir=games_dir, skip=skip)
        finally:
            await pool.aclose()

    return trio.run(main)


@dataclass(frozen=True, slots=True)
class PlaySetup:
    """What an executor plays a run's table batches with, and where each finished game goes.

    ``out_dir`` is the results folder (game logs in ``games/``, bot stderr in ``bots/``); ``finished`` holds the
    ids of the games stored already, never played again (the caller adds each game it commits); ``on_game``
    takes every finished game, once. ``keep`` is how many processes of an entrant a lane keeps (``PlayerPool``),
    as the format says (``Format.processes_kept``: a race one per seat rotation, the fixed formats one); ``logs``:
    how much of each game its log keeps (``referee run --logs``); ``on_lost`` hears of each worker lost while the
    run goes on (a Dask worker: ``cluster.DaskExecutor``).
    """

    entrants: tuple[EntrantInfo, ...]
    config: RunnerConfig
    ruleset: Ruleset
    out_dir: Path
    finished: set[str]
    on_game: Callable[[PlayedGame], None]
    keep: int = 1
    logs: LogLevel = LogLevel.FULL
    on_lost: Callable[[WorkerLost], None] | None = None

    @classmethod
    def of(
        cls,
        params: TournamentParams,
        out_dir: Path,
        finished: set[str],
        on_game: Callable[[PlayedGame], None],
        logs: LogLevel = LogLevel.FULL,
        on_lost: Callable[[WorkerLost], None] | None = None,
    ) -> PlaySetup:
        """The setup of ``params``' games, its results in ``out_dir`` hidden from every bot. Raises the runner's
        ``ConfigError`` or ``RulesetError`` for impossible settings or an impossible ruleset."""
        keep = format_of(params).processes_kept(params)
        config, ruleset = params.runner_config(results=out_dir), params.game_ruleset()
        return cls(params.entrants, config, ruleset, out_dir, finished, on_game, keep, logs, on_lost)

    @property
    def games_dir(self) -> Path:
        """The game logs: ``out_dir/games/<game id>.jsonl.zst`` (``referee.runner.logfile.log_name``)."""
        return self.out_dir / GAMES_DIR

    @property
    def bots_dir(self) -> Path:
        """The bots' stderr: ``out_dir/bots/<entrant>.<lane>.log``."""
        return self.out_dir / BOTS_DIR


#: The next round of table batches to play, asked for once the round before is played (none left: the run is over).
Rounds = Callable[[], Sequence[TableBatch]]


class Executor(Protocol):
    """Where a tournament's (or a comparison's) games are played: ``LocalExecutor`` (lanes in this process) or
    ``cluster.DaskExecutor`` (a Dask cluster)."""

    def run(self, setup: PlaySetup, rounds: Rounds) -> None:
        """Play round after round of ``rounds()`` until it gives none, each finished game handed to
        ``setup.on_game`` as it ends; the next round is asked for once every game of the one before is handed on.

        Raises ``referee.runner.Stopped`` when SIGINT or SIGTERM stopped it: games in progress are abandoned (a
        resume plays them again), the finished ones handed on, every bot process closed.
        """
        ...


class Lane(Protocol):
    """One table lane of a ``LocalExecutor``: plays one table batch at a time with its bots, which it keeps across
    games. ``fits`` is its ``PlayerPool``'s (``DealQueue.take``)."""

    def fits(self, game: ScheduledGame) -> bool: ...
    async def play(self, batch: TableBatch) -> None:
        """Play ``batch``'s games not stored yet, handing each finished one to the setup's ``on_game``."""

    async def retire(self, keep: Iterable[str]) -> None:
        """Close the bots of every entrant not in ``keep``."""

    async def aclose(self) -> None:
        """Close every bot of the lane (shielded from cancellation)."""


@dataclass(frozen=True, slots=True)
class PoolLane:
    """A lane in this process: its ``PlayerPool`` and ``play_batch``."""

    pool: PlayerPool
    setup: PlaySetup
    play_fn: GameFn | None = None

    def fits(self, game: ScheduledGame) -> bool:
        return self.pool.fits(game)

    async def play(self, batch: TableBatch) -> None:
        setup = self.setup
        await play_batch(
            batch,
            self.pool,
            ruleset=setup.ruleset,
            games_dir=setup.games_dir,
            logs=setup.logs,
            skip=setup.finished,
            on_game=setup.on_game,
            play=self.play_fn,
        )

    async def retire(self, keep: Iterable[str]) -> None:
        await self.pool.retire(keep)

    async def aclose(self) -> None:
        await self.pool.aclose()


def lane_folders(setup: PlaySetup) -> tuple[Path, Path]:
    """The folders of the game logs and of the bots' stderr below ``setup.out_dir``, made if missing."""
    games_dir, bots_dir = setup.games_dir, setup.bots_dir
    games_dir.mkdir(parents=True, exist_ok=True)
    bots_dir.mkdir(parents=True, exist_ok=True)
    return games_dir, bots_dir


def lane_pool(
    setup: PlaySetup, lane: int, *, fresh: bool, factory: PlayerFactory | None, alone: bool = False
) -> PlayerPool:
    """The ``PlayerPool`` of lane number ``lane`` (bot stderr in ``bots/<entrant>.<lane>.log``). ``alone``: the
    lane is the only one its trio loop plays, so a turn's wait for its reply may hold the loop
    (``RunnerConfig.alone``)."""
    specs = {e.name: e.to_spec() for e in setup.entrants}
    config = setup.config.alone() if alone else setup.config
    return PlayerPool(specs, config, setup.bots_dir, lane, fresh=fresh, factory=factory, keep=setup.keep)


async def play_lanes(setup: PlaySetup, rounds: Rounds, lanes: Sequence[Lane], *, fresh: bool = False) -> None:
    """Play round after round of ``rounds()`` on ``lanes`` at the same time; each lane keeps its bots alive across
    games and across rounds, and closes the bots of entrants a new round leaves out.

    The games go out in ``rotation_order``, each lane preferring deals its bots have not played (``fresh``: any),
    so a bot process is restarted only when it has played every deal near the front of the queue (once per pass
    over the deals with one lane, once per two passes with two), and never two rotations of one deal run at the
    same time (``DealQueue``). The next round is asked for once every game of this one has been handed on.

    Cancel the surrounding scope to stop: games in progress are abandoned (a resume plays them again) and every
    lane is closed before this returns.
    """

    async def next_round() -> list[TableBatch]:
        """The next round in ``rotation_order``, once the lanes (all idle now) closed the bots it leaves out."""
        units = rotation_order(rounds())
        playing = {n for u in units for n in u.entrants}
        async with trio.open_nursery() as nursery:
            for lane in lanes:
                nursery.start_soon(lane.retire, playing)
        return units

    queue = DealQueue((), next_round)

    async def drive(lane: Lane) -> None:
        try:
            while (batch := await queue.take(None if fresh else lane.fits)) is not None:
                try:
                    await lane.play(batch)
                finally:
                    queue.release(batch)
        finally:
            await lane.aclose()

    async with trio.open_nursery() as nursery:
        for lane in lanes:
            nursery.start_soon(drive, lane)
