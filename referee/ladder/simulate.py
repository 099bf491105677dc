"""A simulated ladder: the real store, field, matchmaker, ratings and settling, with entrants of known strength
instead of bot processes and a simulated clock instead of the wall's.

``SimulatedLadder`` plays blocks on ``jobs`` simulated lanes: a game takes ``game_seconds`` simulated seconds (the
referee's share) plus each seated version's ``bot_seconds`` (its bot's thinking), a block of k seats k games;
a seat's score on a deal is ``20 + luck of its cards - strength + noise``,
the luck shared by the rotations of the deal (so the duplicate format cancels it) and the noise drawn per game
(``noise`` wide; ``skew``: a share of games with an extra penalty, a high-variance bot). A version may also forfeit
(``fault``). Versions enter placement at once (the gate is not simulated) and are submitted at the times given.
It is what ``bench/bench_ladder.py`` measures and what the matchmaker's bound tests run for days of simulated time.
"""

from __future__ import annotations

import heapq
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from referee.contest.deal_secret import DealSecret
from referee.ladder.config import LadderConfig
from referee.ladder.field import FieldTracker
from referee.ladder.matchmaker import Candidate, Choice, Matchmaker, charges
from referee.ladder.model import Block, BlockKind, VersionState
from referee.ladder.rating import LiveRating
from referee.ladder.service import Ladder
from referee.ladder.settle import settle_block
from referee.ladder.store import GameRow

__all__ = ["Policy", "SimVersion", "SimulatedLadder", "Trace"]


class Policy(Protocol):
    """A matchmaking rule: the ladder's ``Matchmaker`` or another one to compare it with."""

    def choose(
        self,
        field: Sequence[Candidate],
        busy: frozenset[int] | set[int],
        met: dict[tuple[int, int], int],
        mean_today: float,
    ) -> Choice | None: ...


@dataclass(frozen=True, slots=True)
class SimVersion:
    """A version to submit at simulated time ``at``: its entrant, true strength, fault rate, skew, and the seconds
    its bot thinks in a game."""

    entrant: str
    strength: float
    at: float = 0.0
    fault: float = 0.0
    skew: float = 0.0
    bot_seconds: float = 0.0


@dataclass(slots=True)
class Trace:
    """What a run saw: each block's start, seats and duration; each version's waits; the bound checks."""

    blocks: int = 0
    games: int = 0
    max_wait: float = 0.0
    worst_share: float = 0.0  # max over blocks, seats: (its entrant's bot time today - share_cap x the mean) / a block
    placement_late: int = 0  # blocks chosen for a ranked seed while a free version was in placement
    choose_seconds: float = 0.0
    settle_seconds: float = 0.0
    first_block: dict[int, float] = field(default_factory=dict)


class SimulatedLadder:
    """See the module's docstring. ``directory`` must not hold a ladder yet; ``config_text`` is its ladder.toml."""

    def __init__(
        self,
        directory: Path,
        config_text: str,
        versions: Sequence[SimVersion],
        *,
        jobs: int = 2,
        game_seconds: float = 1.0,
        noise: float = 3.0,
        seed: int = 1,
        policy: Callable[[Matchmaker], Policy] | None = None,
    ) -> None:
        ladder, _ = Ladder.init(directory)
        ladder.layout.config.write_text(config_text, encoding="utf-8")
        ladder.close()
        self.ladder = Ladder.open(directory)
        self.config: LadderConfig = self.ladder.config
        self.store = self.ladder.store
        self.rng = random.Random(seed)
        self.rating = LiveRating(self.config.rating)
        self.field = FieldTracker(self.store, self.rating.initial())
        self.matchmaker = Matchmaker(self.config.matchmaking, self.config.games, random.Random(seed + 1))
        self.policy: Policy = policy(self.matchmaker) if policy is not None else self.matchmaker
        self.jobs = jobs
        self.game_seconds = game_seconds
        self.noise = noise
        self.pending = sorted(versions, key=lambda v: v.at)
        self.truth: dict[int, SimVersion] = {}
        self.secret = DealSecret(random.Random(seed).randbytes(32))  # a run is repeatable from its seed
        self.epoch = self.store.open_epoch("hmac-sha256/v1", self.secret.commitment, self.secret.hex, {}).id
        self.now = 0.0
        self.trace = Trace()
        self._last_end: dict[int, float] = {}
        self._entrants: dict[str, int] = {}

    def close(self) -> None:
        self.ladder.close()

    def _submit_due(self) -> None:
        while self.pending and self.pending[0].at <= self.now:
            sim = self.pending.pop(0)
            eid = self._entrants.get(sim.entrant)
            if eid is None:
                eid = self.store.add_entrant(sim.entrant, "scrypt$none").id  # no token: nobody signs in
                self._entrants[sim.entrant] = eid
            number = len(self.store.versions(entrant_id=eid)) + 1
            v = self.store.add_version(
                eid, digest=f"{sim.entrant}/{number}", command=("python", "bot.py"), build=None, kind="file", files=1,
                size=1,
            )  # fmt: skip
            old = self.store.versions(entrant_id=eid, states=[VersionState.PLACEMENT, VersionState.RANKED])
            for o in old:
                self.store.move_version(o.id, VersionState.RETIRED, f"replaced by version {number}")
            placement = self.config.matchmaking.placement_blocks
            self.store.move_version(v.id, VersionState.GATING)  # the gate is not simulated: it passes at once
            self.store.move_version(v.id, VersionState.PLACEMENT, "passed the gate", placement_left=placement)
            self.truth[v.id] = sim
            self.field.refresh(self.now)

    def run(self, *, blocks: int | None = None, until: float | None = None, every: float | None = None,
            on_tick: Callable[[SimulatedLadder], None] | None = None, games: int | None = None) -> Trace:  # fmt: skip
        """Play until ``blocks`` blocks, ``games`` games or simulated time ``until``; ``on_tick`` is called every
        ``every`` simulated seconds."""
        self._submit_due()
        self.field.load(self.now)
        lanes: list[tuple[float, int, Block | None]] = [(self.now, lane, None) for lane in range(self.jobs)]
        heapq.heapify(lanes)
        next_tick = self.now + every if every else None
        while lanes:
            at, lane, block = heapq.heappop(lanes)
            while next_tick is not None and on_tick is not None and next_tick <= at:
                self.now = next_tick
                on_tick(self)
                next_tick += every or 0
            self.now = at
            if block is not None:
                self._finish(block)
            self._submit_due()
            if (
                (blocks is not None and self.trace.blocks >= blocks)
                or (games is not None and self.trace.games >= games)
                or (until is not None and self.now >= until)
            ):
                continue
            chosen = self._choose()
            if chosen is None:
                heapq.heappush(lanes, (self.now + self.game_seconds, lane, None))
                continue
            heapq.heappush(lanes, (self.now + self._game_time(chosen) * len(chosen.seats), lane, chosen))
        return self.trace

    def _choose(self) -> Block | None:
        t = time.perf_counter()
        candidates = self.field.candidates(self.now)
        busy = set(self.field.busy)
        choice = self.policy.choose(candidates, busy, self.field.met, self.field.mean_today())
        self.trace.choose_seconds += time.perf_counter() - t
        if choice is None:
            return None
        by_id = {c.id: c for c in candidates}
        mm = self.config.matchmaking
        seed = by_id[choice.seed]
        cap = mm.share_cap * self.field.mean_today()
        if (
            seed.placement_left == 0
            and seed.waited < Matchmaker.DUE * mm.max_wait
            and any(c.placement_left > 0 and c.id not in busy and c.entrant_seconds <= cap for c in candidates)
        ):
            self.trace.placement_late += 1
        for vid in choice.seats:  # how far past the bound, in blocks of its own (its mean charge a block today)
            c = by_id[vid]
            per_block = c.entrant_seconds / c.entrant_today if c.entrant_today else 1.0
            self.trace.worst_share = max(self.trace.worst_share, (c.entrant_seconds - cap) / per_block)
        for vid in choice.seats:
            self.trace.max_wait = max(self.trace.max_wait, by_id[vid].waited)
            self.trace.first_block.setdefault(vid, self.now)
        kind = BlockKind.PLACEMENT if by_id[choice.seed].placement_left > 0 else BlockKind.RANKED
        block = self.store.create_block(self.epoch, kind, choice.seats, lambda b: self.secret.seed(self.epoch, b))
        self.field.started(block.seats, self.now)
        return block

    def _finish(self, block: Block) -> None:
        t = time.perf_counter()
        versions = self.store.versions_by_id(block.seats)
        rows = self._games(block)
        settle_block(self.store, self.rating, block, rows, versions, self.config.faults)
        self.trace.settle_seconds += time.perf_counter() - t
        self.trace.blocks += 1
        self.trace.games += len(rows)
        k = len(block.seats)
        own = {vid: k * self.truth[vid].bot_seconds for vid in block.seats}
        charged = charges(block.seats, k * self._game_time(block), own)
        self.field.finished(block.seats, self.now, counted=True, charged=charged)

    def _game_time(self, block: Block) -> float:
        """Simulated seconds a game of ``block`` takes: the referee's ``game_seconds`` and each bot's thinking."""
        return self.game_seconds + sum(self.truth[vid].bot_seconds for vid in block.seats)

    def _games(self, block: Block) -> list[GameRow]:
        rng = random.Random(block.seed)
        k = len(block.seats)
        luck = [rng.gauss(0, 6) for _ in range(k)]
        rows = []
        for r in range(k):
            seats = block.seats[r:] + block.seats[:r]
            scores, forfeits = [], []
            for seat, vid in enumerate(seats):
                sim = self.truth[vid]
                score = 20 + luck[seat] - sim.strength + self.rng.gauss(0, self.noise)
                if sim.skew and self.rng.random() < sim.skew:
                    score += 25
                lost = self.rng.random() < sim.fault
                forfeits.append(lost)
                scores.append(round(score) + (30 if lost else 0))
            keys = [(f, s) for f, s in zip(forfeits, scores, strict=True)]
            ranks = tuple(1 + sum(1 for o in keys if o < keys[i]) for i in range(k))
            faults = tuple(_SimFault(i) for i, f in enumerate(forfeits) if f)
            rows.append(GameRow(r, seats, tuple(scores), ranks, tuple(forfeits), faults, None, self._game_time(block)))
        return rows

    def true_order(self, version_ids: Sequence[int]) -> list[int]:
        """The versions by true strength, strongest first."""
        return sorted(version_ids, key=lambda v: -self.truth[v].strength)


@dataclass(slots=True)
class _SimFault:
    seat: int
    kind: str = "crash"
    round: int | None = 1
    turn: int | None = 1
    detail: str = "simulated forfeit"
    line: str | None = None
