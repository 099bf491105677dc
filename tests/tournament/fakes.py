"""In-process stand-ins for the runner: players that are strategies, and a game function using the real engine.

They let the schedule/store/standings/executor machinery be tested without starting processes. Each is typed
against the protocol it stands for (``PlayerLike``, ``PlayerFactory``, ``GameResultLike``, ``FaultLike``) and mypy
checks this file (pyproject.toml), so a fake cannot drift from what it stands for.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from referee.contest.pool import PlayerFactory
from referee.engine import Discard, Phase, Ruleset, apply, discard_options, forfeit, legal_actions, new_game

if TYPE_CHECKING:
    from referee.contest.pool import PlayerLike
    from referee.tournament.store import FaultLike, GameResultLike


@dataclass
class FakeHello:
    name: str
    version: str | None = None


@dataclass
class FakePlayer:
    """A 'bot' choosing the first (``first``) or last legal action; counts its games and whether it was closed."""

    name: str
    first: bool
    games: int = 0
    closed: bool = False
    hello: FakeHello | None = None
    log: list[str] = field(default_factory=list)
    deals: list[int] = field(default_factory=list)  # the deal seeds this 'process' played

    async def aclose(self) -> None:
        self.closed = True


@dataclass(frozen=True)
class FakeResult:
    game_id: str
    names: tuple[str, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    forfeits: tuple[int, ...]
    faults: tuple[Any, ...]
    log_path: Path | None
    seed: int
    replay: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class FakeFault:
    seat: int
    kind: str
    round: int = 1
    turn: int = 1
    detail: str = "scripted"
    line: str | None = None


def make_factory(created: list[FakePlayer]) -> PlayerFactory:
    def factory(spec: Any, config: Any, stderr_path: Path) -> FakePlayer:
        p = FakePlayer(spec.name, first=not spec.name.startswith("z"))
        created.append(p)
        return p

    return factory


async def fake_play(
    players: list[FakePlayer], *, game_id: str, ruleset: Ruleset, seed: int, log_path: Path, wire_id: str = ""
) -> FakeResult:
    """A real engine game where each player picks its first or last legal action; 'crash*' entrants forfeit."""
    n = len(players)
    state = new_game(n, ruleset, seed=seed)
    faults = []
    for seat, p in enumerate(players):
        p.games += 1
        p.deals.append(seed)
        p.hello = FakeHello(f"{p.name}-declared")
        if p.name.startswith("crash"):
            state = forfeit(state, seat)
            faults.append(FakeFault(seat, "crash"))
    while state.phase is not Phase.OVER:
        if state.phase is Phase.DISCARD:
            for seat in range(n):
                if state.discards[seat] is None:
                    options = discard_options(state.hands[seat], ruleset.discard)
                    state = apply(state, Discard(seat, options[0] if players[seat].first else options[-1]))
        else:
            acts = legal_actions(state)
            state = apply(state, acts[0] if players[state.to_move].first else acts[-1])
        await trio.lowlevel.checkpoint()
    log_path.write_text(game_id + "\n")
    assert state.scores is not None and state.ranks is not None
    forfeits = tuple(i for i, f in enumerate(state.forfeited) if f)
    return FakeResult(
        game_id, tuple(p.name for p in players), state.scores, state.ranks, forfeits, tuple(faults), log_path, seed
    )


if TYPE_CHECKING:  # what mypy holds each fake to
    _player: PlayerLike = FakePlayer("a", first=True)
    _result: GameResultLike = FakeResult("g", (), (), (), (), (), None, 0)
    _fault: FaultLike = FakeFault(0, "crash")
