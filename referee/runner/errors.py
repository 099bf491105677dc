"""The runner's own errors: bot faults found by the process layer, a line too long for it, and a BOT argument that
names nothing (an impossible runner option is ``referee.settings.ConfigError``).

Every bot fault the runner raises is a ``BotFault``, a ``BotError`` with a ``kind`` (the fault kind recorded in
game logs), a ``detail`` and, when a line of the bot is to blame, that ``line`` (its start, as text).
``play_game`` turns each into a forfeit; none escapes it. Protocol faults are ``protocol.ProtocolViolation``;
illegal moves are ``engine.IllegalMove``: ``BotError`` too.
"""

from __future__ import annotations

from protocol import MAX_LINE
from referee.engine.errors import BotError, RefereeError
from referee.runner.faults import FaultKind
from referee.runner.safe_text import line_text

#: How much of an offending line a fault keeps.
LINE_KEPT = 200


def shorten(line: bytes | str | None) -> str | None:
    """The start of an offending line as a fault keeps it: at most ``LINE_KEPT`` bytes, the cut marked."""
    return line_text(line, LINE_KEPT, mark="…")


class BotFault(BotError):
    """A bot broke the rules of the runner; ``kind`` names how, ``line`` is the offending output (its start), if
    any."""

    kind = "fault"
    line: str | None

    def __init__(self, detail: str, *, line: bytes | str | None = None) -> None:
        super().__init__(self.kind, detail, line=shorten(line))


class BotCrashed(BotFault):
    """A bot's process exited, closed its stdout or could not be started; the bot forfeits its game."""

    kind = FaultKind.CRASH


class BotTimeout(BotFault):
    """A bot missed a deadline (move time or time bank); the bot forfeits its game."""

    kind = FaultKind.TIMEOUT


class UnsolicitedOutput(BotFault):
    """A bot wrote a line when no reply was awaited (or a second line after its reply)."""

    kind = FaultKind.UNSOLICITED


class OutputCapped(BotFault):
    """A bot's lines in one game passed its cap (``Limits.game_output``): its game log's share is bounded."""

    kind = FaultKind.OUTPUT_CAP


class StartupFailed(BotFault):
    """A bot could not be started or did not complete its hello (crash, timeout or bad reply)."""

    kind = FaultKind.STARTUP


class LineTooLong(RefereeError):
    """A bot sent more than ``MAX_LINE`` bytes without a newline; ``head`` is the start of it. Raised by the process
    layer, which knows no protocol: the player turns it into the ``line_too_long`` protocol fault."""

    def __init__(self, head: bytes) -> None:
        super().__init__(f"a line over {MAX_LINE} bytes")
        self.head = head


class BotSpecError(RefereeError, ValueError):
    """A BOT argument names no runnable program; the message says which and what to do."""
