"""The runner's own errors: bot faults found by the process layer, and a BOT argument that names nothing.

Every bot fault the runner raises is a ``BotFault`` with a ``kind`` (the fault kind recorded in game logs) and,
when a line of the bot is to blame, that ``line`` (truncated). ``play_game`` turns each into a forfeit; none
escapes it. Protocol faults are ``protocol.ProtocolViolation``; illegal moves are ``engine.IllegalMove``.
"""

from __future__ import annotations

from referee.engine.errors import RefereeError

#: How much of an offending line a fault keeps.
LINE_KEPT = 200


def shorten(line: bytes | str | None, keep: int = LINE_KEPT) -> str | None:
    """The start of an offending line as text (bytes decoded leniently), with the cut marked."""
    if line is None:
        return None
    if isinstance(line, bytes):
        cut = len(line) > keep
        text = line[:keep].decode("utf-8", "replace")
    else:
        cut = len(line) > keep
        text = line[:keep]
    return text + "…" if cut else text


class BotFault(RefereeError):
    """A bot broke the rules of the runner; ``kind`` names how, ``line`` is the offending output, if any."""

    kind = "fault"

    def __init__(self, detail: str, *, line: bytes | str | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.line = shorten(line)


class BotCrashed(BotFault):
    """A bot's process exited, closed its stdout or could not be started; the bot forfeits its game."""

    kind = "crash"


class BotTimeout(BotFault):
    """A bot missed a deadline (move time or time bank); the bot forfeits its game."""

    kind = "timeout"


class UnsolicitedOutput(BotFault):
    """A bot wrote a line when no reply was awaited (or a second line after its reply)."""

    kind = "unsolicited"


class StartupFailed(BotFault):
    """A bot could not be started or did not complete its hello (crash, timeout or bad reply)."""

    kind = "startup"


class BotSpecError(RefereeError, ValueError):
    """A BOT argument names no runnable program; the message says which and what to do."""
