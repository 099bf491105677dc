"""A hash chain over stored games: results that cannot be edited, dropped or added to without it showing.

Every game a results store keeps gets a *link*: ``SHA-256`` of the previous link and of the game's two digests, its
*record* (the rows the store holds for it, as ``canonical`` JSON) and its *log* (the bytes of its game log,
uncompressed; ``"-"`` when it has none). The links follow the order in which the games were stored, starting from a
*genesis* that binds the chain to its tournament (``genesis``: the deal commitment and the parameters). The last
link, the *head*, is printed when a tournament ends, beside the revealed deal secret: whoever keeps it can later
re-derive the chain from the results folder (``audit``) and see every game whose row or log was changed since, every
game that is gone, and every game that was added.

Pure functions of bytes and strings: the SQLite store (``referee.tournament.store``) keeps the links in its
``chain`` table; the ladder's store can keep its own with the same functions.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "CHAIN_SCHEME",
    "NO_LOG",
    "ChainAudit",
    "ChainEntry",
    "Findings",
    "audit",
    "canonical",
    "digest",
    "genesis",
    "link",
]

#: The name of the scheme, stored with a store's chain (a later scheme gets a new name).
CHAIN_SCHEME = "sha256/v1"
#: The log digest of a game stored without a log.
NO_LOG = "-"
#: Problems named one by one; beyond this many only their number.
MAX_LISTED = 20


def digest(data: bytes) -> str:
    """``SHA-256`` of ``data``, in hex."""
    return hashlib.sha256(data).hexdigest()


def canonical(value: Any) -> bytes:
    """``value`` as canonical JSON (sorted keys, no spaces, UTF-8): the same bytes for the same rows, always."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def genesis(*parts: str) -> str:
    """The link before the first game: a digest of what the chain belongs to (a tournament's deal commitment and
    parameters), so that one tournament's chain cannot pass for another's."""
    return digest(canonical([f"referee-chain/{CHAIN_SCHEME}", *parts]))


def link(previous: str, record: str, log: str) -> str:
    """The link of a game after ``previous``: ``SHA-256`` of the three hex digests joined by newlines."""
    return digest(f"{previous}\n{record}\n{log}".encode("ascii"))


@dataclass(frozen=True, slots=True)
class ChainEntry:
    """One game as the chain holds it (``stored``: its position, the digests and link kept at storage time) beside
    what the store and the log hold now (``record``, ``log``: their digests recomputed; None when the game's rows or
    its log are gone)."""

    key: str
    position: int | None
    stored_record: str | None
    stored_log: str | None
    stored_link: str | None
    record: str | None
    log: str | None


@dataclass(slots=True)
class Findings:
    """Problems found, one line each: the first ``MAX_LISTED`` kept, the rest only counted (``more``)."""

    problems: list[str] = field(default_factory=list, kw_only=True)
    more: int = field(default=0, kw_only=True)

    @property
    def ok(self) -> bool:
        return not self.problems

    def problem(self, text: str) -> None:
        if len(self.problems) < MAX_LISTED:
            self.problems.append(text)
        else:
            self.more += 1


@dataclass(slots=True)
class ChainAudit(Findings):
    """What ``audit`` found: the head it re-derived, how many games it checked, how many of them were chained after
    the published head when growth is normal (``grown``: a ladder plays on after an epoch publishes its head), how
    many rows derived from the games were checked against them too (``derived``, by a ladder's audit), and one line
    per problem."""

    head: str
    games: int = 0
    grown: int = 0
    derived: int = 0


def audit(first: str, entries: Sequence[ChainEntry], head: str | None = None, *, grows: bool = False) -> ChainAudit:
    """Re-derive the chain from ``first`` (the genesis) over ``entries`` and name every game that differs from what
    was stored (its rows or its log changed), is missing (its rows gone, or its place in the chain), or was added
    (rows with no place in the chain, or places after the published ``head``). With ``grows`` (a ladder, which plays
    on after publishing a head) the games chained after ``head`` are counted in ``grown``, not named as added; they
    are still checked like every other game.

    Each stored link is checked against the one re-derived from the stored digests, and each stored digest against
    the one recomputed now; so an edit shows at its own game even when someone rewrote the links after it (and then
    the published head no longer matches).
    """
    result = ChainAudit(first)
    previous, expected = first, 1
    after_head = False
    for entry in sorted((e for e in entries if e.position is not None), key=lambda e: e.position or 0):
        place = entry.position or 0
        if place != expected:
            gap = list(range(expected, place))
            where = f"place {gap[0]}" if len(gap) == 1 else f"places {gap[0]} to {gap[-1]}"
            games = "games" if len(gap) > 1 else "game"
            result.problem(f"the {games} stored at {where} of the chain: gone (rows and links)")
        expected = place + 1
        result.games += 1
        if after_head and grows:
            result.grown += 1
        elif after_head:
            result.problem(f"{entry.key}: added after the published head")
        if entry.stored_link != link(previous, entry.stored_record or "", entry.stored_log or ""):
            result.problem(f"{entry.key}: its link in the chain is not the one its stored digests give")
        previous = entry.stored_link or ""
        after_head = after_head or previous == head
        if entry.record is None:
            result.problem(f"{entry.key}: missing (its rows are gone from the results)")
            continue
        if entry.record != entry.stored_record:
            result.problem(f"{entry.key}: its stored result differs from the one chained when it was stored")
        if entry.log != entry.stored_log:
            what = "is gone" if entry.log is None else "differs from the one chained when it was stored"
            result.problem(f"{entry.key}: its game log {what}")
    result.head = previous
    if head is not None and not after_head:
        result.problem(f"the chain's head is {previous}, not the published {head}")
    for entry in entries:
        if entry.position is None:
            result.problem(f"{entry.key}: added (it has no place in the chain)")
    return result
