"""greedy: the cheapest play now; passes when every play costs more than a pass.

A play's cost is the penalty chips it takes (less the refund when it empties the hand) plus the end value of
the bonus chips it spends; a pass costs 1. Forced, or when the table is stalled (its own last pass changed
nothing: nobody has played since), it plays its cheapest play or drops, whichever costs less. It discards its
highest cards. Run: python sample_bots/greedy.py
"""

from __future__ import annotations

import os
import sys

sys.path.append(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))  # found there when run from a checkout

from protocol.sdk import Bot, Game, Move, run
from protocol.tactics import move_cost, stalled
from referee.engine import DROP, PASS, Observation, Play


class Greedy(Bot):
    name = "greedy"

    def move(self, obs: Observation, game: Game) -> Move:
        legal = game.legal_moves(obs)
        plays = [a for a in legal if isinstance(a, Play)]
        if obs.last is None:
            return plays[0]  # the opening 1
        best = min(plays, key=lambda p: (move_cost(obs, p, game.ruleset), -p.count, p.value), default=None)
        cost = move_cost(obs, best, game.ruleset) if best is not None else None
        if not obs.forced and not stalled(obs) and (cost is None or cost > 1):
            return PASS
        if best is not None and cost is not None and cost < len(obs.hand):
            return best
        return DROP


if __name__ == "__main__":
    from protocol.noise import with_noise  # the SDK's strength knob: --noise P

    run(with_noise(Greedy()))
