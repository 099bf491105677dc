"""An in-process game of known difference for comparisons: no processes, no engine, just seeded scores.

Every seat of a deal has a base score drawn from the deal's seed and the seat (so NEW and OLD, in the same seat
of the same deal, get the same base: the luck of the cards cancels out of their paired difference), plus noise
drawn from the game id; NEW's score is lowered by ``edge`` points (lower is better). The entrants in ``crash``
forfeit every game, with ``forfeit_cost`` points more (default ``FORFEIT_COST``; a negative cost is a forfeit whose
card penalty is lower than what the others score).
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import trio

from tests.tournament.fakes import FakeFault, FakeHello, FakePlayer, FakeResult


def ranks_of(scores: list[int], forfeited: set[int]) -> tuple[int, ...]:
    """Shared ranks by score, forfeiters below every other player (as RULES.md ranks them)."""
    keys = [(i in forfeited, s) for i, s in enumerate(scores)]
    return tuple(1 + sum(1 for other in keys if other < key) for key in keys)


FORFEIT_COST = 15


def known_difference(
    edge: float,
    noise: float = 3.0,
    base: float = 10.0,
    crash: frozenset[str] = frozenset(),
    forfeit_cost: float = FORFEIT_COST,
) -> Any:
    async def play(
        players: list[FakePlayer], *, game_id: str, ruleset: Any, seed: int, log_path: Path, wire_id: str = ""
    ) -> FakeResult:
        await trio.lowlevel.checkpoint()
        deal = random.Random(seed)
        bases = [deal.gauss(20, base) for _ in players]
        luck = random.Random(f"{seed}/{game_id}")
        scores, faults, forfeited = [], [], set()
        for seat, p in enumerate(players):
            p.games += 1
            p.deals.append(seed)
            p.hello = FakeHello(f"{p.name}-declared")
            score = bases[seat] + luck.gauss(0, noise) - (edge if p.name == "new" else 0)
            if p.name in crash:
                score += forfeit_cost
                forfeited.add(seat)
                faults.append(FakeFault(seat, "crash"))
            scores.append(round(score))
        log_path.write_text(game_id + "\n")
        names = tuple(p.name for p in players)
        ranks = ranks_of(scores, forfeited)
        return FakeResult(game_id, names, tuple(scores), ranks, tuple(sorted(forfeited)), tuple(faults), log_path, seed)

    return play
