"""The data the page's script reads, packed to keep a large tournament's report small.

The page carries two kinds of blobs, each JSON compressed with gzip and base64-encoded, decoded in the
browser with ``DecompressionStream``:

- the index: entrants, every game (seats, scores, ranks, forfeits, seed, status) and the faults;
- replay chunks: the compact replays (``replay.py``) of up to ``CHUNK`` games each, decoded only when a
  replay from that chunk is opened.

Compression: gzip level ``QUICK`` (6) by default, a few milliseconds for hundreds of replays; ``SMALLEST`` (9)
is about a tenth smaller and five times slower, so ``page.render`` uses it only for a report that would not
fit its size limit otherwise.

Size budget: with a ``replay_budget``, replays are added until their compressed text would pass that many
bytes (``page.render`` derives it from the file's size limit). When not all fit, games with a fault come first,
then games spread evenly over the tournament; the rest stay listed with their results and a note that their
replay was left out (``referee report`` prints how many).
"""

from __future__ import annotations

import base64
import gzip
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from referee.report.model import Tournament

CHUNK = 200
#: gzip levels: quick (the default) and smallest (for a report near its size limit).
QUICK, SMALLEST = 6, 9


@dataclass(frozen=True, slots=True)
class Packed:
    """The page's blobs: the index and the replay chunks (base64 text), and how many replays were embedded."""

    index: str
    chunks: tuple[str, ...]
    embedded: int
    available: int


def pack_blob(value: Any, level: int = SMALLEST) -> str:
    """JSON → gzip (at ``level``) → base64 text."""
    return _pack_json(json.dumps(value, separators=(",", ":"), ensure_ascii=False), level)


def _pack_json(text: str, level: int) -> str:
    return base64.b64encode(gzip.compress(text.encode(), compresslevel=level, mtime=0)).decode("ascii")


def _replay_json(replay: dict[str, Any] | str | None) -> str:
    """A game's replay as JSON text: as stored (already compact JSON), or a dict made from its log encoded."""
    return replay if isinstance(replay, str) else json.dumps(replay, separators=(",", ":"))


def unpack_blob(text: str) -> Any:
    """The inverse of ``pack_blob`` (tests and tools read a report's data back with it)."""
    return json.loads(gzip.decompress(base64.b64decode(text)))


def pack(t: Tournament, replay_budget: int | None = None, *, level: int = QUICK) -> Packed:
    """Pack the tournament for the page, compressed at gzip ``level``: every replay, or as many as ``replay_budget``
    allows (see module doc)."""
    with_replay = [i for i, g in enumerate(t.games) if g.replay is not None]
    faulted = {f.game for f in t.faults}
    chosen = _choose(t, with_replay, faulted, len(with_replay))
    chunks = _chunks(t, chosen, level)
    size = sum(len(c) for c in chunks)
    while replay_budget is not None and size > replay_budget and chosen:
        keep = max(0, int(len(chosen) * replay_budget / size * 0.97) - 1)
        chosen = _choose(t, with_replay, faulted, keep)
        chunks = _chunks(t, chosen, level)
        size = sum(len(c) for c in chunks)
    where = {}
    for c in range(len(chunks)):
        for j, gi in enumerate(chosen[c * CHUNK : (c + 1) * CHUNK]):
            where[gi] = (c, j)
    games = []
    for i, g in enumerate(t.games):
        loc = where.get(i)
        note = g.replay_note
        if loc is None and g.replay is not None:
            note = "replay left out of this report to keep it small"
        games.append(
            {
                "key": g.key,
                "label": g.label,
                "seats": list(g.seats),
                "scores": list(g.scores),
                "ranks": list(g.ranks),
                "forfeits": [s for s, f in enumerate(g.forfeits) if f],
                "seed": None if g.seed is None else str(g.seed),  # 63-bit: beyond exact JS numbers
                "replay": list(loc) if loc else None,
                "note": note,
            }
        )
    index = {
        "entrants": [{"key": e.key, "name": e.name} for e in t.entrants],
        "games": games,
        "faults": [
            {"game": f.game, "seat": f.seat, "kind": f.kind, "detail": f.detail, "round": f.round, "turn": f.turn}
            for f in t.faults
        ],
    }
    return Packed(pack_blob(index, level), tuple(chunks), len(chosen), len(with_replay))


def _choose(t: Tournament, candidates: Sequence[int], faulted: set[int], keep: int) -> list[int]:
    """``keep`` game indexes from ``candidates``: faulted games first, then evenly spread; in game order."""
    if keep >= len(candidates):
        return list(candidates)
    first = [i for i in candidates if t.games[i].key in faulted][:keep]
    rest = [i for i in candidates if t.games[i].key not in faulted]
    room = keep - len(first)
    spread: list[int] = []
    if room > 0 and rest:
        step = len(rest) / room
        spread = sorted({rest[min(len(rest) - 1, int(k * step))] for k in range(room)})
    return sorted(first + spread)


def _chunks(t: Tournament, chosen: list[int], level: int) -> list[str]:
    """The replay chunks: each a JSON list of up to ``CHUNK`` replays, the stored ones spliced in as they are."""
    return [
        _pack_json("[" + ",".join(_replay_json(t.games[i].replay) for i in chosen[c : c + CHUNK]) + "]", level)
        for c in range(0, len(chosen), CHUNK)
    ]
