"""The root of the referee's exception hierarchy and the engine's own errors."""

from __future__ import annotations


class RefereeError(Exception):
    """Base of every error the referee raises on purpose.

    Bot faults (``ProtocolViolation``, ``BotCrashed``, ``BotTimeout``, ``IllegalMove``) derive from it and
    become recorded forfeits; configuration errors (``RulesetError``, ``DealError``) derive from it and
    become one-line messages. Anything else escaping the referee is a bug.
    """


class IllegalMove(RefereeError):
    """An action the rules do not allow in this state. The state is unchanged.

    ``reason`` is written for a bot author: "5 is lower than last 9 and no bonus chip was spent".
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class RulesetError(RefereeError, ValueError):
    """A ruleset option has an impossible value; the message names the option."""


class DealError(RefereeError, ValueError):
    """An explicit deal does not fit the deck or the ruleset; the message names the first problem."""
