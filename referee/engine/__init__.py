"""The rules engine of 23: pure, sans-IO, deterministic.

Start a game with ``new_game``, list moves with ``legal_actions``, advance with ``apply`` (or ``forfeit``),
and give each seat only ``observation_for(state, seat)``.
"""

from typing import TYPE_CHECKING

from referee.lazy import lazy_names

if TYPE_CHECKING:
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
    from referee.engine.discards import discard_options
    from referee.engine.errors import BotError, DealError, IllegalMove, RefereeError, RulesetError
    from referee.engine.events import DropEvent, Event, PassEvent, PlayEvent
    from referee.engine.observation import Observation, observation_for
    from referee.engine.rules import (
        OPENING,
        apply,
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

#: Where each public name lives. A module is imported when one of its names is first used (PEP 562), so a bot
#: that needs only the actions, or only the errors, does not load the whole engine at start-up.
_WHERE: dict[str, str] = {
    "Action": "referee.engine.actions",
    "BotError": "referee.engine.errors",
    "COPIES": "referee.engine.deck",
    "DECK": "referee.engine.deck",
    "DECK_SIZE": "referee.engine.ruleset",
    "DROP": "referee.engine.actions",
    "Deal": "referee.engine.deck",
    "DealError": "referee.engine.errors",
    "Discard": "referee.engine.actions",
    "Drop": "referee.engine.actions",
    "DropEvent": "referee.engine.events",
    "Event": "referee.engine.events",
    "Hand": "referee.engine.deck",
    "IllegalMove": "referee.engine.errors",
    "MAX_PLAYERS": "referee.engine.ruleset",
    "MIN_PLAYERS": "referee.engine.ruleset",
    "OPENING": "referee.engine.rules",
    "Observation": "referee.engine.observation",
    "PASS": "referee.engine.actions",
    "PASS_FORCE": "referee.engine.actions",
    "Pass": "referee.engine.actions",
    "PassEvent": "referee.engine.events",
    "Phase": "referee.engine.state",
    "Play": "referee.engine.actions",
    "PlayEvent": "referee.engine.events",
    "PlayerView": "referee.engine.state",
    "RefereeError": "referee.engine.errors",
    "RoundDeal": "referee.engine.deck",
    "RoundRecord": "referee.engine.state",
    "Ruleset": "referee.engine.ruleset",
    "RulesetError": "referee.engine.errors",
    "STANDARD": "referee.engine.ruleset",
    "State": "referee.engine.state",
    "Status": "referee.engine.state",
    "TurnAction": "referee.engine.actions",
    "apply": "referee.engine.rules",
    "deal_from_json": "referee.engine.deck",
    "deal_to_json": "referee.engine.deck",
    "discard_options": "referee.engine.discards",
    "final_scores": "referee.engine.rules",
    "forfeit": "referee.engine.rules",
    "legal_actions": "referee.engine.rules",
    "legal_actions_for": "referee.engine.sampling",
    "new_game": "referee.engine.rules",
    "observation_for": "referee.engine.observation",
    "rank": "referee.engine.rules",
    "sample_state": "referee.engine.sampling",
    "seeded_deal": "referee.engine.deck",
    "turn_actions": "referee.engine.rules",
    "unseen_cards": "referee.engine.sampling",
    "validate_deal": "referee.engine.deck",
}


__getattr__, __dir__ = lazy_names("referee.engine", _WHERE, globals())


__all__ = sorted(_WHERE)
