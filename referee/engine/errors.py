"""The root of the referee's exception hierarchy, the common shape of a bot's fault, and the engine's own errors."""

from __future__ import annotations


class RefereeError(Exception):
    """Base of every error the referee raises on purpose (``referee.errors`` lists them all).

    A bot's fault (``BotError``: ``ProtocolViolation``, ``BotCrashed``, ``BotTimeout``, ``IllegalMove`` ...)
    becomes a recorded forfeit; the others (``RulesetError``, ``DealError``, a bad option or file) become
    one-line messages. Anything else escaping the referee is a bug.
    """


class BotError(RefereeError):
    """Something a bot did that forfeits its game, in one shape whoever finds it (engine, protocol or runner).

    ``kind`` is the fault kind a game records (``"illegal_move"``, ``"invalid_json"``, ``"timeout"`` ...),
    ``detail`` says what was wrong in one line for the bot's author, and ``line`` is the bot's offending line
    (as it was read, or already cut to its start) when a line is to blame, else None. ``str(exc)`` is
    ``message`` (``detail`` unless given).
    """

    def __init__(self, kind: str, detail: str, *, line: bytes | str | None = None, message: str | None = None) -> None:
        super().__init__(detail if message is None else message)
        self.kind = kind
        self.detail = detail
        self.line = line


class IllegalMove(BotError):
    """An action the rules do not allow in this state. The state is unchanged.

    ``detail`` is written for a bot author: "5 is lower than last 9 and no bonus chip was spent". ``kind`` is
    ``"illegal_move"`` (``"illegal_discard"`` for a discard the runner refused); ``line`` is the reply that asked
    for the action, when the runner knows it.
    """

    def __init__(self, detail: str, *, kind: str = "illegal_move", line: bytes | str | None = None) -> None:
        super().__init__(kind, detail, line=line)


class RulesetError(RefereeError, ValueError):
    """A ruleset option has an impossible value; the message names the option."""


class DealError(RefereeError, ValueError):
    """An explicit deal does not fit the deck or the ruleset; the message names the first problem."""
