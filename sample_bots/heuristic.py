"""heuristic: plans its discards, saves its bonus chips, and drops out when that is cheaper than playing on.

- Discards: the three cards whose loss leaves the best-shaped hand (pairs, triples and runs kept; isolated
  and high cards let go), see ``protocol.tactics.plan_discard``.
- Moves: each candidate is scored as its cost now plus a rough cost of playing the rest of the hand out
  (``protocol.tactics.finish_estimate``); a bonus chip counts for more than its end value, so chips are kept
  for the cards the table has left behind. Passing is scored the same way; dropping costs the cards in hand.
- When the hand can no longer be played out (cards below the table's value and too few chips), it sheds the
  cards it can play cheaply and drops instead of paying for passes.

Run: python sample_bots/heuristic.py
"""

from __future__ import annotations

import sys
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # found there when run from a checkout

from protocol.sdk import Bot, Game, Move, run
from protocol.tactics import finish_estimate, move_cost, others_playing, plan_discard, stalled
from referee.engine import DROP, PASS, Hand, Observation, Play

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
        rules = game.ruleset
        chips = obs.players[obs.seat].bonus
        hand = obs.hand
        options: list[tuple[float, Move]] = []
        for action in legal:
            if isinstance(action, Play):
                rest = list((Counter(hand) - Counter({action.value: action.count})).elements())
                now = move_cost(obs, action, rules) + CHIP_PREMIUM * action.bonus
                if not rest:
                    options.append((now, action))
                    continue
                after = finish_estimate(rest, max(obs.last, action.value), chips - action.bonus, rules)
                # A hand that cannot be played out will be dropped: it costs its cards.
                options.append((now + (after if after is not None else len(rest)), action))
        ahead = finish_estimate(hand, obs.last, chips, rules)
        if PASS in legal and not stalled(obs) and others_playing(obs):
            # Passing pays off only when the table may still move up to the hand's cards; once its own pass
            # changed nothing (stalled) or nobody else is left, it never does.
            options.append((1.0 + (ahead if ahead is not None else len(hand) + 1.0), PASS))
        options.append((float(len(hand)), DROP))
        return min(options, key=lambda o: o[0])[1]


if __name__ == "__main__":
    run(Heuristic())
