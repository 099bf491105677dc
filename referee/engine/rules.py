"""The rules of 23: starting a game, legal actions, applying actions, forfeits, scores.

Pure functions over immutable ``State`` values. Nothing here does I/O, reads a clock or touches global
random state; a seeded deal comes from ``deck.seeded_deal``.
"""

from __future__ import annotations

from bisect import bisect_left
from itertools import groupby
from typing import Any

from referee.engine.actions import DROP, PASS, PASS_FORCE, Action, Discard, Drop, Pass, Play
from referee.engine.deck import COPIES, HIGHEST, Deal, Hand, seeded_deal, validate_deal
from referee.engine.discards import discard_options
from referee.engine.errors import DealError, IllegalMove
from referee.engine.events import DropEvent, Event, PassEvent, PlayEvent
from referee.engine.ruleset import MAX_PLAYERS, STANDARD, Ruleset
from referee.engine.state import Phase, RoundRecord, State, Status
from referee.memo import Memo, Policy, memoized

#: ``tuple.__new__``: makes a tuple subclass from its fields in order, skipping NamedTuple's Python-level __new__.
#: A State is made so only on the paths every game takes many times (a turn, a discard, a round's start and end),
#: each from one unpacking of the state into locals named as its fields and one tuple of those names in the same
#: order (tests/engine/test_state_fields.py holds both to ``State._fields``); everywhere else a State is built by
#: name (``State(...)``, ``_with``).
_tuple_new: Any = tuple.__new__

# Module constants: an enum member read from its class costs a lookup in the enum's own machinery each time.
PLAY_PHASE = Phase.PLAY
DISCARD_PHASE = Phase.DISCARD
OVER_PHASE = Phase.OVER
PLAYING = Status.PLAYING
FINISHED = Status.FINISHED
DROPPED = Status.DROPPED
OPENING = Play(1, 1, 0)


def new_game(players: int, ruleset: Ruleset = STANDARD, *, seed: int | None = None, deal: Deal | None = None) -> State:
    """Start a game of ``players`` players, dealt from ``seed`` or from an explicit ``deal``.

    Exactly one of ``seed`` and ``deal`` is given (``ValueError`` otherwise). Raises ``RulesetError`` for a
    ruleset that cannot be played by ``players`` and ``DealError`` for a deal that does not fit the deck or
    the ruleset. An explicit deal's hands may come in any order; the game holds them sorted.
    """
    if (seed is None) == (deal is None):
        raise ValueError("new_game needs exactly one of seed and deal")
    ruleset.validate(players)
    if deal is None:
        assert seed is not None
        deal = seeded_deal(seed, players, ruleset)
    else:
        validate_deal(deal, ruleset)
        if len(deal[0]) != players:
            raise DealError(f"the deal has {len(deal[0])} hands for a game of {players} players")
        # The engine relies on sorted tuples for hands; an explicit deal may come as unsorted lists.
        deal = tuple(tuple(tuple(sorted(hand)) for hand in hands) for hands in deal)
    n = players
    # _start_round sets the fields of the round (phase, round, hands, discards...).
    state = State(
        ruleset=ruleset,
        players=n,
        deal=deal,
        seed=seed,
        phase=DISCARD_PHASE,
        round=0,
        hands=(),
        discards=(),
        penalty=(0,) * n,
        bonus=(ruleset.start_bonus,) * n,
        status=(PLAYING,) * n,
        forfeited=(False,) * n,
        to_move=-1,
        last=None,
        forced=False,
        turns=0,
        history=(),
        rounds_done=(),
        scores=None,
        ranks=None,
    )
    return _settle(_start_round(state, 0, ()))


# --------------------------------------------------------------------------------------------- legal moves


def legal_actions(state: State) -> list[Action]:
    """Every legal action, in a fixed order.

    Discard phase: ``Discard`` actions of every seat still to discard, by seat, each seat's distinct
    multisets in lexicographic order. Play phase: the actions of ``state.to_move``: plays ordered by
    (value, count, bonus), then ``Pass()``, then ``Pass(force=True)``, then ``Drop()``. Over: none.
    """
    # On this path fields are read by position, which is twice as fast (a test holds each to the field named).
    if state[4] is PLAY_PHASE:  # phase
        seat = state[12]  # to_move
        status = state[10]  # status
        return turn_actions(
            state[6][seat],  # hands
            state[9][seat],  # bonus
            state[13],  # last
            state[14],  # forced
            status.count(PLAYING) > (status[seat] is PLAYING),  # _others_playing, without the call
            state[0].bonus_step,  # ruleset
        )
    if state.phase is DISCARD_PHASE:
        out: list[Action] = []
        for seat in range(state.players):
            if state.discards[seat] is None:
                out.extend(_discard_actions(seat, state.hands[seat], state.ruleset.discard))
        return out
    return []


def turn_actions(
    hand: Hand, chips: int, last: int | None, forced: bool, others_playing: bool, step: int
) -> list[Action]:
    """The legal turn actions of a player from public facts and their own hand (order as ``legal_actions``)."""
    if last is None:
        return [OPENING]
    out: list[Action] = []
    n = len(hand)
    lowest = last - step * chips  # a lower card needs more bonus chips than the player holds
    i = bisect_left(hand, lowest) if n and hand[0] < lowest else 0
    if i < n:
        try:
            row = _ROWS[last, chips, step]
        except KeyError:
            row = _row(last, chips, step)
        start = i
        try:
            if hand[i] < 1:
                raise IndexError  # not a card: row[v] would count from the end
            while i < n:
                v = hand[i]
                j = i + 1
                while j < n and hand[j] == v:
                    j += 1
                out += row[v][j - i]
                i = j
        except IndexError:  # not a hand of the deck (a value out of 1..23, more copies than it has)
            out = []
            for v, run in groupby(hand[start:]):
                out += _value_plays(v, len(list(run)), last, chips, step)
    if not forced:
        out.append(PASS)
        if others_playing:
            out.append(PASS_FORCE)
    out.append(DROP)
    return out


#: The plays open to a player, by (last, chips held, bonus step): ``row[value][copies]`` is every play of that
#: value by a player holding ``copies`` of it (up to the deck's copies), in (count, bonus) order. The Play values
#: are immutable, so turn_actions shares them instead of building new ones on every call.
_ROWS: Memo[tuple[int, int, int], list[tuple[tuple[Play, ...], ...]]] = Memo("engine.rules.ROWS", 4096)


def _row(last: int, chips: int, step: int) -> list[tuple[tuple[Play, ...], ...]]:
    if chips > 64 or len(_ROWS) >= _ROWS.size:  # bounded: card values and chip counts of real rulesets are small
        return []  # turn_actions then lists the plays of each value held without a row
    row = [tuple(_value_plays(v, c, last, chips, step) for c in range(COPIES[v] + 1)) for v in range(HIGHEST + 1)]
    return _ROWS.keep((last, chips, step), row)


def _value_plays(value: int, copies: int, last: int, chips: int, step: int) -> tuple[Play, ...]:
    """The plays of ``value`` by a player holding ``copies`` of it and ``chips`` bonus chips, after ``last``."""
    key = (value, copies, 0 if value >= last else (last - value + step - 1) // step, chips)
    plays = _PLAYS.get(key)
    if plays is None:
        bonuses = range(key[2], chips + 1)
        plays = tuple(Play(value, count, b) for count in range(1, copies + 1) for b in bonuses)
        if chips <= 64:  # bounded: values, copies and chip counts of real rulesets are small
            _PLAYS.keep(key, plays)
    return plays


#: The plays of one value, by (value, copies held, fewest chips needed, chips held), shared by every row that
#: lists them: a playout touches (and counts references to) a few thousand Play values, not one set per row.
_PLAYS: Memo[tuple[int, int, int, int], tuple[Play, ...]] = Memo("engine.rules.PLAYS", 1 << 16)


@memoized("engine.rules.discard_actions", 64, Policy.RENEW)
def _discard_actions(seat: int, hand: Hand, discard: int) -> tuple[Discard, ...]:
    """The Discard actions of one seat. Cached: a discard phase lists the same few hands after every discard."""
    return tuple(_tuple_new(Discard, (seat, cards)) for cards in discard_options(hand, discard))


# --------------------------------------------------------------------------------------------- apply


def apply(state: State, action: Action) -> State:
    """The state after ``action``. Turn actions are taken by ``state.to_move``.

    Raises ``IllegalMove`` with a reason a bot author understands; ``state`` is never changed.
    """
    kind = type(action)
    if kind is not Play and kind is not Pass and kind is not Drop:
        if kind is Discard:
            return _discard(state, action)  # type: ignore[arg-type]
        raise IllegalMove(f"not an action: {action!r}")
    # A turn: the hot path of every playout, written as one function over one unpacking of the state (reading
    # the fields one by one, and handing them from helper to helper, costs a fifth more). Only the fields the
    # action changes are rebuilt; the others are shared with ``state``.
    # fmt: off
    (ruleset, players, deal, seed, phase, round, hands, discards, penalty, bonus,
     status, forfeited, to_move, last, forced, turns, history, rounds_done, scores, ranks) = state
    # fmt: on
    seat = to_move
    if phase is not PLAY_PHASE:
        raise IllegalMove(f"no turn is due: the game is in the {phase.value} phase")
    event: Event
    if kind is Play:
        value, count, spent = action  # type: ignore[misc]
        if type(value) is not int or type(count) is not int or type(spent) is not int:
            raise IllegalMove(f"value, count and bonus of a play are integers, got {value!r}, {count!r}, {spent!r}")
        chips = bonus[seat]
        if last is None:
            if value != 1 or count != 1 or spent != 0:
                raise IllegalMove(_OPEN_WITH_THE_1)
        elif count < 1 or spent < 0 or spent > chips:
            raise IllegalMove(_bad_count_or_bonus(count, spent, chips))
        hand = hands[seat]
        i = bisect_left(hand, value)  # hands are sorted: the copies of a value are adjacent
        end = i + count
        if end > len(hand) or hand[end - 1] != value or hand[i] != value:
            raise IllegalMove(_not_held(hand, value, count))
        cost = 0
        if last is not None:
            reach = ruleset.bonus_step * spent  # chips lower the bar and widen the free range by as much
            if value < last - reach:
                raise IllegalMove(_too_low(value, last, spent, ruleset.bonus_step))
            if value > last + reach + 1:
                cost = value - last - reach - 1
        hands_l = list(hands)  # a list and back: the fastest way to change one item of a short tuple
        hand = hands_l[seat] = hand[:i] + hand[end:] if i else hand[end:]
        hands = tuple(hands_l)
        if spent:
            ints = list(bonus)
            ints[seat] = chips - spent
            bonus = tuple(ints)
        if hand:
            if cost:
                ints = list(penalty)
                ints[seat] += cost
                penalty = tuple(ints)
            finished = False
        else:  # finished: the refund is part of the play, net in its event
            ints = list(penalty)
            old = ints[seat]
            new = old + cost - ruleset.finish_refund
            if ruleset.chip_floor and new < 0:
                new = 0
            ints[seat] = new
            penalty = tuple(ints)
            cost = new - old
            status = _put(status, seat, FINISHED)
            finished = True
        event = _tuple_new(PlayEvent, (seat, value, count, spent, cost, finished, False))
        last = value
        force = False
    elif kind is Pass:
        force = action.force  # type: ignore[union-attr]
        if type(force) is not bool:
            raise IllegalMove(f"force of a pass is true or false, got {force!r}")
        if last is None:
            raise IllegalMove(_OPEN_WITH_THE_1)
        if forced:
            raise IllegalMove("you are forced: you must play or drop, not pass")
        if force and not _others_playing(status, seat):
            raise IllegalMove("pass and force needs another player still playing")
        event = _PASS_EVENTS[seat][force]
        ints = list(penalty)
        ints[seat] += event.penalty
        penalty = tuple(ints)
    else:
        if last is None:
            raise IllegalMove(_OPEN_WITH_THE_1)
        cards = len(hands[seat])
        event = _DROP_EVENTS[seat][cards] if cards < _DROP_CARDS else _tuple_new(DropEvent, (seat, cards, False, False))
        ints = list(penalty)
        ints[seat] += cards
        penalty = tuple(ints)
        status = _put(status, seat, DROPPED)
        force = False
    turns += 1
    history = history + (event,)  # noqa: RUF005 - concatenation is a third faster than unpacking here
    to_move = seat + 1 if seat + 1 < players else 0  # usually the next seat up is still playing
    if status[to_move] is not PLAYING:
        to_move = _next_playing(status, seat)
    if to_move >= 0 and turns >= ruleset.max_turns_per_round:
        # Turn limit: every player still playing drops out, with the card penalty.
        penalty_l = list(penalty)
        status_l = list(status)
        events = list(history)
        for s in range(players):
            if status_l[s] is PLAYING:
                p = len(hands[s])
                penalty_l[s] += p
                status_l[s] = DROPPED
                events.append(DropEvent(s, p, limit=True))
        penalty, status, history, to_move = tuple(penalty_l), tuple(status_l), tuple(events), -1
    forced = force and to_move >= 0
    # fmt: off
    new_state: State = _tuple_new(State, (
        ruleset, players, deal, seed, phase, round, hands, discards, penalty, bonus,
        status, forfeited, to_move, last, forced, turns, history, rounds_done, scores, ranks,
    ))
    # fmt: on
    if to_move < 0:
        return _end_round(new_state)
    return new_state


_OPEN_WITH_THE_1 = "the round opens with the 1: play value 1, count 1, bonus 0"

#: ``_PASS_EVENTS[seat][force]``: the PassEvent of every seat's pass (1 chip) and pass and force (2 chips), shared.
_PASS_EVENTS = tuple((PassEvent(s, False, 1), PassEvent(s, True, 2)) for s in range(MAX_PLAYERS))

#: ``_DROP_EVENTS[seat][cards]``: the DropEvent of a seat dropping with ``cards`` cards in hand, shared.
_DROP_CARDS = 67
_DROP_EVENTS = tuple(tuple(DropEvent(s, c) for c in range(_DROP_CARDS)) for s in range(MAX_PLAYERS))


def _bad_count_or_bonus(count: int, spent: int, held: int) -> str:
    """Why a play's count or bonus is refused (checked in this order)."""
    if count < 1:
        return f"count must be at least 1, got {count}"
    if spent < 0:
        return f"bonus must not be negative, got {spent}"
    return f"you spend {spent} bonus chips but hold {held}"


def _not_held(hand: Hand, value: int, count: int) -> str:
    """Why a play of ``count`` cards of ``value`` is not in ``hand``."""
    have = hand.count(value)
    if have == 0:
        return f"you hold no {value}"
    return f"you play {count} cards of {value} but hold {have}"


def _too_low(value: int, last: int, spent: int, step: int) -> str:
    """Why ``value`` may not follow ``last`` with ``spent`` bonus chips."""
    if spent == 0:
        return f"{value} is lower than last {last} and no bonus chip was spent"
    need = (last - value + step - 1) // step
    chips = f"{spent} bonus chip{'s' if spent != 1 else ''}"
    return f"{value} is lower than last {last} even with {chips} (it needs {need})"


def _discard(state: State, action: Discard) -> State:
    phase = state[4]  # phase (fields by position: twice as fast as by name on a path every discard takes)
    if phase is not DISCARD_PHASE:
        raise IllegalMove(f"discards are made at the start of a round, not in the {phase.value} phase")
    seat, cards = action
    players = state[1]  # players
    if type(seat) is not int or not 0 <= seat < players:
        raise IllegalMove(f"there is no seat {seat!r} in a game of {players}")
    if state[7][seat] is not None:  # discards
        raise IllegalMove(f"seat {seat} has already discarded this round")
    if type(cards) is not tuple and not isinstance(cards, tuple | list):
        raise IllegalMove(f"a discard is a list of cards (integers), got {cards!r}")
    for c in cards:
        if type(c) is not int:
            raise IllegalMove(f"a discard is a list of cards (integers), got {cards!r}")
    if type(cards) is not tuple or len(cards) != 3 or not cards[0] <= cards[1] <= cards[2]:
        cards = tuple(sorted(cards))  # (discard_options gives sorted tuples of three: those are kept as they are)
    hand, ruleset = state[6][seat], state[0]  # hands, ruleset
    return _set_discard(state, seat, cards, _remove_discard(hand, cards, ruleset.discard))


def _remove_discard(hand: Hand, cards: tuple[int, ...], need: int) -> Hand:
    """``hand`` less the sorted ``cards``, or ``IllegalMove`` naming why they are not a discard of it."""
    if len(cards) != need:
        raise IllegalMove(f"a discard names exactly {need} cards, got {len(cards)}")
    if cards and cards[0] <= 1 and 1 in cards:  # sorted: a 1 comes after lower numbers only
        raise IllegalMove("the 1 may not be discarded")
    rest = list(hand)
    for value in cards:  # sorted: the smallest value the hand cannot supply is the one reported
        try:
            rest.remove(value)
        except ValueError:
            held = hand.count(value)
            if held == 0:
                raise IllegalMove(f"you discard {value} but hold no {value}") from None
            raise IllegalMove(f"you discard {cards.count(value)} cards of {value} but hold {held}") from None
    return tuple(rest)  # removing from a sorted hand keeps it sorted


def _set_discard(state: State, seat: int, cards: Hand, new_hand: Hand) -> State:
    # fmt: off
    (ruleset, players, deal, seed, phase, round, hands, discards, penalty, bonus,
     status, forfeited, to_move, last, forced, turns, history, rounds_done, scores, ranks) = state
    # fmt: on
    hands_l = list(hands)
    hands_l[seat] = new_hand
    hands = tuple(hands_l)
    made = list(discards)
    made[seat] = cards
    discards = tuple(made)
    opens = None not in discards and True not in forfeited  # the last discard, nobody to drop: the 1 opens
    if opens:
        phase = PLAY_PHASE
        to_move = _holder_of_the_1(hands)
    # fmt: off
    new: State = _tuple_new(State, (
        ruleset, players, deal, seed, phase, round, hands, discards, penalty, bonus,
        status, forfeited, to_move, last, forced, turns, history, rounds_done, scores, ranks,
    ))
    # fmt: on
    if opens or None in discards:
        return new
    return _settle(_begin_play(new))


def _auto_discard(hand: Hand, need: int) -> tuple[Hand, Hand]:
    """The referee's discard for a forfeiter: its ``need`` highest cards other than the 1."""
    pool = [c for c in hand if c != 1]
    cards = tuple(sorted(pool[len(pool) - need :])) if need else ()
    return cards, _remove_discard(hand, cards, need)


# --------------------------------------------------------------------------------------------- forfeits


def forfeit(state: State, seat: int) -> State:
    """Seat ``seat`` forfeits the game (RULES.md, "Forfeit").

    It drops out at once if still playing (after the referee plays its unplayed 1); in later rounds it drops
    right after the deal. Raises ``IllegalMove`` when the game is over or the seat has already forfeited.
    """
    if type(seat) is not int or not 0 <= seat < state.players:
        raise IllegalMove(f"there is no seat {seat!r}")
    if state.phase is OVER_PHASE:
        raise IllegalMove("the game is over")
    if state.forfeited[seat]:
        raise IllegalMove(f"seat {seat} has already forfeited")
    state = _with(state, forfeited=_put(state.forfeited, seat, True))
    if state.phase is DISCARD_PHASE:
        if state.discards[seat] is None:
            cards, rest = _auto_discard(state.hands[seat], state.ruleset.discard)
            return _set_discard(state, seat, cards, rest)
        return state
    if state.status[seat] is not PLAYING:
        return state
    state = _forfeit_drop(state, seat)
    if _next_playing(state.status, seat) < 0:
        return _end_round(state)
    if state.to_move == seat:
        # The forfeiter's turn ends, and with it any force on it.
        state = _with(state, to_move=_next_playing(state.status, seat), forced=False)
    return state


def _forfeit_drop(state: State, seat: int) -> State:
    """Referee-imposed drop of a forfeiter (playing its unplayed 1 first). Does not move the turn."""
    hand = state.hands[seat]
    history = state.history
    last = state.last
    if last is None and hand and hand[0] == 1:
        hand = hand[1:]
        last = 1
        history = (*history, PlayEvent(seat, 1, 1, 0, 0, forfeit=True))
    penalty = len(hand)
    return _with(
        state,
        hands=_put(state.hands, seat, hand),
        last=last,
        history=(*history, DropEvent(seat, penalty, forfeit=True)),
        penalty=_put(state.penalty, seat, state.penalty[seat] + penalty),
        status=_put(state.status, seat, DROPPED),
    )


# --------------------------------------------------------------------------------------------- rounds


def _start_round(state: State, r: int, done: tuple[RoundRecord, ...]) -> State:
    """Round ``r`` (0-based) dealt, after the rounds ``done``: every seat playing, discards to make (a forfeiter's
    made for it), chips and forfeits carried over from ``state``."""
    # fmt: off
    (ruleset, players, deal, seed, phase, round, hands, discards, penalty, bonus,
     status, forfeited, to_move, last, forced, turns, history, rounds_done, scores, ranks) = state
    # fmt: on
    hands = deal[r]
    need = ruleset.discard
    if need == 0:
        discards = ((),) * players
    elif True in forfeited:
        hands_l = list(hands)
        discards_l: list[Hand | None] = [None] * players
        for s in range(players):
            if forfeited[s]:
                discards_l[s], hands_l[s] = _auto_discard(hands_l[s], need)
        hands, discards = tuple(hands_l), tuple(discards_l)
    else:
        discards = (None,) * players
    phase, round, status, to_move, last, forced, turns = DISCARD_PHASE, r, (PLAYING,) * players, -1, None, False, 0
    history, rounds_done = (), done
    # fmt: off
    state = _tuple_new(State, (
        ruleset, players, deal, seed, phase, round, hands, discards, penalty, bonus,
        status, forfeited, to_move, last, forced, turns, history, rounds_done, scores, ranks,
    ))
    # fmt: on
    if None not in discards:
        return _begin_play(state)
    return state


def _begin_play(state: State) -> State:
    if True not in state.forfeited:  # nobody to drop: the holder of the 1 opens (_with, without its keywords)
        items = list(state)
        items[_PHASE] = PLAY_PHASE
        items[_TO_MOVE] = _holder_of_the_1(state.hands)
        opened: State = _tuple_new(State, items)
        return opened
    state = _with(state, phase=PLAY_PHASE)
    opener_forfeited = -1
    for s in range(state.players):
        if state.forfeited[s]:
            if state.last is None and state.hands[s][:1] == (1,):
                opener_forfeited = s
            state = _forfeit_drop(state, s)
    if opener_forfeited >= 0:
        to_move = _next_playing(state.status, opener_forfeited)
    else:
        to_move = _holder_of_the_1(state.hands)
        if state.status[to_move] is not PLAYING:  # pragma: no cover - the holder is a forfeiter above
            to_move = -1
    return _with(state, to_move=to_move)


def _holder_of_the_1(hands: tuple[Hand, ...]) -> int:
    for s, hand in enumerate(hands):
        if hand and hand[0] == 1:  # sorted: the 1 comes first
            return s
    raise AssertionError("the 1 is in no hand")  # pragma: no cover - every round deals it, forfeiters play it


def _settle(state: State) -> State:
    """End the round when play began with nobody left to move (every player forfeited)."""
    if state.phase is PLAY_PHASE and state.to_move < 0:
        return _end_round(state)
    return state


def _end_round(state: State) -> State:
    """Record the round and start the next one (or score the game). A loop, not recursion: with every
    player forfeited, rounds end as soon as they begin."""
    while True:
        # fmt: off
        (ruleset, players, deal, seed, phase, round, hands, discards, penalty, bonus,
         status, forfeited, to_move, last, forced, turns, history, rounds_done, scores, ranks) = state
        # fmt: on
        made = discards
        if None in made:
            made = tuple(d if d is not None else () for d in made)
        rounds_done = (*rounds_done, _tuple_new(RoundRecord, (round + 1, deal[round], made, history, state.table())))
        if round + 1 >= ruleset.rounds:
            scores = final_scores(penalty, bonus, ruleset)
            ranks = rank(scores, forfeited)
            phase, to_move, forced = OVER_PHASE, -1, False
            # fmt: off
            over: State = _tuple_new(State, (
                ruleset, players, deal, seed, phase, round, hands, discards, penalty, bonus,
                status, forfeited, to_move, last, forced, turns, history, rounds_done, scores, ranks,
            ))
            # fmt: on
            return over
        state = _start_round(state, round + 1, rounds_done)  # which resets the turn
        if state.phase is not PLAY_PHASE or state.to_move >= 0:
            return state


def final_scores(penalty: tuple[int, ...], bonus: tuple[int, ...], ruleset: Ruleset) -> tuple[int, ...]:
    """Scores after the last round: each remaining bonus chip gives back ``bonus_refund`` penalty chips."""
    out = []
    for p, b in zip(penalty, bonus, strict=True):
        s = p - ruleset.bonus_refund * b
        if ruleset.chip_floor and s < 0:
            s = 0
        out.append(s)
    return tuple(out)


def rank(scores: tuple[int, ...], forfeited: tuple[bool, ...]) -> tuple[int, ...]:
    """Shared competition ranks (1, 2, 2, 4): ascending score, every forfeiter below every non-forfeiter."""
    keys = list(zip(forfeited, scores, strict=True))
    ordered = sorted(keys)
    return tuple([1 + bisect_left(ordered, k) for k in keys])  # 1 + how many keys are below k


# --------------------------------------------------------------------------------------------- helpers


#: The position of each field of State, for ``_with``.
_AT: dict[str, int] = {name: i for i, name in enumerate(State._fields)}
_PHASE = _AT["phase"]
_TO_MOVE = _AT["to_move"]


def _with(state: State, **changes: Any) -> State:
    """``state._replace(**changes)`` without NamedTuple's overhead (the discard phase and every round use it): the
    state with the fields named changed."""
    items = list(state)
    for name, value in changes.items():
        items[_AT[name]] = value
    new: State = _tuple_new(State, items)
    return new


def _put(t: tuple, i: int, v: object) -> tuple:  # type: ignore[type-arg]
    items = list(t)  # a list and back: faster than slicing around the item for the short tuples of a State
    items[i] = v
    return tuple(items)


def _next_playing(status: tuple[Status, ...], seat: int) -> int:
    """The next seat up from ``seat`` (wrapping, ``seat`` itself last) still playing, or -1."""
    for s in range(seat + 1, len(status)):
        if status[s] is PLAYING:
            return s
    for s in range(seat + 1):
        if status[s] is PLAYING:
            return s
    return -1


def _others_playing(status: tuple[Status, ...], seat: int) -> bool:
    """Whether a seat other than ``seat`` is still playing."""
    return status.count(PLAYING) > (status[seat] is PLAYING)
