"""Marks in a bot's stderr log that say what the bot was asked when it wrote what follows
(``RunnerConfig.stderr_marks``).

The game tells each player what it asks next (a ``Mark``: the game, the seat, the round, the step of the round's
history the request comes before, and the request); the process writes its line (``mark_line``) into the stderr log
before the first byte the bot writes after it, so a silent bot's log stays empty, and the log's cap counts the marks
too. A mark line looks like::

    [referee] game=12.0 seat=1 round=2 step=5 at=turn

``at`` is ``start`` (the game's start: the bot's hello when it is started for the game, its game_start), ``deal``
(its discard), ``turn`` (its move, the one that comes before the round's event number ``step``) or ``end`` (after
its last reply). ``game_segments`` reads a log back: the text each seat wrote under each mark of one game. A bot can
write a line that looks like a mark into its own log; that misleads only its own author, the one reader of that log.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from referee.memo import Memo, Policy

__all__ = ["MARK_KINDS", "Mark", "Segment", "game_segments", "labelled", "mark_line"]

#: The requests a mark names (see the module's docstring).
MARK_KINDS = ("start", "deal", "turn", "end")

_MARK = re.compile(rb"^\[referee\] game=(\S+) seat=(\d+) round=(\d+) step=(\d+) at=(start|deal|turn|end)\n", re.M)

#: What a request is, as the game tells it: (game, seat, round, step, at), the fields of its mark line (``mark_line``,
#: made only when the bot writes something under it).
Mark = tuple[str, int, int, int, str]

#: Per stderr log (its path), the last mark written into it and whether its text ends a line: processes that share a
#: log (a version at two seats of a table, or started again) write a mark whenever the one before is not theirs.
_LAST: Memo[str, tuple[Mark, bool]] = Memo("runner.stderr_marks.LAST", 4096, Policy.RENEW)


class Segment(NamedTuple):
    """What one seat wrote on stderr under one mark of a game (its text decoded, bad bytes replaced)."""

    seat: int
    round: int
    step: int
    at: str
    text: str


def mark_line(game: str, seat: int, round_1based: int, step: int, at: str) -> bytes:
    """The mark of a request: ``at`` one of ``MARK_KINDS``, ``step`` the number of events of the round so far."""
    fields = (game.encode(), seat, round_1based, step, at.encode())
    return b"[referee] game=%b seat=%d round=%d step=%d at=%b\n" % fields


def labelled(log: str, mark: Mark, chunk: bytes) -> bytes:
    """``chunk`` as it goes into the log named ``log``: after ``mark``'s line (a line of its own) unless the last mark
    written into that log is this one."""
    last = _LAST.get(log)
    ends_line = chunk.endswith(b"\n")
    if last is not None and last[0] == mark:
        _LAST[log] = (mark, ends_line)
        return chunk
    _LAST.keep(log, (mark, ends_line))
    return (b"" if last is None or last[1] else b"\n") + mark_line(*mark) + chunk


def game_segments(data: bytes, game: str) -> list[Segment]:
    """The segments of ``data`` (a stderr log) written under the marks of ``game``, in the log's order; the text
    after a mark runs to the next mark (of any game) or the end."""
    marks = list(_MARK.finditer(data))
    wanted = game.encode()
    out: list[Segment] = []
    for i, m in enumerate(marks):
        if m.group(1) != wanted:
            continue
        end = marks[i + 1].start() if i + 1 < len(marks) else len(data)
        text = data[m.end() : end].decode("utf-8", "replace")
        seat, rnd, step, at = int(m.group(2)), int(m.group(3)), int(m.group(4)), m.group(5).decode()
        if out and out[-1][:4] == (seat, rnd, step, at):  # the same request, its text cut by another process's mark
            out[-1] = out[-1]._replace(text=out[-1].text + text)
        else:
            out.append(Segment(seat, rnd, step, at, text))
    return out
