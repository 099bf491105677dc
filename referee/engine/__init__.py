"""The rules engine of 23: pure, sans-IO, deterministic.

Start a game with ``new_game``, list moves with ``legal_actions``, advance with ``apply`` (or ``forfeit``),
and give each seat only ``observation_for(state, seat)``.
"""

from referee.engine.actions import DROP, PASS, PASS_FORCE, Action, Discard, Drop, Pass, Play, TurnAction
from referee.engine.deck import (
    COPIES,
    DECK,
    Deal,
    Hand,
    RoundDeal,
    deal_from_json,
    deal_to_json,
    seeded_deal,
    validate_deal,
)
from referee.engine.errors import DealError, IllegalMove, RefereeError, RulesetError
from referee.engine.events import DropEvent, Event, PassEvent, PlayEvent
from referee.engine.observation import Observation, observation_for
from referee.engine.rules import (
    OPENING,
    apply,
    discard_options,
    final_scores,
    forfeit,
    legal_actions,
    new_game,
    rank,
    turn_actions,
)
from referee.engine.ruleset import DECK_SIZE, MAX_PLAYERS, MIN_PLAYERS, STANDARD, Ruleset
from referee.engine.sampling import legal_actions_for, sample_state, unseen_cards
from referee.engine.state import Phase, PlayerView, RoundRecord, State, Status

__all__ = [
    "COPIES",
    "DECK",
    "DECK_SIZE",
    "DROP",
    "MAX_PLAYERS",
    "MIN_PLAYERS",
    "OPENING",
    "PASS",
    "PASS_FORCE",
    "STANDARD",
    "Action",
    "Deal",
    "DealError",
    "Discard",
    "Drop",
    "DropEvent",
    "Event",
    "Hand",
    "IllegalMove",
    "Observation",
    "Pass",
    "PassEvent",
    "Phase",
    "Play",
    "PlayEvent",
    "PlayerView",
    "RefereeError",
    "RoundDeal",
    "RoundRecord",
    "Ruleset",
    "RulesetError",
    "State",
    "Status",
    "TurnAction",
    "apply",
    "deal_from_json",
    "deal_to_json",
    "discard_options",
    "final_scores",
    "forfeit",
    "legal_actions",
    "legal_actions_for",
    "new_game",
    "observation_for",
    "rank",
    "sample_state",
    "seeded_deal",
    "turn_actions",
    "unseen_cards",
    "validate_deal",
]
