"""montecarlo: samples the hidden hands and simulates the rest of the round with the engine, within its move time.

For each turn it keeps a handful of sensible candidate moves, then repeatedly deals the unseen cards at random
to the other seats consistently with everything it has seen (``Game.sample_state``), and plays each candidate
followed by a fast greedy playout of every seat to the end of the round (``referee.engine.apply``). The
same sampled deal serves every candidate, so they are compared on equal terms. It picks the candidate with
the best average of its own result (penalty chips less the value of its bonus chips) against the table's.

It thinks for at most half of ``time.move_ms`` from ``game_start`` and always leaves a safety margin
(``MARGIN_MS``) before the deadline. Discards are planned like the heuristic bot's. Run:
python sample_bots/montecarlo.py
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.append(str(Path(__file__).resolve().parents[1]))  # found there when run from a checkout

from protocol.sdk import Bot, Game, Move, run
from protocol.tactics import finish_estimate, move_cost, plan_discard
from referee.engine import (
    DROP,
    OPENING,
    PASS,
    Hand,
    Observation,
    Pass,
    PassEvent,
    Phase,
    Play,
    PlayEvent,
    Ruleset,
    State,
    Status,
    apply,
)

#: Share of the move time spent thinking, and the least time always left before the deadline.
THINK_SHARE = 0.5
MARGIN_MS = 150
#: Candidate plays kept after ranking by their cost now (pass, pass-and-force and drop are always kept).
MAX_PLAYS = 6
#: A bonus chip kept is worth this much more than its end value (chips rescue cards the table left behind).
CHIP_PREMIUM = 1.5
#: Enough sampled deals for a decision; stops early when reached.
MAX_WORLDS = 200


class MonteCarlo(Bot):
    name = "montecarlo"

    def discard(self, hand: Hand, n: int, game: Game) -> Sequence[int]:
        return plan_discard(hand, n)

    def move(self, obs: Observation, game: Game) -> Move:
        legal = game.legal_moves(obs)
        if len(legal) == 1:
            return legal[0]
        candidates = shortlist(obs, legal, game.ruleset)
        if len(candidates) == 1:
            return candidates[0]
        move_s = game.move_ms / 1000
        start = game.deadline - move_s
        stop = min(start + THINK_SHARE * move_s, game.deadline - MARGIN_MS / 1000)
        totals = [0.0] * len(candidates)
        worlds = 0
        while worlds < MAX_WORLDS and time.monotonic() < stop:
            world = game.sample_state(obs)
            results = []
            for action in candidates:
                if time.monotonic() >= stop:
                    break
                results.append(playout(apply(world, action), obs.seat, game.ruleset, len(world.rounds_done)))
            if len(results) < len(candidates):
                break  # out of time mid-deal: keep the comparison fair, drop the partial deal
            for i, r in enumerate(results):
                totals[i] += r
            worlds += 1
        if worlds == 0:
            return candidates[0]
        best = min(range(len(candidates)), key=lambda i: totals[i])
        return candidates[best]


def shortlist(obs: Observation, legal: list[Move], rules: Ruleset) -> list[Move]:
    """The candidates worth simulating: the cheapest plays now (for each value and count, only the bonus that
    costs least), then pass, pass-and-force and drop when legal."""
    cheapest: dict[tuple[int, int], tuple[int, Play]] = {}
    for action in legal:
        if isinstance(action, Play):
            cost = move_cost(obs, action, rules)
            key = (action.value, action.count)
            if key not in cheapest or cost < cheapest[key][0]:
                cheapest[key] = (cost, action)
    plays = sorted(cheapest.values(), key=lambda cp: (cp[0], -cp[1].count, cp[1].value))
    out: list[Move] = [p for _, p in plays[:MAX_PLAYS]]
    out += [a for a in legal if not isinstance(a, Play)]
    return out


def playout(state: State, seat: int, rules: Ruleset, rounds: int) -> float:
    """Play every seat by ``playout_action`` to the end of the round (the ``rounds``-th finished one, counting from 0);
    ``seat``'s result less the table's average."""
    while state.phase is Phase.PLAY and len(state.rounds_done) == rounds:
        state = apply(state, playout_action(state, rules))
    table = state.rounds_done[rounds].players
    values = [p.penalty - rules.bonus_refund * p.bonus for p in table]
    others = [v for s, v in enumerate(values) if s != seat]
    return values[seat] - sum(others) / len(others)


def playout_action(state: State, rules: Ruleset) -> Play | Pass:
    """The playout policy, the heuristic bot's reasoning in brief: each value played whole at the least bonus,
    scored as its cost now plus a rough cost of playing the rest out; passing scored the same way while the
    table can still move; dropping costs the cards in hand."""
    seat = state.to_move
    last = state.last
    if last is None:
        return OPENING
    hand = state.hands[seat]
    chips = state.bonus[seat]
    step = rules.bonus_step
    chip_cost = rules.bonus_refund + CHIP_PREMIUM
    best: Play | Pass = DROP  # type: ignore[assignment]
    best_cost = float(len(hand))
    i = 0
    n = len(hand)
    while i < n:
        v = hand[i]
        j = i + 1
        while j < n and hand[j] == v:
            j += 1
        b = 0 if v >= last else -(-(last - v) // step)
        if b <= chips:
            cost = max(0, v - last - step * b - 1) + chip_cost * b
            if j - i == n:
                cost -= rules.finish_refund
            else:
                after = finish_estimate(hand[:i] + hand[j:], max(last, v), chips - b, rules)
                cost += after if after is not None else n - (j - i)
            if cost < best_cost:
                best, best_cost = Play(v, j - i, b), cost
        i = j
    if not state.forced and not _stalled(state, seat) and _others_playing(state, seat):
        ahead = finish_estimate(hand, last, chips, rules)
        if 1.0 + (ahead if ahead is not None else n + 1.0) < best_cost:
            return PASS
    return best


def _stalled(state: State, seat: int) -> bool:
    for event in reversed(state.history):
        if isinstance(event, PlayEvent):
            return False
        if isinstance(event, PassEvent) and event.seat == seat:
            return True
    return False


def _others_playing(state: State, seat: int) -> bool:
    return any(st is Status.PLAYING for s, st in enumerate(state.status) if s != seat)


if __name__ == "__main__":
    run(MonteCarlo())
