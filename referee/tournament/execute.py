"""Playing scheduled games: a pool of live bot processes per table lane, table batches, the local executor.

``play_batch`` plays the games of one table batch with a ``PlayerPool`` (one persistent ``Player`` per entrant,
which restarts its bot after a fault) and reports each finished game at once. An ``Executor`` plays the rounds of
a run given its ``PlaySetup`` and hands every finished game to a callback (the caller commits it): the
``LocalExecutor`` runs ``jobs`` lanes at the same time (``play_lanes``), each with its own pool, in this process or,
when asked (``referee run --lane-processes``), each in a worker process of its own (``lane_workers``);
``cluster.DaskExecutor`` ships the batches to a Dask cluster. ``play_table`` is the same work as a plain synchronous
function of picklable values, for executors that ship table batches to other processes or machines.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import trio

from referee.engine import Ruleset
from referee.runner import BotSpec, Player, RunnerConfig, play_game, run_until_stopped
from referee.runner.layout import BOTS_DIR, GAMES_DIR
from referee.tournament.formats import format_of
from referee.tournament.params import EntrantInfo, TournamentParams
from referee.tournament.schedule import ScheduledGame, TableBatch
from referee.tournament.store import StoreError

__all__ = [
    "STORAGE_FAILURES",
    "DealQueue",
    "Executor",
    "Lane",
    "LocalExecutor",
    "PlaySetup",
    "PlayedGame",
    "PlayerPool",
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


class PlayerLike(Protocol):
    @property
    def hello(self) -> Any: ...
    async def aclose(self) -> None: ...


PlayerFactory = Callable[[BotSpec, RunnerConfig, Path], PlayerLike]
GameFn = Callable[..., Awaitable[Any]]


@dataclass(frozen=True, slots=True)
class PlayedGame:
    """A finished scheduled game: the runner's result, the wall time it took, and the bots' declared names."""

    game: ScheduledGame
    result: Any
    duration: float
    declared: dict[str, tuple[str | None, str | None]]


@dataclass(slots=True)
class _Live:
    """A bot process of the pool, the deal seeds it has been dealt, and when it last played (the pool's count)."""

    player: PlayerLike
    dealt: set[int | None]
    used: int = 0


class PlayerPool:
    """Live ``Player``s for one lane, up to ``keep`` per entrant; bots start on first use and stay up across games,
    but a bot process never plays the same deal twice (``for_game``).

    The seat rotations of a table share one deal: a process that kept what it was dealt in one rotation would
    know another player's hand in the next. So a game goes to a process of the entrant that has not been dealt
    its deal yet, the least recently used one; when every process has, a fresh one takes the seat, and beyond
    ``keep`` the least recently used process is closed to make room. ``keep=1`` (a fixed schedule played in
    ``rotation_order``: a process that met one deal again has met every deal of its pass) restarts the bot once
    per pass over the deals; a race keeps one process per seat rotation (``keep`` = the table size), so that
    the rounds, which bring new deals, need no new process at all. Whatever ``keep``, a lane holds at most
    ``max(entrants, MAX_LIVE)`` processes (a large field: as many as one per entrant): beyond that, starting one
    closes the one of another entrant that played least recently.

    ``fresh=True`` closes every bot after each game (one process per game: slower, for comparison or for bots
    that leak state between games). Bot stderr goes to ``bots_dir/<entrant>.<lane>.log``.
    """

    #: Live processes a lane may hold beyond one per entrant (a race's 40 entrants at tables of 4: all of them).
    MAX_LIVE = 160

    def __init__(
        self,
        specs: Mapping[str, BotSpec],
        config: RunnerConfig,
        bots_dir: Path,
        lane: int,
        *,
        fresh: bool = False,
        factory: PlayerFactory | None = None,
        keep: int = 1,
    ) -> None:
        """The pool's bound on live processes is ``max(len(specs), MAX_LIVE)``."""
        if keep < 1:
            raise ValueError(f"keep must be at least 1, got {keep}")
        self.specs = specs
        self.config = config
        self.bots_dir = bots_dir
        self.lane = lane
        self.fresh = fresh
        self.keep = keep
        self._factory: PlayerFactory = factory or Player
        self.max_live = max(len(specs), self.MAX_LIVE)
        self._live: dict[str, list[_Live]] = {}  # entrant -> its processes, least recently used first
        self._seated: dict[str, PlayerLike] = {}  # entrant -> the process of its latest game
        self._clock = 0  # games handed out, for _Live.used

    async def for_game(self, names: Sequence[str], seed: int | None) -> list[PlayerLike]:
        """The players of a game dealt from ``seed``, by seat: for each entrant its least recently used process
        that has not been dealt this deal, else a fresh one (closing the least recently used beyond ``keep``)."""
        stale: list[PlayerLike] = []
        chosen: list[_Live] = []
        for name in names:
            live = self._live.setdefault(name, [])
            proc = next((p for p in live if seed not in p.dealt), None)
            if proc is None:
                while len(live) >= self.keep:
                    stale.append(live.pop(0).player)
                if self.live_count() >= self.max_live and (other := self._evict(names)) is not None:
                    stale.append(other)
                proc = self._start(name)
            else:
                live.remove(proc)
            live.append(proc)
            chosen.append(proc)
        await _close_all(stale)
        self._clock += 1
        for name, proc in zip(names, chosen, strict=True):
            proc.dealt.add(seed)
            proc.used = self._clock
            self._seated[name] = proc.player
        return [p.player for p in chosen]

    def live_count(self) -> int:
        """The processes the pool holds (started, or to be started by their first game)."""
        return sum(len(live) for live in self._live.values())

    def _evict(self, playing: Sequence[str]) -> PlayerLike | None:
        """Take out the least recently used process of an entrant not in ``playing`` (the game being seated); None
        when only those entrants have processes."""
        others = [(n, p) for n, live in self._live.items() if n not in playing for p in live]
        if not others:
            return None
        name, proc = min(others, key=lambda np: np[1].used)
        self._live[name].remove(proc)
        return proc.player

    def _start(self, name: str) -> _Live:
        path = self.bots_dir / f"{name}.{self.lane}.log"
        return _Live(self._factory(self.specs[name], self.config, path), set())

    def fits(self, game: ScheduledGame) -> bool:
        """True when ``for_game`` would start no process for the game beside the entrants' first: each of its
        entrants has no process here yet or one that has not been dealt its deal."""
        for name in game.seats:
            live = self._live.get(name)
            if live and all(game.seed in p.dealt for p in live):
                return False
        return True

    def get(self, name: str) -> PlayerLike:
        """A live player of ``name`` (its most recently used process; started when it has none)."""
        live = self._live.setdefault(name, [])
        if not live:
            live.append(self._start(name))
        return live[-1].player

    def declared(self, names: Iterable[str]) -> dict[str, tuple[str | None, str | None]]:
        """Entrant → (name, version) its bot declared in hello, for the bots of ``names`` that said hello (the
        processes of their latest game)."""
        out = {}
        for n in names:
            hello = getattr(self._seated.get(n), "hello", None)
            if hello is not None:
                out[n] = (getattr(hello, "name", None), getattr(hello, "version", None))
        return out

    async def after_game(self) -> None:
        if self.fresh:
            await self.aclose()

    async def retire(self, keep: Iterable[str]) -> None:
        """Close the processes of every entrant not in ``keep`` (a race's entrants that left it)."""
        wanted = set(keep)
        gone = [n for n in self._live if n not in wanted]
        await _close_all([p.player for n in gone for p in self._live.pop(n)])

    async def aclose(self) -> None:
        """Close every bot at once (bye; the runner kills what does not exit in time and reaps it); shielded, so it
        completes while the lane is being cancelled."""
        live, self._live = self._live, {}
        self._seated = {}
        await _close_all([p.player for procs in live.values() for p in procs])


async def _close_all(players: Sequence[PlayerLike]) -> None:
    """Close ``players`` at once, shielded from cancellation."""
    if not players:
        return
    with trio.CancelScope(shield=True):
        async with trio.open_nursery() as nursery:
            for p in players:
                nursery.start_soon(p.aclose)


async def play_batch(
    batch: TableBatch,
    pool: PlayerPool,
    *,
    ruleset: Ruleset,
    games_dir: Path,
    skip: frozenset[str] | set[str] = frozenset(),
    on_game: Callable[[PlayedGame], None] | None = None,
    play: GameFn | None = None,
) -> list[PlayedGame]:
    """Play the batch's games not in ``skip``, in rotation order; ``on_game`` sees each as soon as it ends.

    Bot faults are recorded forfeits in the results; only referee bugs raise.
    """
    game_fn: GameFn = play or play_game
    done = []
    for game in batch.games:
        if game.game_id in skip:
            continue
        players = await pool.for_game(game.seats, game.seed)
        start = time.perf_counter()
        result = await game_fn(
            players,
            game_id=game.game_id,
            ruleset=ruleset,
            seed=game.seed,
            log_path=games_dir / f"{game.game_id}.jsonl",
        )
        played = PlayedGame(game, result, time.perf_counter() - start, pool.declared(game.seats))
        await pool.after_game()
        done.append(played)
        if on_game is not None:
            on_game(played)
    return done


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


def rotation_order(batches: Sequence[TableBatch]) -> list[TableBatch]:
    """The games of ``batches`` as one-game batches, rotation by rotation: the first seat rotation of every deal,
    then the second of every deal, and so on (schedule order within a rotation).

    Played in this order by bots that stay up, a bot process meets a deal again only when a new pass over the
    deals begins; ``PlayerPool.for_game`` restarts it then (never between the rotations of each deal). With
    several lanes, each lane prefers the games its own processes have not dealt yet (``DealQueue.take``), so
    at a pass boundary a lane first plays the deals the other lanes played in the pass before.
    """
    units = [TableBatch(b.batch, (g,)) for b in batches for g in b.games]
    units.sort(key=lambda u: (u.games[0].rotation, u.batch))
    return units


class DealQueue:
    """The games to play, in order, handed to the lanes so that two rotations of one deal never run at once.

    Two processes of one entrant playing two rotations of a deal at the same time (on two lanes) could pass each
    other the hands they were dealt; so ``take`` hands a lane the first game whose deal no lane is playing, and
    waits while every remaining game's deal is being played. The deals in play are at most one per lane, so the
    first free game is always among the first few.

    ``take(fits)`` looks up to ``LOOKAHEAD`` games further for one that ``fits`` the lane (its bot processes
    have not played that deal), so that a lane restarts its bots only when no such game is near: at ``--jobs
    2`` with every entrant at every table, each process then plays two passes over the deals instead of one
    (half the bot starts).

    ``more``, when given, is awaited for the next round's games once every game handed out has ended (a race's
    next round depends on the results of this one); an empty answer ends the queue.
    """

    #: How many queued games ``take`` looks through for one that fits the lane, past the first free one.
    LOOKAHEAD = 64
    #: A lane that fits none of the queued games leaves them to the busy lanes, instead of starting new bot
    #: processes, while there are at most this many for each busy lane (about what a lane plays while bots start).
    RESTART_GAMES = 4

    def __init__(
        self, units: Iterable[TableBatch], more: Callable[[], Awaitable[Sequence[TableBatch]]] | None = None
    ) -> None:
        self._pending = deque(units)
        self._playing: set[int] = set()
        self._changed = trio.Event()
        self._more = more
        self._refilling = False

    async def take(self, fits: Callable[[ScheduledGame], bool] | None = None) -> TableBatch | None:
        """The next game whose deal is free (marked as being played): the first one that ``fits`` within
        ``LOOKAHEAD`` games of the first free one, else the first free one; None when no game is left.

        A game that does not fit means new bot processes for the lane (a fresh process per entrant: a generation
        of bot starts), so rather than take one the lane waits while a game that fits is only waiting for its deal
        (another lane is playing that deal: free within a game), and while the queue is down to its last
        ``RESTART_GAMES`` games per busy lane (they play them in about the time new bots would take to start, and
        a generation started for a game or two is most of the extra bot starts of a two-lane run)."""
        while True:
            first = None
            fitting = fits is None
            soon = False  # a game that fits waits only for its deal, which another lane is playing
            for i, unit in enumerate(self._pending):
                if first is not None and i - first > self.LOOKAHEAD:
                    break
                if unit.batch in self._playing:
                    soon = soon or (fits is not None and fits(unit.games[0]))
                    continue
                if first is None:
                    first = i
                if fits is None or fits(unit.games[0]):
                    first, fitting = i, True
                    break
            if first is not None and not fitting and (soon or self._few_left()):
                first = None  # wait for a lane to finish its game, rather than start new bot processes
            if first is not None:
                unit = self._pending[first]
                del self._pending[first]
                self._playing.add(unit.batch)
                return unit
            if not self._pending and not self._playing and not self._refilling:
                if self._more is None:
                    return None
                self._refilling = True  # one lane asks; the others wait for its answer
                try:
                    units = await self._more()
                finally:
                    self._refilling = False
                    self._notify()
                self._pending.extend(units)
                if not units:
                    self._more = None
                continue
            await self._changed.wait()

    def _few_left(self) -> bool:
        """The queue's last few games: the busy lanes play them in about the time new bot processes take to start."""
        return len(self._pending) <= self.RESTART_GAMES * len(self._playing)

    def release(self, unit: TableBatch) -> None:
        """``unit``'s game has ended (or was abandoned): its deal is free again."""
        self._playing.discard(unit.batch)
        self._notify()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()


@dataclass(frozen=True, slots=True)
class PlaySetup:
    """What an executor plays a run's table batches with, and where each finished game goes.

    ``out_dir`` is the results folder (game logs in ``games/``, bot stderr in ``bots/``); ``finished`` holds the
    ids of the games stored already, never played again (the caller adds each game it commits); ``on_game``
    takes every finished game, once. ``keep`` is how many processes of an entrant a lane keeps (``PlayerPool``),
    as the format says (``Format.processes_kept``: a race one per seat rotation, the fixed formats one).
    """

    entrants: tuple[EntrantInfo, ...]
    config: RunnerConfig
    ruleset: Ruleset
    out_dir: Path
    finished: set[str]
    on_game: Callable[[PlayedGame], None]
    keep: int = 1

    @classmethod
    def of(
        cls, params: TournamentParams, out_dir: Path, finished: set[str], on_game: Callable[[PlayedGame], None]
    ) -> PlaySetup:
        """The setup of ``params``' games, its results in ``out_dir`` hidden from every bot. Raises the runner's
        ``ConfigError`` or ``RulesetError`` for impossible settings or an impossible ruleset."""
        keep = format_of(params).processes_kept(params)
        config, ruleset = params.runner_config(results=out_dir), params.game_ruleset()
        return cls(params.entrants, config, ruleset, out_dir, finished, on_game, keep)

    @property
    def games_dir(self) -> Path:
        """The game logs: ``out_dir/games/<game id>.jsonl``."""
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


def lane_pool(setup: PlaySetup, lane: int, *, fresh: bool, factory: PlayerFactory | None) -> PlayerPool:
    """The ``PlayerPool`` of lane number ``lane`` (bot stderr in ``bots/<entrant>.<lane>.log``)."""
    specs = {e.name: e.to_spec() for e in setup.entrants}
    return PlayerPool(specs, setup.config, setup.bots_dir, lane, fresh=fresh, factory=factory, keep=setup.keep)


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


@dataclass(frozen=True)
class LocalExecutor:
    """Plays ``jobs`` tables at the same time on this machine, each lane with its own ``PlayerPool``.

    The lanes run in this process, or with ``workers=True`` each in a worker process forked from this one
    (``lane_workers``), so that the referee's own work spreads over the machine's cores; this process then keeps
    the queue of games and stores each finished game. (On a shared 2-core machine the workers cost about a third
    more of the referee's CPU for no wall-clock gain, bench/README.md, so they are not the default.)
    ``fresh=True`` starts a new bot process for every game. ``play`` (the runner's ``play_game``) and ``factory``
    (``Player``) may be replaced, as the tests do with in-process fakes (in workers too).
    """

    jobs: int
    fresh: bool = False
    play: GameFn | None = None
    factory: PlayerFactory | None = None
    workers: bool = False

    def run(self, setup: PlaySetup, rounds: Rounds) -> None:
        if self.workers:
            from referee.tournament.lane_workers import run_in_workers

            run_in_workers(setup, rounds, max(1, self.jobs), fresh=self.fresh, play=self.play, factory=self.factory)
            return

        async def work() -> None:
            await self.play_rounds(setup, rounds)

        run_until_stopped(work, storage=STORAGE_FAILURES)

    async def play_rounds(self, setup: PlaySetup, rounds: Rounds) -> None:
        """Play round after round of ``rounds()`` on ``jobs`` concurrent lanes in this process (``play_lanes``)."""
        lane_folders(setup)
        lanes = [
            PoolLane(lane_pool(setup, n, fresh=self.fresh, factory=self.factory), setup, self.play)
            for n in range(max(1, self.jobs))
        ]
        await play_lanes(setup, rounds, lanes, fresh=self.fresh)
