"""In-process entrants for the ladder: players that are a strength, games that are a draw of scores, a gate that
passes or fails by name. They let ``serve`` run for hundreds of blocks in a few seconds, without processes.

A fake version's strength is read from its bot file: ``STRENGTH = 3.0`` (lower scores are better, so a higher
strength takes points off its scores), ``STRENGTH4 = -2.0`` its strength at tables of 4 (of any size, likewise);
``FAULT = 0.5`` forfeits that share of its games; ``FAILGATE = True`` fails the gate; ``THINK = 0.02`` makes it take
that many seconds to reply, once a game (through the player's ``request``, where the bot clock times it). Scores are
drawn from the deal seed and the seat, so a block's rotations share the luck of the deal. They play a tournament's
games too (``ladder final``), with a ``LocalExecutor`` given their ``play`` and ``factory``.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from referee.engine import seeded_deal
from referee.runner.gamelog import GameLogWriter
from referee.runner.logrecords import LogHeader

_VALUE = re.compile(r"^(STRENGTH[2-4]?|FAULT|FAILGATE|THINK)\s*=\s*(\S+)", re.MULTILINE)


def bot_text(
    strength: float,
    fault: float = 0.0,
    failgate: bool = False,
    tag: str = "",
    at: dict[int, float] | None = None,
    think: float = 0.0,
) -> str:
    """A fake bot file; ``at``: its strength at tables of some sizes (table size -> strength); ``think``: the
    seconds it takes to reply, once a game."""
    sizes = "".join(f"STRENGTH{k} = {v}\n" for k, v in (at or {}).items())
    slow = f"THINK = {think}\n" if think else ""
    return f"STRENGTH = {strength}\n{sizes}FAULT = {fault}\nFAILGATE = {failgate}\n{slow}# {tag}\nprint('fake')\n"


def traits(spec: Any) -> dict[str, str]:
    """The STRENGTH/FAULT/FAILGATE/THINK of a version, from the bot file its command names."""
    for word in reversed(spec.argv):
        path = Path(spec.cwd) / word
        if path.suffix == ".py" and path.is_file():
            return dict(_VALUE.findall(path.read_text()))
    return {}


@dataclass(frozen=True)
class FakeHello:
    name: str
    version: str | None = None


@dataclass
class FakePlayer:
    """A 'process' of a version: its strength and fault rate, the deals it was dealt, whether it was closed."""

    name: str
    strength: float
    fault: float
    strength_at: dict[int, float] = field(default_factory=dict)  # table size -> strength there
    think: float = 0.0
    hello: FakeHello = field(default_factory=lambda: FakeHello("fake"))
    deals: list[int] = field(default_factory=list)
    closed: bool = False

    async def request(self, line: bytes, expect: object, deadline: float) -> tuple[str, bytes]:
        """A reply after ``think`` seconds."""
        await trio.sleep(self.think)
        return "reply", line

    async def aclose(self) -> None:
        self.closed = True


@dataclass(frozen=True)
class FakeFault:
    seat: int
    kind: str = "crash"
    round: int = 1
    turn: int = 1
    detail: str = "scripted crash"
    line: str | None = None


@dataclass(frozen=True)
class FakeResult:
    game_id: str
    names: tuple[str, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    forfeits: tuple[int, ...]
    faults: tuple[FakeFault, ...]
    log_path: Path | None
    seed: int
    replay: dict[str, Any] | None = None  # the tournament store keeps one when a game has it
    log_sha256: str | None = None  # of the log as written, as the runner's result carries it (the chain links it)


class Fakes:
    """The factory, game and check of a ladder of fake entrants, with what they saw (for assertions)."""

    def __init__(self, delay: float = 0.0) -> None:
        self.players: list[FakePlayer] = []
        self.delay = delay
        self.games = 0

    def factory(self, spec: Any, config: Any, stderr_path: Path) -> FakePlayer:
        t = traits(spec)
        at = {int(key[-1]): float(v) for key, v in t.items() if key[-1].isdigit()}
        think = float(t.get("THINK", 0))
        player = FakePlayer(spec.name, float(t.get("STRENGTH", 0)), float(t.get("FAULT", 0)), at, think)
        self.players.append(player)
        return player

    async def play(
        self, players: list[FakePlayer], *, game_id: str, ruleset: Any, seed: int, log_path: Path, wire_id: str = ""
    ) -> FakeResult:
        if self.delay:
            await trio.sleep(self.delay)
        else:
            await trio.lowlevel.checkpoint()
        for p in players:
            if p.think:
                await p.request(b"turn", None, 0.0)
        self.games += 1
        luck = random.Random(seed)
        cards_luck = [luck.gauss(0, 6) for _ in players]  # the deal's luck belongs to the seat's cards
        # a ladder game's id ends in its rotation; a tournament's (ladder final) does not: the luck stays by seat
        rotation = int(game_id.rsplit(".", 1)[1]) if "." in game_id else 0
        n = len(players)
        noise = random.Random(f"{seed}/{game_id}")
        forfeits, faults, scores = [], [], []
        for seat, p in enumerate(players):
            if seed in p.deals:
                raise AssertionError(f"a process of {p.name} was dealt deal {seed} twice")
            p.deals.append(seed)
            cards = cards_luck[(seat + rotation) % n]
            score = round(20 + cards - p.strength_at.get(n, p.strength) + noise.gauss(0, 3))
            if noise.random() < p.fault:
                forfeits.append(seat)
                faults.append(FakeFault(seat))
                score += 30
            scores.append(score)
        keys = [(s in forfeits, scores[s]) for s in range(n)]
        ranks = tuple(1 + sum(1 for o in keys if o < keys[s]) for s in range(n))
        deal = seeded_deal(seed, n, ruleset)
        with GameLogWriter(log_path) as log:  # a real header: verify-deals reads the deal from it
            log.header(LogHeader(game_id, tuple(p.name for p in players), ruleset, seed, deal, (None,) * n))
        return FakeResult(
            game_id,
            tuple(p.name for p in players),
            tuple(scores),
            ranks,
            tuple(forfeits),
            tuple(faults),
            log_path,
            seed,
            log_sha256=log.sha256,
        )

    async def check(self, spec: Any, options: Any) -> Any:
        await trio.lowlevel.checkpoint()
        return FakeReport(traits(spec).get("FAILGATE") != "True")


@dataclass(frozen=True)
class FakeReport:
    passed: bool

    @property
    def failed_names(self) -> tuple[str, ...]:
        return () if self.passed else ("fake_check",)

    def to_dict(self) -> dict[str, Any]:
        outcome = "passed" if self.passed else "failed"
        return {"passed": self.passed, "checks": [{"name": "fake_check", "outcome": outcome, "summary": "scripted"}]}


def serve_blocks(directory: Path, fakes: Fakes, blocks: int, seed: int | None = None) -> None:
    """Run ``serve`` on the ladder in ``directory`` with ``fakes`` until it holds ``blocks`` blocks, then stop it."""
    from referee.ladder.serve import ServeOptions, serve

    options = ServeOptions(
        announce=lambda line: None, poll=0.01, play=fakes.play, factory=fakes.factory, check=fakes.check,
        **({} if seed is None else {"seed": seed}),
    )  # fmt: skip

    async def run() -> None:
        async with trio.open_nursery() as nursery:
            ladder = await nursery.start(serve, directory, options)
            with trio.fail_after(60):
                while ladder.store.block_count() < blocks:
                    await trio.sleep(0.01)
            nursery.cancel_scope.cancel()

    trio.run(run)
