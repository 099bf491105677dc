"""Simulation support for bots: legal moves and plausible full states from one seat's observation."""

from __future__ import annotations

import random
from collections import Counter

from referee.engine.actions import Action
from referee.engine.deck import DECK, Hand, seeded_deal
from referee.engine.events import DropEvent, PlayEvent
from referee.engine.observation import Observation
from referee.engine.rules import _others_playing, turn_actions
from referee.engine.ruleset import Ruleset
from referee.engine.state import Phase, State, Status


def legal_actions_for(obs: Observation, ruleset: Ruleset) -> list[Action]:
    """The legal turn actions of ``obs.seat`` when it is to move (order as ``rules.legal_actions``)."""
    status = tuple(p.status for p in obs.players)
    return turn_actions(
        obs.hand,
        obs.players[obs.seat].bonus,
        obs.last,
        obs.forced,
        _others_playing(status, obs.seat),
        ruleset.bonus_step,
    )


def unseen_cards(obs: Observation, my_discards: Hand = ()) -> list[int]:
    """Cards ``obs.seat`` has not seen this round: the deck less its hand, its discards and the table."""
    seen = Counter(obs.hand) + Counter(my_discards)
    for e in obs.history:
        if isinstance(e, PlayEvent):
            seen[e.value] += e.count
    left = Counter(DECK) - seen
    return sorted(left.elements())


def sample_state(obs: Observation, ruleset: Ruleset, rng: random.Random, my_discards: Hand = ()) -> State:
    """A full state consistent with ``obs``: other hands drawn at random from the unseen cards.

    Later rounds are dealt at random too. The state is for simulation only: earlier rounds are not
    reconstructed, so its final scores count only what ``obs.players`` shows. Raises ``ValueError`` when the
    observation is not of a turn in the play phase.
    """
    if obs.to_move < 0:
        raise ValueError("sample_state needs an observation of a turn in the play phase")
    n = len(obs.players)
    pool = unseen_cards(obs, my_discards)
    # The 1 is on the table or in a hand; when unplayed and not ours, it must be in an opponent's hand.
    one_unplayed = obs.last is None and 1 not in obs.hand
    if one_unplayed:
        pool.remove(1)
    rng.shuffle(pool)
    hands: list[Hand] = []
    k = 0
    holder = obs.to_move if one_unplayed else -1
    for s in range(n):
        if s == obs.seat:
            hands.append(obs.hand)
            continue
        size = obs.players[s].cards
        cards = pool[k : k + size - (1 if s == holder else 0)]
        k += len(cards)
        if s == holder:
            cards.append(1)
        hands.append(tuple(sorted(cards)))
    future = seeded_deal(rng.getrandbits(64), n, ruleset)
    current = tuple(hands)
    deal = tuple(current if r <= obs.round - 1 else future[r] for r in range(ruleset.rounds))
    forfeited = tuple(any(getattr(e, "forfeit", False) and e.seat == s for e in obs.history) for s in range(n))
    turns = sum(1 for e in obs.history if not getattr(e, "forfeit", False) and not _is_limit(e))
    return State(
        ruleset=ruleset,
        players=n,
        deal=deal,
        seed=None,
        phase=Phase.PLAY,
        round=obs.round - 1,
        hands=current,
        discards=tuple(my_discards if s == obs.seat else () for s in range(n)),
        penalty=tuple(p.penalty for p in obs.players),
        bonus=tuple(p.bonus for p in obs.players),
        status=tuple(Status(p.status) for p in obs.players),
        forfeited=forfeited,
        to_move=obs.to_move,
        last=obs.last,
        forced=obs.forced,
        turns=turns,
        history=obs.history,
        rounds_done=(),
        scores=None,
        ranks=None,
    )


def _is_limit(e: object) -> bool:
    return isinstance(e, DropEvent) and e.limit
