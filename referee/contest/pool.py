"""The bot processes of one table lane: up to ``keep`` per entrant, kept across games, never dealt a deal twice.

``PlayerPool`` is what every lane plays with: the lanes of ``LocalExecutor`` (in this process or in worker
processes, ``lane_workers``) and those of a Dask worker (``cluster_worker``). Each process it holds has a number;
``take_report`` says which processes the games since the last report were seated with and which were closed, so
that a lane's pool can be followed from another process (``PoolView``) without replaying its choices.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

import trio

from referee.contest.schedule import ScheduledGame
from referee.runner import BotSpec, Player, RunnerConfig

__all__ = [
    "PlayerFactory",
    "PlayerLike",
    "PlayerPool",
    "PoolReport",
    "PoolView",
    "close_all",
    "pause_players",
    "resume_players",
]


class PlayerLike(Protocol):
    @property
    def hello(self) -> Any: ...
    async def aclose(self) -> None: ...


PlayerFactory = Callable[[BotSpec, RunnerConfig, Path], PlayerLike]


@dataclass(frozen=True, slots=True)
class PoolReport:
    """What a pool did since its last report: the processes each game was seated with (their numbers, by seat),
    game by game, and every process it closed."""

    seated: tuple[tuple[int, ...], ...] = ()
    closed: tuple[int, ...] = ()


@dataclass(slots=True)
class _Live:
    """A bot process of the pool: its number (unique in the pool), the deal seeds it has been dealt, and when it
    last played (the pool's count)."""

    player: PlayerLike
    dealt: set[int | None]
    number: int
    used: int = 0


def _fits(game: ScheduledGame, dealt: Callable[[str], Iterable[set[int | None]]]) -> bool:
    """True when each entrant of ``game`` has no process yet or one not dealt its deal (``dealt(entrant)``: the
    deals of each of its processes)."""
    for name in game.seats:
        deals = list(dealt(name))
        if deals and all(game.seed in d for d in deals):
            return False
    return True


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
        freeze_idle: bool = False,
    ) -> None:
        """The pool's bound on live processes is ``max(len(specs), MAX_LIVE)``. ``freeze_idle``: the processes of a
        game are frozen once it ends and thawed when seated again (``Player.pause``), so that a warm process takes
        no CPU between its games (the config must give bots a freezer: ``RunnerConfig.freeze``)."""
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
        self._numbers = itertools.count()
        self._report_seated: list[tuple[int, ...]] = []  # since the last take_report
        self._report_closed: list[int] = []
        self.freeze_idle = freeze_idle
        self._playing: list[PlayerLike] = []  # the players of the game under way (freeze_idle)

    async def for_game(self, names: Sequence[str], seed: int | None) -> list[PlayerLike]:
        """The players of a game dealt from ``seed``, by seat: for each entrant its least recently used process
        that has not been dealt this deal, else a fresh one (closing the least recently used beyond ``keep``)."""
        stale: list[_Live] = []
        chosen: list[_Live] = []
        for name in names:
            live = self._live.setdefault(name, [])
            proc = next((p for p in live if seed not in p.dealt), None)
            if proc is None:
                while len(live) >= self.keep:
                    stale.append(live.pop(0))
                if self.live_count() >= self.max_live and (other := self._evict(names)) is not None:
                    stale.append(other)
                proc = self._start(name)
            else:
                live.remove(proc)
            live.append(proc)
            chosen.append(proc)
        await self._close(stale)
        self._clock += 1
        for name, proc in zip(names, chosen, strict=True):
            proc.dealt.add(seed)
            proc.used = self._clock
            self._seated[name] = proc.player
        self._report_seated.append(tuple(p.number for p in chosen))
        self._playing = [p.player for p in chosen]
        if self.freeze_idle:
            resume_players(self._playing)
        return [p.player for p in chosen]

    def take_report(self) -> PoolReport:
        """The processes seated and closed since the last report (``PoolView.follow`` reads it)."""
        report = PoolReport(tuple(self._report_seated), tuple(self._report_closed))
        self._report_seated, self._report_closed = [], []
        return report

    def live_count(self) -> int:
        """The processes the pool holds (started, or to be started by their first game)."""
        return sum(len(live) for live in self._live.values())

    def _evict(self, playing: Sequence[str]) -> _Live | None:
        """Take out the least recently used process of an entrant not in ``playing`` (the game being seated); None
        when only those entrants have processes."""
        others = [(n, p) for n, live in self._live.items() if n not in playing for p in live]
        if not others:
            return None
        name, proc = min(others, key=lambda np: np[1].used)
        self._live[name].remove(proc)
        return proc

    def _start(self, name: str) -> _Live:
        path = self.bots_dir / f"{name}.{self.lane}.log"
        return _Live(self._factory(self.specs[name], self.config, path), set(), next(self._numbers))

    async def _close(self, procs: Sequence[_Live]) -> None:
        """Close ``procs`` at once (shielded), noting their numbers for the next report."""
        self._report_closed.extend(p.number for p in procs)
        await close_all([p.player for p in procs])

    def fits(self, game: ScheduledGame) -> bool:
        """True when ``for_game`` would start no process for the game beside the entrants' first: each of its
        entrants has no process here yet or one that has not been dealt its deal."""
        return _fits(game, lambda name: (p.dealt for p in self._live.get(name, ())))

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
        elif self.freeze_idle:
            pause_players(self._playing)
        self._playing = []

    async def retire(self, keep: Iterable[str]) -> None:
        """Close the processes of every entrant not in ``keep`` (a race's entrants that left it)."""
        wanted = set(keep)
        gone = [n for n in self._live if n not in wanted]
        await self._close([p for n in gone for p in self._live.pop(n)])

    async def aclose(self) -> None:
        """Close every bot at once (bye; the runner kills what does not exit in time and reaps it); shielded, so it
        completes while the lane is being cancelled."""
        live, self._live = self._live, {}
        self._seated = {}
        await self._close([p for procs in live.values() for p in procs])


def pause_players(players: Iterable[PlayerLike]) -> None:
    """Freeze each player's idle process (``Player.pause``: a freezer per bot start, ``RunnerConfig.freeze``)."""
    for player in players:
        _call(player, "pause")


def resume_players(players: Iterable[PlayerLike]) -> None:
    """Thaw what ``pause_players`` froze."""
    for player in players:
        _call(player, "resume")


def _call(player: PlayerLike, method: str) -> None:
    """``player.<method>()`` when the player has it (a ``Player``; the tests' in-process players have not)."""
    do = getattr(player, method, None)
    if do is not None:
        do()


async def close_all(players: Sequence[PlayerLike]) -> None:
    """Close ``players`` at once, shielded from cancellation."""
    if not players:
        return
    with trio.CancelScope(shield=True):
        async with trio.open_nursery() as nursery:
            for p in players:
                nursery.start_soon(p.aclose)


class PoolView:
    """A lane's ``PlayerPool`` followed from its reports in another process (the parent of a lane worker): which
    deals each live process of each entrant has been dealt, for ``fits``, the pool's own answer."""

    def __init__(self) -> None:
        self._dealt: dict[str, dict[int, set[int | None]]] = {}  # entrant -> process number -> its deals
        self._owner: dict[int, str] = {}  # process number -> its entrant

    def follow(self, games: Sequence[ScheduledGame], report: PoolReport) -> None:
        """The pool played ``games`` (in order) and reported ``report``: seat its processes, drop the closed ones
        (numbers are never used twice, so the order of the two does not matter)."""
        for game, numbers in zip(games, report.seated, strict=True):
            for name, number in zip(game.seats, numbers, strict=True):
                self._dealt.setdefault(name, {}).setdefault(number, set()).add(game.seed)
                self._owner[number] = name
        for number in report.closed:
            if number in self._owner:  # not one a retire dropped already
                del self._dealt[self._owner.pop(number)][number]

    def retire(self, keep: Iterable[str]) -> None:
        """The pool closed the processes of every entrant not in ``keep`` (``PlayerPool.retire``)."""
        wanted = set(keep)
        for name in [n for n in self._dealt if n not in wanted]:
            for number in self._dealt.pop(name):
                del self._owner[number]

    def fits(self, game: ScheduledGame) -> bool:
        """``PlayerPool.fits`` of the pool followed."""
        return _fits(game, lambda name: self._dealt.get(name, {}).values())
