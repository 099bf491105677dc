"""``serve``: the ladder running: its gate, its matchmaker, its lanes and its epochs, in one trio task.

``await serve(DIR)`` runs until cancelled. It holds the folder's lock for its whole life (a second ``serve`` of the
same folder is refused with ``FolderBusy``, naming the first one's pid), so it can share a nursery with a web server
in the same process (``nursery.start(serve, DIR)`` hands back the ``Ladder`` it uses). At its start it recovers
from whatever stopped the last one, ``kill -9`` included: blocks still marked in play are voided (their partial
game logs removed) and played again, versions caught in their gate go back to the gate. Then:

- the gatekeeper takes new versions through their build and check (``gate``), one at a time;
- ``jobs`` lanes each play one block after another: the matchmaker (``matchmaker``) chooses it from the field
  (``field``), it is recorded as in play, every seat rotation is played by the lane's bots (a ``PlayerPool`` that
  keeps processes across blocks: a block is a new deal, and a process never meets a deal twice), and the block is
  committed whole with its ratings (``settle``), each version charged its bots' reply time in it for the
  matchmaker's fair share (``botclock``). A block that fails for a reason that is not a bot's (the disk, the
  store, a referee error, the stop itself) is voided, never counted, and played again (at most ``MAX_ATTEMPTS``
  times, and never once its epoch has closed);
- the store is watched for what other processes change (submissions, retirements, suspensions from the shell or
  the web), which takes effect at the next block, and closed epochs are revealed (``epochs``).

Cancelling it (Ctrl-C or SIGTERM through ``run_until_stopped``) abandons the blocks in play (voided, to be played
again) and closes every bot before it returns.
"""

from __future__ import annotations

import random
import re
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import trio

from referee.contest.lock import ResultsLock
from referee.contest.pool import PlayerFactory
from referee.contest.schedule import ScheduledGame, TableBatch
from referee.engine import RefereeError
from referee.ladder.botclock import BotClock
from referee.ladder.courier import Courier
from referee.ladder.epochs import EpochKeeper
from referee.ladder.errors import ClusterGone, LadderError, Refused
from referee.ladder.field import FieldTracker
from referee.ladder.final import final_folder
from referee.ladder.gate import CheckFn, Gatekeeper
from referee.ladder.lanes import InProcessLanes, Lanes, LaneSettings
from referee.ladder.matchmaker import Matchmaker, charges
from referee.ladder.model import Block, BlockKind, BlockState, VersionState
from referee.ladder.notices import NoticeKind, record
from referee.ladder.platform_build import BuildLimits
from referee.ladder.rating import LiveRating
from referee.ladder.service import Ladder
from referee.ladder.settle import settle_block
from referee.ladder.store import GameRow
from referee.runner import RunnerConfig
from referee.runner.memory_cgroup import describe as memory_line
from referee.runner.sandbox import resolve_mode
from referee.tournament.execute import GameFn

__all__ = ["MAX_ATTEMPTS", "ServeOptions", "serve"]

#: A block voided this many times is given up (a referee error that keeps happening must not loop forever).
MAX_ATTEMPTS = 3
#: Seconds between two looks at whether the lanes can feed more lanes (a Dask worker that joined the cluster).
GROW_SECONDS = 5.0


@dataclass(frozen=True)
class ServeOptions:
    """How ``serve`` runs: ``jobs`` lanes (default: ``[serve] jobs``); ``announce`` takes each line it has to say
    (epochs, gates, suspensions, voids); ``poll`` seconds between looks at the store. ``play``, ``factory`` and
    ``check`` replace the runner's ``play_game``, ``Player`` and the conformance suite (the tests' in-process
    entrants); ``clock`` the wall clock; ``seed`` seeds the matchmaker's draws; ``freeze_idle`` freezes warm
    processes between their games (off only to measure what that saves: ``bench/bench_idle_freeze.py``); ``lanes``
    makes where the lanes play (``referee.ladder.lanes``: in this process by default)."""

    jobs: int | None = None
    announce: Callable[[str], None] = print
    poll: float = 1.0
    play: GameFn | None = None
    factory: PlayerFactory | None = None
    check: CheckFn | None = None
    clock: Callable[[], float] = time.time
    seed: int | None = None
    freeze_idle: bool = True
    lanes: Callable[[LaneSettings], Lanes] | None = None


class LadderServer:
    """The state of one ``serve``: see the module's docstring."""

    def __init__(self, ladder: Ladder, options: ServeOptions) -> None:
        self.ladder = ladder
        self.store = ladder.store
        self.config = ladder.config
        self.options = options
        self.announce = options.announce
        self.clock = options.clock
        self.rating = LiveRating(self.config.rating)
        self.field = FieldTracker(self.store, self.rating.initial())
        self.epochs = EpochKeeper(self.store, self.config.epochs, self.config.ruleset().to_dict(), self.announce)
        self.matchmaker = Matchmaker(self.config.matchmaking, self.config.games, random.Random(options.seed))
        self.gatekeeper = Gatekeeper(ladder, self.announce, self.changed, options.check)
        self.jobs = options.jobs or self.config.serve.jobs
        # Warm processes are frozen between their games: a bot burning CPU while idle takes none of the field's.
        # Each stderr log is marked with the game and request its lines were written under (the replay shows them).
        runner = RunnerConfig.of(self.config.bot_settings(), hidden=ladder.layout.hidden_paths())
        self.runner = replace(runner, freeze=options.freeze_idle, stderr_marks=True)
        self.ruleset = self.config.ruleset()
        self.keep = max(self.config.games.table_sizes)
        self.warm: list[OrderedDict[int, None]] = []
        max_live = max(self.keep * 2, self.config.serve.process_cap() // self.jobs)
        # Each version's reply time, for the matchmaker's fair share in bot time (fed by every kind of lane).
        self.bot_clock = BotClock()
        settings = LaneSettings(
            self.jobs, self.runner, self.ruleset, ladder.layout.bots, self.keep, max_live, ladder.version_folder,
            options.play, options.factory, self.bot_clock,
            BuildLimits.of(self.config.submissions), lambda v: ladder.layout.source_pack(v.digest),
        )  # fmt: skip
        self.lanes: Lanes = (options.lanes or InProcessLanes)(settings)
        self.blocks_played = 0
        self._change = trio.Event()
        self._keys: tuple[frozenset[int], set[str]] = (frozenset(), set())  # the field's ids and their versions' keys
        self._root = str(ladder.layout.root) + "/"

    # ------------------------------------------------------------------------------------------ start

    def recover(self) -> None:
        """Void the blocks a stopped ``serve`` left in play, send versions caught in their gate back to it."""
        for block in self.store.blocks(states=[BlockState.PLAYING], limit=None):
            self.store.void_block(block.id, "the referee stopped while it was played")
            self._remove_logs(block.id)
        for v in self.store.versions(states=[VersionState.BUILDING, VersionState.GATING]):
            self.store.move_version(v.id, VersionState.SUBMITTED, "its gate restarts: the referee stopped")
        for leftover in self.ladder.layout.incoming.iterdir():
            from referee.ladder.intake import discard

            discard(leftover)

    async def run(self, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        resolve_mode(self.runner, quiet=True)  # a sandbox that cannot be made is refused now, in one line (a
        # missing bubblewrap under --sandbox auto is said when the first bot starts, as in referee run)
        self.recover()
        if final_folder(self.ladder) is not None:  # the ladder's play ended with its final: its pages only
            self.announce(f"the ladder's final was played ({final_folder(self.ladder)}): no more blocks")
            task_status.started(self.ladder)
            await trio.sleep_forever()
        self.announce(memory_line(self.runner.limits.ram))
        now = self.clock()
        self.field.load(now)
        self.epochs.current(now)  # its commitment is said before its first block
        self.epochs.reveal_closed()
        try:
            await self.lanes.start()
            self.jobs = self.lanes.jobs
            self.warm = [OrderedDict() for _ in range(self.jobs)]
            async with trio.open_nursery() as nursery:
                nursery.start_soon(self._gates)
                nursery.start_soon(self._watch)
                nursery.start_soon(Courier(self.store, self.config.notices, self.announce, self.options.poll).run)
                for lane in range(self.jobs):
                    nursery.start_soon(self._lane, lane)
                nursery.start_soon(self._grow, nursery)
                task_status.started(self.ladder)
        finally:
            with trio.CancelScope(shield=True):
                await self.lanes.aclose()

    # ------------------------------------------------------------------------------------------ events

    def changed(self) -> None:
        """The field may have changed (a version passed its gate, a block ended): look again."""
        self.field.refresh(self.clock())
        self._poke()

    def _poke(self) -> None:
        self._change.set()
        self._change = trio.Event()

    async def _wait(self, seconds: float) -> None:
        with trio.move_on_after(seconds):
            await self._change.wait()

    async def _gates(self) -> None:
        while True:
            if not await self.gatekeeper.step():
                await self._wait(self.options.poll)

    async def _watch(self) -> None:
        """Notice what other processes commit (``PRAGMA data_version``), reveal closed epochs."""
        seen = self.store.data_version()
        while True:
            await trio.sleep(self.options.poll)
            now = self.store.data_version()
            if now != seen:
                seen = now
                self.changed()
            self.epochs.reveal_closed()

    # ------------------------------------------------------------------------------------------ blocks

    def _choose(self, lane: int) -> Block | None:
        """The next block for ``lane`` to play (a void one to replay first), recorded as in play; None when none can
        be made. The versions with live processes in this lane are its warm ones: preferring them keeps a version's
        processes in one lane, so that the lanes together need fewer."""
        replay = self._replay()
        if replay is not None:
            return replay
        now = self.clock()
        candidates = self.field.candidates(now, self.warm[lane])
        choice = self.matchmaker.choose(candidates, set(self.field.busy), self.field.met, self.field.mean_today())
        if choice is None:
            return None
        epoch = self.epochs.current(now)
        seed_version = self.field.version(choice.seed)
        kind = (
            BlockKind.PLACEMENT if seed_version and seed_version.state == VersionState.PLACEMENT else BlockKind.RANKED
        )
        try:
            block = self.store.create_block(
                epoch.id, kind, choice.seats, lambda bid: self.epochs.seed(epoch.id, bid), active_only=True
            )
        except Refused:  # retired or suspended since the field was last read: read it again, choose later
            self.field.refresh(now)
            return None
        self.field.started(block.seats, now)
        return block

    def _replay(self) -> Block | None:
        """A void block whose versions are all free and active, in an open epoch, not given up: played again."""
        voids = self.store.blocks(states=[BlockState.VOID], limit=None)
        open_epoch = self.store.open_epoch_id() if voids else None
        for block in voids:
            if block.attempts >= MAX_ATTEMPTS or open_epoch is None or block.epoch_id != open_epoch:
                continue
            if any(vid not in self.field.field or self.field.busy[vid] for vid in block.seats):
                continue
            try:
                replayed = self.store.replay_block(block.id)
            except Refused:
                continue  # a version of it left the field since it was read
            self.field.started(replayed.seats, self.clock())
            return replayed
        return None

    async def _next_block(self, lane: int) -> Block:
        while True:
            block = self._choose(lane)
            if block is not None:
                return block
            await self._wait(self.options.poll)

    async def _grow(self, nursery: trio.Nursery) -> None:
        """Open more lanes when the lanes can feed more (a Dask worker joined), every ``GROW_SECONDS``."""
        while True:
            await trio.sleep(GROW_SECONDS)
            wanted = await self.lanes.wanted()
            if wanted > self.jobs:
                self.announce(f"more workers: {wanted} lanes now (were {self.jobs})")
                for lane in range(self.jobs, wanted):
                    self.warm.append(OrderedDict())
                    nursery.start_soon(self._lane, lane)
                self.jobs = wanted

    async def _lane(self, lane: int) -> None:
        while True:
            block = await self._next_block(lane)
            await self.lanes.retire(lane, self._active_keys())
            await self._play(lane, block)

    def _active_keys(self) -> set[str]:
        """The keys of the field's versions (made again only when the field's versions change; not to be changed)."""
        ids = self.field.field.keys()
        if self._keys[0] != ids:
            self._keys = (frozenset(ids), {entry.version.key for entry in self.field.field.values()})
        return self._keys[1]

    async def _play(self, lane: int, block: Block) -> None:
        known = self.store.versions_by_id(block.seats)
        keys = {vid: v.key for vid, v in known.items()}
        counted = False
        charged: dict[int, float] = {}
        before = self.bot_clock.read(keys.values())
        try:
            games = _block_games(block, [keys[vid] for vid in block.seats])
            games_dir = self.ladder.layout.block_dir(block.id)
            games_dir.mkdir(parents=True, exist_ok=True)
            played = await self.lanes.play(lane, TableBatch(block.id, games), list(known.values()), games_dir)
            by_key = {key: vid for vid, key in keys.items()}
            rows = [self._row(p, by_key) for p in played]
            settled = settle_block(self.store, self.rating, block, rows, known, self.config.faults)
            counted = True
            spent = self.bot_clock.read(keys.values())
            own = {vid: spent[key] - before[key] for vid, key in keys.items()}
            charged = charges(block.seats, sum(row.duration for row in rows), own)
            self.blocks_played += 1
            for vid in settled.ranked:
                self.announce(f"{keys[vid]} finished its placement and is ranked")
            for vid, reason in settled.suspended.items():
                self.announce(f"{keys[vid]} suspended: {reason}")
            self._notices(known, settled.suspended, settled.faulting)
        except BaseException as exc:
            if not counted:
                reason = "the referee stopped while it was played" if _is_stop(exc) else _describe(exc)
                self.store.void_block(block.id, reason)
                self._remove_logs(block.id)
                if not _is_stop(exc):
                    self.announce(f"block {block.id} voided, to be played again: {reason}")
            if _is_stop(exc) or not isinstance(exc, Exception) or isinstance(exc, ClusterGone):
                raise
        finally:
            self.field.finished(block.seats, self.clock(), counted=counted, charged=charged)
            lru = self.warm[lane]
            for vid in block.seats:
                lru[vid] = None
                lru.move_to_end(vid)
            while len(lru) > max(1, self.lanes.max_live // self.keep):
                lru.popitem(last=False)
            self._poke()

    def _notices(self, known: dict[int, Any], suspended: dict[int, str], faulting: dict[int, str]) -> None:
        """Keep a notice for each version the block suspended or set faulting (``notices``; the courier sends it)."""
        both = ((NoticeKind.SUSPENDED, "suspended", suspended), (NoticeKind.FAULTING, "started faulting", faulting))
        for kind, said, lines in both:
            for vid, line in lines.items():
                v = known[vid]
                text = f"{v.key} {said}: {line}"
                record(self.store, self.config.notices, v.entrant_id, vid, kind, text, entrant=v.entrant)

    def _row(self, played: Any, by_key: dict[str, int]) -> GameRow:
        game, result = played.game, played.result
        forfeited = set(result.forfeits)
        log = result.log_path
        relative = None if log is None else str(log)
        if relative is not None and relative.startswith(self._root):  # stored relative to the ladder's folder
            relative = str(Path(relative[len(self._root) :]))
        return GameRow(
            rotation=game.rotation,
            seats=tuple(by_key[k] for k in game.seats),
            scores=tuple(int(s) for s in result.scores),
            ranks=tuple(int(r) for r in result.ranks),
            forfeits=tuple(i in forfeited for i in range(len(game.seats))),
            faults=tuple(result.faults),
            log_path=relative,
            duration=float(played.duration),
            log_sha256=getattr(result, "log_sha256", None),
        )

    def _remove_logs(self, block_id: int) -> None:
        folder = self.ladder.layout.block_dir(block_id)
        for path in folder.glob(f"{block_id}.*.jsonl*"):
            path.unlink(missing_ok=True)


def _block_games(block: Block, keys: list[str]) -> tuple[ScheduledGame, ...]:
    """Every seat rotation of the block's table, on its deal; game ids ``<block>.<rotation>``."""
    seats = tuple(keys)
    return tuple(
        ScheduledGame(f"{block.id}.{r}", block.id * 4 + r, block.id, 0, r, seats[r:] + seats[:r], block.seed)
        for r in range(len(seats))
    )


def _is_stop(exc: BaseException) -> bool:
    return isinstance(exc, trio.Cancelled | KeyboardInterrupt) or (
        isinstance(exc, BaseExceptionGroup) and any(_is_stop(e) for e in exc.exceptions)
    )


_SPACES = re.compile(r"\s+")


def _describe(exc: BaseException) -> str:
    """A one-line account of a failure that is not a bot's."""
    text = _SPACES.sub(" ", str(exc)).strip()
    if isinstance(exc, RefereeError | LadderError | OSError):
        return text or type(exc).__name__
    return f"referee error {type(exc).__name__}: {text}"[:500]


async def serve(
    directory: Path | str, options: ServeOptions | None = None, *, task_status: Any = trio.TASK_STATUS_IGNORED
) -> None:
    """Run the ladder in ``directory`` until cancelled (see the module's docstring). Raises ``FolderBusy`` when
    another ``serve`` holds it, ``LadderError`` for a folder that is not a ladder or a bad ladder.toml,
    ``BotSpecError`` when the sandbox ladder.toml asks for cannot be made."""
    ladder = Ladder.open(directory)
    try:
        with ResultsLock(ladder.layout.root):
            await LadderServer(ladder, options or ServeOptions()).run(task_status)
    finally:
        ladder.close()
