"""Every error the referee raises on purpose, in one place.

``RefereeError`` is the root. Bot faults (``ProtocolViolation``, ``BotCrashed``, ``BotTimeout``,
``IllegalMove``) become recorded forfeits; configuration errors (``RulesetError``, ``DealError``,
``BotSpecError``) become one-line messages. Anything else escaping the referee is a bug.
"""

from protocol.errors import ProtocolViolation
from referee.engine.errors import DealError, IllegalMove, RefereeError, RulesetError
from referee.runner.errors import BotCrashed, BotSpecError, BotTimeout

__all__ = [
    "BotCrashed",
    "BotSpecError",
    "BotTimeout",
    "DealError",
    "IllegalMove",
    "ProtocolViolation",
    "RefereeError",
    "RulesetError",
]
