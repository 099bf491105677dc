"""Small facts about moves that most bots want: what a move costs now, and whether the table is stalled.

Costs are in points of the final score (lower is better): penalty chips taken (net of the finishing refund),
plus the end-of-game value of every bonus chip spent (``ruleset.bonus_refund`` each).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from itertools import pairwise

from referee.engine import Drop, Observation, Pass, PassEvent, Play, PlayEvent, Ruleset, discard_options


def play_penalty(value: int, bonus: int, last: int | None, step: int) -> int:
    """Penalty chips a play of ``value`` on ``last`` spending ``bonus`` chips takes (before any refund)."""
    if last is None:
        return 0
    return max(0, value - (last + step * bonus) - 1)


def move_cost(obs: Observation, action: Play | Pass | Drop, ruleset: Ruleset) -> int:
    """What ``action`` costs ``obs.seat`` now, in score points (a finishing play may cost less than 0)."""
    if isinstance(action, Play):
        cost = play_penalty(action.value, action.bonus, obs.last, ruleset.bonus_step)
        cost += ruleset.bonus_refund * action.bonus
        if action.count == len(obs.hand):
            cost -= ruleset.finish_refund
        return cost
    if isinstance(action, Pass):
        return 2 if action.force else 1
    return len(obs.hand)


def others_playing(obs: Observation) -> bool:
    """True when another seat is still playing this round (so the table's value may still move)."""
    return any(p.status == "playing" for s, p in enumerate(obs.players) if s != obs.seat)


def stalled(obs: Observation) -> bool:
    """True when this seat's previous action this round was a pass and nobody has played since.

    Then passing again only waits for a table that is not moving: every pass costs a chip and changes nothing.
    """
    for event in reversed(obs.history):
        if isinstance(event, PlayEvent) and not event.forfeit:
            return False
        if isinstance(event, PassEvent) and event.seat == obs.seat:
            return True
    return False


def hand_shape(hand: Sequence[int]) -> float:
    """How awkward a hand is to play out (lower is better): a turn per distinct value, plus the gaps between
    successive values (each skipped value is a penalty chip unless other players' plays close it)."""
    values = sorted({c for c in hand if c != 1})
    if not values:
        return 0.0
    gaps = sum(b - a - 1 for a, b in pairwise(values))
    return len(values) + 0.3 * gaps + 0.15 * values[-1]


def rank_discards(hand: Sequence[int], n: int) -> list[tuple[float, tuple[int, ...]]]:
    """Every discard of ``n`` cards (never the 1) with the ``hand_shape`` of the hand it leaves, best first
    (ties: the discard of higher cards first)."""
    counts = Counter(hand)
    ranked = []
    for cards in discard_options(tuple(sorted(hand)), n):
        rest = counts - Counter(cards)
        ranked.append((hand_shape(list(rest.elements())), cards))
    ranked.sort(key=lambda sc: (sc[0], [-c for c in sc[1]]))
    return ranked


def plan_discard(hand: Sequence[int], n: int) -> tuple[int, ...]:
    """The discard of ``n`` cards that leaves the best-shaped hand (``hand_shape``): it keeps pairs, triples
    and runs, and lets go of isolated and high cards. Never the 1."""
    ranked = rank_discards(hand, n)
    return ranked[0][1] if ranked else ()


def finish_estimate(hand: Sequence[int], last: int | None, chips: int, ruleset: Ruleset) -> float | None:
    """A rough cost (score points) of playing ``hand`` out from ``last`` holding ``chips`` bonus chips, the
    finishing refund included; ``None`` when cards below ``last`` need more chips than are held.

    Skipped values count half (other players' plays close some gaps); each play after the first counts a
    little for the turns spent waiting; a card below ``last`` costs the chips that lift it.
    """
    return finish_cost(sorted(set(hand)), 0 if last is None else last, chips, ruleset)


def finish_cost(values: Sequence[int], start: int, chips: int, ruleset: Ruleset) -> float | None:
    """``finish_estimate`` of a hand given by its distinct ``values`` in increasing order, from the table's value
    ``start`` (0 before the 1): the same cost, without building the set (for playouts that call it often)."""
    cost = 0.0
    current = start
    step = ruleset.bonus_step
    for v in values:
        if v >= start:
            gap = v - current - 1
            cost += (0.5 * gap if gap > 0 else 0.0) + 0.6
            current = v
            continue
        need = -(-(start - v) // step)
        if need > chips:
            return None
        chips -= need
        cost += need * ruleset.bonus_refund + 0.6
    return cost - 0.6 - ruleset.finish_refund


def estimate_play(obs: Observation, play: Play, ruleset: Ruleset, chip_premium: float = 1.5) -> float:
    """A play's cost now plus a rough cost of playing the rest of the hand out afterwards (a hand that can no
    longer be played out counts as dropped: a point per card). Each bonus chip spent costs ``chip_premium``
    on top of its end value: chips kept rescue cards the table has left behind."""
    now = move_cost(obs, play, ruleset) + chip_premium * play.bonus
    rest = list((Counter(obs.hand) - Counter({play.value: play.count})).elements())
    if not rest:
        return now
    last = play.value if obs.last is None else max(obs.last, play.value)
    after = finish_estimate(rest, last, obs.players[obs.seat].bonus - play.bonus, ruleset)
    return now + (after if after is not None else len(rest))


def rank_moves(
    obs: Observation,
    legal: Sequence[Play | Pass | Drop],
    ruleset: Ruleset,
    chip_premium: float = 1.5,
    drop_bias: float = 0.0,
) -> list[tuple[float, Play | Pass | Drop]]:
    """Every legal move with its estimated cost (``estimate_play`` for plays), cheapest first.

    A pass costs 1 plus the estimate of playing the hand out from where the table stands, and is listed only
    while the table can still move (another seat is playing and this seat's last pass was not ``stalled``);
    pass-and-force is not listed. A drop costs the cards in hand, plus ``drop_bias`` (above 0: drop later).
    """
    out: list[tuple[float, Play | Pass | Drop]] = []
    for action in legal:
        if isinstance(action, Play):
            out.append((estimate_play(obs, action, ruleset, chip_premium), action))
        elif isinstance(action, Drop):
            out.append((len(obs.hand) + drop_bias, action))
        elif not action.force and not stalled(obs) and others_playing(obs):
            ahead = finish_estimate(obs.hand, obs.last, obs.players[obs.seat].bonus, ruleset)
            out.append((1.0 + (ahead if ahead is not None else len(obs.hand) + 1.0), action))
    out.sort(key=lambda sm: sm[0])
    return out
