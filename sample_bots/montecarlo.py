"""montecarlo: samples the hidden hands and simulates with the engine, within its move time.

On each turn it shortlists candidate moves: its favourite by the heuristic estimates (``protocol.tactics.rank_moves``,
with its own constants at two seats: chips valued nearer their end value, drops later), the next best plays,
pass, pass-and-force and drop. Then, until its thinking time is up, it deals the cards it has not seen at random
to the other seats, consistently with everything it has seen (``Game.sample_state``), and plays every candidate
on that same deal with the engine (``referee.engine.apply``), followed by a quick playout of the rest of the
round in which every seat follows a brief version of the heuristic, except the seats it has seen playing
erratically (wasting bonus chips, or paying more penalty than dropping out would cost: ``erratic_seats``), which
play at random there; it remembers such players by name for its later games. A candidate replaces
the favourite only when its average result over the sampled deals is better by more than ``CONFIDENCE`` standard
errors (paired on the same deals). Discards work the same way: the best-shaped discards, each simulated on random
deals of the other hands.

Its result is its own score at the end of the round: penalty chips less the end value of its bonus chips, and
``CARRY_PREMIUM`` more per chip when a later round can still use it (``RIVALRY`` can weigh the other seats'
results against it). It thinks for at most half of ``time.move_ms`` from ``game_start`` and
always leaves a safety margin (``MARGIN_MS``, ``MARGIN_SHARE``) before the deadline; the environment variable
``MONTECARLO_THINK_MS`` caps its thinking further (for quick games). Run: python sample_bots/montecarlo.py
"""

from __future__ import annotations

import math
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from typing import NamedTuple

sys.path.append(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))  # found there when run from a checkout

from protocol.sdk import Bot, Game, Move, run
from protocol.tactics import finish_cost, finish_estimate, rank_discards, rank_moves
from referee.engine import (
    DECK,
    DROP,
    OPENING,
    PASS,
    Discard,
    Drop,
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
    legal_actions,
    new_game,
    unseen_cards,
)

PLAYING = Status.PLAYING

#: Share of the move time spent thinking; the time always left before the deadline is the larger of
#: ``MARGIN_MS`` and ``MARGIN_SHARE`` of the move time.
THINK_SHARE = 0.5
MARGIN_MS = 100
MARGIN_SHARE = 0.3
#: Candidate plays simulated, the most promising by the heuristic estimate (pass and drop are always kept).
MAX_PLAYS = 3
#: A bonus chip kept is worth this much more than its end value (chips rescue cards the table left behind), in
#: the playouts' model of every seat (as the heuristic bot values them).
CHIP_PREMIUM = 1.5
#: Its own estimates (the favourite and the shortlist) by table size: (chip premium, drop bias). At two seats it
#: values chips nearer their end value and drops later than the heuristic bot; these constants were chosen by
#: simulated games of variants against the heuristic bot (at 3 and 4 seats no variant did clearly better).
SHORTLIST_CONSTANTS = {2: (0.5, 1.0)}
#: An optional cap on the thinking time per move, in ms, from the environment (quick test games).
THINK_CAP_S = float(os.environ.get("MONTECARLO_THINK_MS", "inf")) / 1000
#: A bonus chip still held when a round other than the last ends is worth this much more than its end value
#: (the next round can spend it). With full playouts, 1.0 did a little better than 0 (0.25 +- 0.18 points a
#: game at 4 seats; not measurably different at 2).
CARRY_PREMIUM = 1.0
#: How much the others' results count against this bot's own (0: only its own score matters).
RIVALRY = 0.0
#: Playouts stop after this many turns per seat and estimate the rest (see ``playout``); ``None``: they play
#: the round out. Played out, the evaluation is the round's real result, and it decided better than estimates
#: after 4 turns a seat (4 seats against the heuristic bot: 0.45 +- 0.21 points a game better).
PLAYOUT_TURNS: int | None = None
#: How many values from the table's value up the playout policy considers.
PLAYOUT_VALUES = 3
#: Discards simulated, the best-shaped first (``protocol.tactics.rank_discards``).
DISCARD_OPTIONS = 4
#: How many standard errors a candidate must beat the heuristic's favourite by to be chosen instead.
CONFIDENCE = 1.0
#: Enough sampled deals for a decision; stops early when reached.
MAX_WORLDS = 200


class MonteCarlo(Bot):
    name = "montecarlo"

    def __init__(self) -> None:
        #: Names of the players seen playing erratically (``erratic_seats``) in this or an earlier game.
        self.erratic_names: set[str] = set()

    def erratic(self, game: Game, obs: Observation | None = None) -> frozenset[int]:
        """The other seats to model as playing at random: those whose plays this round were erratic, and those
        whose player was seen to play so before (by name, for as long as this process plays on)."""
        own = game.names[game.seat]
        if obs is not None:
            seen = erratic_seats(obs, game.ruleset)
            self.erratic_names |= {game.names[s] for s in seen if game.names[s] != own}
        names = self.erratic_names
        return frozenset(s for s, name in enumerate(game.names) if s != game.seat and name in names and name != own)

    def discard(self, hand: Hand, n: int, game: Game) -> Sequence[int]:
        ranked = rank_discards(hand, n)
        candidates = [cards for _, cards in ranked[:DISCARD_OPTIONS]]
        if len(candidates) <= 1:
            return candidates[0] if candidates else ()
        stop = think_until(game)
        chip_value = chips_worth(game)
        rules = replace(game.ruleset, rounds=1)  # simulate this round only
        seat = game.seat

        model = Model(self.erratic(game), game.rng)

        def one_deal() -> list[float] | None:
            world = deal_world(hand, n, game, rules, model.erratic)
            starts = (apply(world, Discard(seat, cards)) for cards in candidates)
            return play_all(starts, seat, rules, 0, chip_value, stop, model)

        return candidates[compare(len(candidates), one_deal, stop)]

    def move(self, obs: Observation, game: Game) -> Move:
        erratic = self.erratic(game, obs)
        legal = game.legal_moves(obs)
        if len(legal) == 1:
            return legal[0]
        candidates = shortlist(obs, legal, game.ruleset)
        if len(candidates) == 1:
            return candidates[0]
        stop = think_until(game)
        chip_value = chips_worth(game)
        model = Model(erratic, game.rng)

        def one_deal() -> list[float] | None:
            world = infer_world(obs, game, model.erratic)
            starts = (apply(world, action) for action in candidates)
            return play_all(starts, obs.seat, game.ruleset, len(world.rounds_done), chip_value, stop, model)

        return candidates[compare(len(candidates), one_deal, stop)]


class Model(NamedTuple):
    """How the playouts play the other seats: ``erratic`` seats (see ``erratic_seats``) pick uniformly among
    their legal actions with ``rng``; every other seat follows ``playout_action``."""

    erratic: frozenset[int]
    rng: random.Random


def erratic_seats(obs: Observation, rules: Ruleset) -> set[int]:
    """The other seats whose plays this round no cost-minded player makes: spending a bonus chip that changes
    nothing (one chip less would still reach the table's value with no penalty), or taking more penalty chips
    than dropping out would have cost (one per card held) even if the hand is then finished (with its refund).
    The playouts model such a seat as playing at random (a model of a careful player would expect it to keep
    the table low and to pass and drop sensibly, and would misjudge every line of play against it)."""
    out: set[int] = set()
    held = [rules.hand_size - rules.discard] * len(obs.players)
    last: int | None = None
    for event in obs.history:
        if not isinstance(event, PlayEvent):
            continue
        if last is not None and event.seat != obs.seat and not event.forfeit:
            fewer = last + rules.bonus_step * (event.bonus - 1)  # the reach of one chip less
            wasted = event.bonus > 0 and last - rules.bonus_step * (event.bonus - 1) <= event.value <= fewer + 1
            if wasted or event.penalty > held[event.seat] + rules.finish_refund:
                out.add(event.seat)
        held[event.seat] -= event.count
        last = event.value
    return out


def infer_world(obs: Observation, game: Game, erratic: frozenset[int] = frozenset()) -> State:
    """A sampled state (``Game.sample_state``) whose other hands also respect what their passes revealed: a seat
    that passed on ``last`` had no card of ``last`` or ``last + 1`` (a free play), unless it played such a card
    later. Passes of ``erratic`` seats reveal nothing. Falls back to the plain sample when the cards cannot be
    dealt that way."""
    state = game.sample_state(obs)
    lacks: dict[int, set[int]] = {}
    for i, event in enumerate(obs.history):
        if isinstance(event, PassEvent) and event.seat != obs.seat and event.seat not in erratic:
            last = _last_before(obs, i)
            if last is not None:
                later = {e.value for e in obs.history[i:] if isinstance(e, PlayEvent) and e.seat == event.seat}
                lacks.setdefault(event.seat, set()).update({last, last + 1} - later)
    if not lacks:
        return state
    pool = unseen_cards(obs, game.discards)
    if 1 in pool:
        return state  # the 1 is still to come: leave the plain sample
    game.rng.shuffle(pool)
    hands = list(state.hands)
    seats = [s for s in range(len(hands)) if s != obs.seat]
    game.rng.shuffle(seats)
    for s in sorted(seats, key=lambda s: -len(lacks.get(s, ()))):
        banned = lacks.get(s, set())
        need = len(hands[s])
        take = [c for c in pool if c not in banned][:need]
        if len(take) < need:
            return state
        for c in take:
            pool.remove(c)
        hands[s] = tuple(sorted(take))
    return state._replace(hands=tuple(hands))


def _last_before(obs: Observation, index: int) -> int | None:
    """The table's value when ``obs.history[index]`` happened."""
    for event in reversed(obs.history[:index]):
        if isinstance(event, PlayEvent):
            return event.value
    return None


def chips_worth(game: Game) -> float:
    """What a bonus chip held at the end of the current round is worth to the evaluation: its end value, plus
    ``CARRY_PREMIUM`` when a later round can still use it."""
    return game.ruleset.bonus_refund + (CARRY_PREMIUM if game.round < game.ruleset.rounds else 0.0)


def think_until(game: Game) -> float:
    """The ``time.monotonic()`` instant to stop thinking about the current reply."""
    move_s = game.move_ms / 1000
    start = game.deadline - move_s
    return start + min(THINK_SHARE * move_s, move_s - max(MARGIN_MS / 1000, MARGIN_SHARE * move_s), THINK_CAP_S)


def deal_world(hand: Hand, n: int, game: Game, rules: Ruleset, erratic: frozenset[int] = frozenset()) -> State:
    """A state at the start of this round with the other hands dealt at random from the cards not in ``hand``,
    the other seats' discards made (their highest cards; random ones for ``erratic`` seats), the chips as they
    stand, and this seat to discard."""
    pool = list((Counter(DECK) - Counter(hand)).elements())
    one_elsewhere = 1 not in hand
    if one_elsewhere:
        pool.remove(1)
    game.rng.shuffle(pool)
    others = [s for s in range(game.players) if s != game.seat]
    holder = game.rng.choice(others) if one_elsewhere else -1
    hands: list[Hand] = []
    k = 0
    for s in range(game.players):
        if s == game.seat:
            hands.append(tuple(hand))
            continue
        size = len(hand) - (1 if s == holder else 0)
        cards = pool[k : k + size] + ([1] if s == holder else [])
        k += size
        hands.append(tuple(sorted(cards)))
    state = new_game(game.players, rules, deal=(tuple(hands),))
    if game.round_ends:
        table = game.round_ends[-1].players
        state = state._replace(penalty=tuple(p.penalty for p in table), bonus=tuple(p.bonus for p in table))
    for s in others:
        rest = [c for c in hands[s] if c != 1]
        cards = game.rng.sample(rest, n) if s in erratic else rest[len(rest) - n :]
        state = apply(state, Discard(s, tuple(sorted(cards)) if n else ()))
    return state


def compare(k: int, one_deal: Callable[[], list[float] | None], stop: float) -> int:
    """Paired comparison of ``k`` candidates against the heuristic's favourite (candidate 0) on the same sampled
    deals, until ``MAX_WORLDS`` deals or ``stop``. ``one_deal`` samples a deal and returns every candidate's
    playout result on it, or None when time ran out mid-deal (that deal is left out, to keep the comparison
    fair). Returns the index ``pick`` chooses."""
    diff_sum = [0.0] * k
    diff_sq = [0.0] * k
    worlds = 0
    while worlds < MAX_WORLDS and time.monotonic() < stop:
        results = one_deal()
        if results is None:
            break
        for i in range(1, k):
            d = results[i] - results[0]
            diff_sum[i] += d
            diff_sq[i] += d * d
        worlds += 1
    return pick(diff_sum, diff_sq, worlds)


def play_all(
    starts: Iterable[State], seat: int, rules: Ruleset, rounds: int, chip_value: float, stop: float, model: Model
) -> list[float] | None:
    """``playout`` from each start in turn; None as soon as one runs out of time."""
    results = []
    for start in starts:
        result = playout(start, seat, rules, rounds, chip_value, stop, model)
        if result is None:
            return None
        results.append(result)
    return results


def pick(diff_sum: list[float], diff_sq: list[float], worlds: int) -> int:
    """The candidate whose advantage over candidate 0 is largest and clear: its mean difference is below zero
    by more than ``CONFIDENCE`` standard errors. Candidate 0 when none is."""
    if worlds < 2:
        return 0
    best, best_bound = 0, 0.0
    for i in range(1, len(diff_sum)):
        mean = diff_sum[i] / worlds
        var = max(0.0, diff_sq[i] / worlds - mean * mean)
        bound = mean + CONFIDENCE * math.sqrt(var / (worlds - 1))
        if bound < best_bound:
            best, best_bound = i, bound
    return best


def shortlist(obs: Observation, legal: list[Move], rules: Ruleset) -> list[Move]:
    """The candidates worth simulating, the heuristic's favourite first: the ``MAX_PLAYS`` best plays by the
    heuristic estimate (for each value and count only its best bonus), then pass and drop when legal."""
    premium, drop_bias = SHORTLIST_CONSTANTS.get(len(obs.players), (CHIP_PREMIUM, 0.0))
    ranked = rank_moves(obs, legal, rules, premium, drop_bias)
    out: list[Move] = [ranked[0][1]]
    seen = {(m.value, m.count) if isinstance(m, Play) else m for m in out}
    plays = 1 if isinstance(out[0], Play) else 0
    for _, move in ranked[1:]:
        key = (move.value, move.count) if isinstance(move, Play) else move
        if key in seen or (isinstance(move, Play) and plays >= MAX_PLAYS):
            continue
        seen.add(key)
        plays += isinstance(move, Play)
        out.append(move)
    out += [a for a in legal if isinstance(a, Drop | Pass) and a not in out]
    return out


def playout(
    state: State, seat: int, rules: Ruleset, rounds: int, chip_value: float, stop: float, model: Model
) -> float | None:
    """Play every seat by ``model`` (``playout_action``, or at random for its erratic seats) to the end of the
    round (the ``rounds``-th finished one, counting from 0), or for ``PLAYOUT_TURNS`` turns per seat when set.
    ``seat``'s result: penalty chips less ``chip_value`` per bonus chip held, plus, when it is still playing
    after ``PLAYOUT_TURNS``, the cheaper of dropping and the heuristic estimate of playing its hand out.
    ``None`` when the clock reaches ``stop`` first."""
    turns = 0
    limit = -1 if PLAYOUT_TURNS is None else PLAYOUT_TURNS * state.players
    while state.phase is Phase.PLAY and len(state.rounds_done) == rounds:
        if turns == limit:
            if not RIVALRY:
                return _leaf_value(state, seat, rules, chip_value)
            return _relative([_leaf_value(state, s, rules, chip_value) for s in range(state.players)], seat)
        if state.to_move in model.erratic and state.last is not None:
            state = apply(state, model.rng.choice(legal_actions(state)))
        else:
            state = apply(state, playout_action(state, rules))
        turns += 1
        if turns % 8 == 0 and time.monotonic() >= stop:
            return None
    table = state.rounds_done[rounds].players
    return _relative([p.penalty - chip_value * p.bonus for p in table], seat)


def _leaf_value(state: State, seat: int, rules: Ruleset, chip_value: float) -> float:
    value = state.penalty[seat] - chip_value * state.bonus[seat]
    if state.status[seat] is not Status.PLAYING:
        return value
    hand = state.hands[seat]
    ahead = finish_estimate(hand, state.last, state.bonus[seat], rules)
    return value + (len(hand) if ahead is None else min(ahead, len(hand)))


def _relative(values: list[float], seat: int) -> float:
    """``seat``'s value less ``RIVALRY`` times the average of the others' (lower is better)."""
    others = [v for s, v in enumerate(values) if s != seat]
    return values[seat] - RIVALRY * sum(others) / len(others)


def playout_action(state: State, rules: Ruleset) -> Play | Pass:
    """The playout policy, the heuristic bot's reasoning in brief: a value played whole at the least bonus
    (the highest value the table has passed, and the ``PLAYOUT_VALUES`` lowest values from the table's up),
    scored as its cost now plus a rough cost of playing the rest out (``protocol.tactics.finish_cost``);
    passing scored the same way while the table can still move; dropping costs the cards in hand."""
    seat = state.to_move
    last = state.last
    if last is None:
        return OPENING
    hand = state.hands[seat]
    chips = state.bonus[seat]
    step = rules.bonus_step
    chip_cost = rules.bonus_refund + CHIP_PREMIUM
    best: Play | Pass = DROP  # type: ignore[assignment]
    n = len(hand)
    best_cost = float(n)
    # The hand's distinct values and how many of each (hands are sorted).
    values: list[int] = []
    counts: list[int] = []
    for c in hand:
        if values and values[-1] == c:
            counts[-1] += 1
        else:
            values.append(c)
            counts.append(1)
    m = len(values)
    k = 0
    above = 0
    while k < m and above < PLAYOUT_VALUES:
        v = values[k]
        b = 0 if v >= last else -(-(last - v) // step)
        above += v >= last
        if b <= chips and (b == 0 or k + 1 == m or values[k + 1] >= last):
            cost = max(0, v - last - step * b - 1) + chip_cost * b
            if counts[k] == n:
                cost -= rules.finish_refund
            else:
                after = finish_cost(values[:k] + values[k + 1 :], max(last, v), chips - b, rules)
                cost += after if after is not None else n - counts[k]
            if cost < best_cost:
                best, best_cost = Play(v, counts[k], b), cost
        k += 1
    if not state.forced and state.status.count(PLAYING) > 1 and not _stalled(state, seat):
        ahead = finish_cost(values, last, chips, rules)
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


if __name__ == "__main__":
    from protocol.noise import with_noise  # the SDK's strength knob: --noise P

    run(with_noise(MonteCarlo()))
