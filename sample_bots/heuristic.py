"""heuristic: plans its discards, saves its bonus chips, and drops out when that is cheaper than playing on.

- Discards: the three cards whose loss leaves the best-shaped hand (pairs, triples and runs kept; isolated
  and high cards let go), see ``protocol.tactics.plan_discard``.
- Moves (``protocol.tactics.rank_moves``): each play is scored as its cost now plus a rough cost of playing
  the rest of the hand out (``protocol.tactics.finish_estimate``); a bonus chip counts for more than its end
  value, so chips are kept for the cards the table has left behind. Passing costs a chip plus the same
  estimate, and is not an option once the table has stopped moving (its own last pass changed nothing, or
  nobody else is playing). Dropping costs the cards in hand.
- So when the hand can no longer be played out (cards below the table's value and too few chips), it plays
  what is cheap and drops rather than pay for passes.

Run: python sample_bots/heuristic.py
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

sys.path.append(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))  # found there when run from a checkout

from protocol.sdk import Bot, Game, Move, run
from protocol.tactics import plan_discard, rank_moves
from referee.engine import Hand, Observation

#: A bonus chip is worth ``bonus_refund`` at the end; kept in hand it is worth this much more.
CHIP_PREMIUM = 1.5


class Heuristic(Bot):
    name = "heuristic"

    def discard(self, hand: Hand, n: int, game: Game) -> Sequence[int]:
        return plan_discard(hand, n)

    def move(self, obs: Observation, game: Game) -> Move:
        legal = game.legal_moves(obs)
        if obs.last is None:
            return legal[0]  # the opening 1
        return rank_moves(obs, legal, game.ruleset, CHIP_PREMIUM)[0][1]


if __name__ == "__main__":
    from protocol.noise import with_noise  # the SDK's strength knob: --noise P

    run(with_noise(Heuristic()))
