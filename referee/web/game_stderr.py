"""A game's stderr, turn by turn: what each seat's bot wrote while it was asked for each move, read back from the
marks ``serve`` writes into the versions' stderr logs (``referee.runner.stderr_marks``). Its author's only: the
caller checks who may see which seat.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from referee.runner.process import FULL_NOTICE_END
from referee.runner.stderr_marks import game_segments

__all__ = ["GAME_STDERR_CAP", "game_stderr"]

#: The most of one seat's stderr shown for one game (what comes after is cut, and says so).
GAME_STDERR_CAP = 64 * 1024
#: What a segment counts toward the cap beside its text (its fields in the answer).
_SEGMENT_COST = 64
#: A log last written this long before the game began cannot hold it (file times and the game's are both rounded).
_SLACK = timedelta(seconds=2)


def game_stderr(ladder: Any, game: Any, keys: list[str], seats: list[int]) -> tuple[list[dict[str, Any]], list[int]]:
    """The segments of ``seats`` (of ``game``, whose seats hold the versions ``keys``: ``name#number``), in the order
    written per seat: ``{seat, round, step, at, text}`` (``stderr_marks.Segment``), each seat's text cut at
    ``GAME_STDERR_CAP`` bytes; and the seats of ``seats`` with nothing of the game kept while a ranked-play log of
    their version is full (its cap reached before the game: what the bot wrote in it was dropped). Only the
    version's ranked-play logs written since the game began are read, and the ends of the others."""
    began = _began(game)
    out: list[dict[str, Any]] = []
    full: list[int] = []
    done: set[str] = set()
    for seat in seats:
        key = keys[seat]
        if key in done:
            continue
        done.add(key)
        wanted = [s for s in seats if keys[s] == key]
        name, _, number = key.rpartition("#")
        gate = ladder.layout.gate_dir(ladder.version(name, int(number)).id)
        logs = [p for p in ladder.stderr_logs(name, int(number)) if p.parent != gate]
        found = []
        for path in logs:
            if not _written_since(path, began):
                continue
            try:
                data = path.read_bytes()
            except OSError:
                continue
            found = [s for s in game_segments(data, game.id) if s.seat in wanted]
            if found:
                out += _capped([s._asdict() for s in found])
                break  # a lane's log holds the whole game (each lane plays a game from its start to its end)
        if not found and any(_is_full(p) for p in logs):
            full += wanted
    return out, sorted(full)


def _is_full(path: Path) -> bool:
    """Whether the log ends with the runner's notice that it reached its cap."""
    try:
        with path.open("rb") as f:
            f.seek(max(0, f.seek(0, 2) - 200))
            return f.read().endswith(FULL_NOTICE_END)
    except OSError:
        return False


def _capped(segments: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``segments`` with each seat's text cut after ``GAME_STDERR_CAP`` characters in all, each segment counted
    ``_SEGMENT_COST`` more (so a bot that writes mark-like lines and nothing else gets no more of them through)."""
    used: dict[int, int] = {}
    out = []
    for s in segments:
        left = GAME_STDERR_CAP - used.get(s["seat"], 0) - _SEGMENT_COST
        if left < 0:
            continue
        if len(s["text"]) > left:
            s = {**s, "text": s["text"][:left] + f"\n[cut: more than {GAME_STDERR_CAP:,} characters in this game]\n"}
        used[s["seat"]] = used.get(s["seat"], 0) + len(s["text"]) + _SEGMENT_COST
        out.append(s)
    return out


def _began(game: Any) -> datetime | None:
    try:
        return datetime.fromisoformat(game.finished_at) - timedelta(seconds=float(game.duration)) - _SLACK
    except (TypeError, ValueError):
        return None


def _written_since(path: Path, began: datetime | None) -> bool:
    if began is None:
        return True
    try:
        modified = path.stat().st_mtime
    except OSError:
        return False
    return began.timestamp() <= modified
