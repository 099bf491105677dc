"""What the ladder keeps, as plain frozen records, and the lifecycles of entrants, versions and blocks.

A version's lifecycle::

    submitted -> building -> gating -> placement -> ranked -> retired
          \\          \\          \\          \\          \\
           `----------`----------`-> failed   `-> suspended (faults; retired once a newer version replaces it)

``submitted`` waits for the gate (one per entrant at a time); ``building`` runs its build command; ``gating`` runs
the conformance suite; ``placement`` plays its first blocks against the ranked field; ``ranked`` plays on the
ladder. ``failed`` (build or gate) never plays a ranked game; its reasons are kept for its author. ``retired``
keeps its games and its last rating, frozen. ``VERSION_TRANSITIONS`` is the whole table: a version may be retired
from any state but ``failed``, at any moment, and it stays retired (a block it is playing then ends and counts,
but no block starts with it after) unless its author makes it active again (a rollback: back to ``placement`` or
``ranked``, its blocks and rating as they were). A block is ``playing`` from the moment it is chosen, then ``done``
(its games committed together) or ``void`` (stopped for a reason that is not a bot's: it is played again).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import TypeVar

__all__ = [
    "ACTIVE_STATES",
    "ENTRANT_TRANSITIONS",
    "VERSION_TRANSITIONS",
    "Block",
    "BlockKind",
    "BlockState",
    "Entrant",
    "EntrantState",
    "Epoch",
    "GameRecord",
    "GateRecord",
    "SeatRecord",
    "Version",
    "VersionState",
    "may_become",
]


class EntrantState(StrEnum):
    ACTIVE = "active"
    SUSPENDED = "suspended"  # by the organiser: none of its versions plays until reinstated
    RETIRED = "retired"  # left the contest: its versions are retired, its games kept


class VersionState(StrEnum):
    SUBMITTED = "submitted"
    BUILDING = "building"
    GATING = "gating"
    PLACEMENT = "placement"
    RANKED = "ranked"
    FAILED = "failed"
    SUSPENDED = "suspended"
    RETIRED = "retired"


#: The states of a version that plays blocks.
ACTIVE_STATES = frozenset({VersionState.PLACEMENT, VersionState.RANKED})
#: The states of a version waiting for, or in, its gate.
GATE_STATES = frozenset({VersionState.SUBMITTED, VersionState.BUILDING, VersionState.GATING})

_V = VersionState
#: The version lifecycle, whole: each state -> the states a version may move to from it. Every change of a
#: version's state is ``LadderStore.move_version``, which applies it only from a state listed here, in one guarded
#: UPDATE, so that whatever is written last cannot undo an organiser's retire or suspension: a gate that ends after
#: its version was retired, or a block that ends after one of its versions was, finds it retired and leaves it so.
#: ``building``/``gating`` -> ``submitted`` is ``serve`` restarting a gate it was stopped in; ``suspended`` ->
#: ``placement`` is a lifted suspension. ``retired`` -> ``placement``/``ranked`` is its author making an earlier version
#: active again (``rollback.activate``: only a version that passed its gate and was retired by a newer one or by
#: its author, back to where it was): every other move into ``placement`` or ``ranked`` names the states it comes
#: from (``only``), so that nothing but that choice brings a retired version back.
VERSION_TRANSITIONS: Mapping[VersionState, frozenset[VersionState]] = {
    _V.SUBMITTED: frozenset({_V.BUILDING, _V.GATING, _V.FAILED, _V.RETIRED}),
    _V.BUILDING: frozenset({_V.GATING, _V.FAILED, _V.RETIRED, _V.SUBMITTED}),
    _V.GATING: frozenset({_V.PLACEMENT, _V.FAILED, _V.RETIRED, _V.SUBMITTED}),
    _V.PLACEMENT: frozenset({_V.RANKED, _V.SUSPENDED, _V.RETIRED}),
    _V.RANKED: frozenset({_V.SUSPENDED, _V.RETIRED}),
    _V.SUSPENDED: frozenset({_V.PLACEMENT, _V.RETIRED}),
    _V.FAILED: frozenset(),
    _V.RETIRED: frozenset({_V.PLACEMENT, _V.RANKED}),
}

_S = TypeVar("_S", VersionState, EntrantState)

#: The entrant lifecycle: active <-> suspended (by the organiser, and lifted), either -> retired (for good).
ENTRANT_TRANSITIONS: Mapping[EntrantState, frozenset[EntrantState]] = {
    EntrantState.ACTIVE: frozenset({EntrantState.SUSPENDED, EntrantState.RETIRED}),
    EntrantState.SUSPENDED: frozenset({EntrantState.ACTIVE, EntrantState.RETIRED}),
    EntrantState.RETIRED: frozenset(),
}


def may_become(table: Mapping[_S, frozenset[_S]], target: _S) -> frozenset[_S]:
    """The states from which ``table`` allows a move to ``target``."""
    return frozenset(s for s, allowed in table.items() if target in allowed)


class BlockKind(StrEnum):
    PLACEMENT = "placement"  # chosen for a version in placement (its seed)
    RANKED = "ranked"


class BlockState(StrEnum):
    PLAYING = "playing"
    DONE = "done"
    VOID = "void"


@dataclass(frozen=True, slots=True)
class Entrant:
    id: int
    name: str
    state: EntrantState
    reason: str | None
    created_at: str


@dataclass(frozen=True, slots=True)
class Version:
    """One immutable version of an entrant: ``key`` (``name#number``) is what the tables and logs call it."""

    id: int
    entrant_id: int
    entrant: str
    number: int
    digest: str
    command: tuple[str, ...]
    build: tuple[str, ...] | None
    kind: str
    files: int
    size: int
    submitted_at: str
    state: VersionState
    reason: str | None
    state_at: str
    mu: float | None
    sigma: float | None
    blocks: int
    games: int
    forfeits: int
    placement_left: int

    @property
    def key(self) -> str:
        return f"{self.entrant}#{self.number}"

    @property
    def active(self) -> bool:
        return self.state in ACTIVE_STATES


@dataclass(frozen=True, slots=True)
class GateRecord:
    """The gate of a version: when it ran, whether it passed, the reasons (one line each) and the check report
    (``referee check --json``'s object), and where the build's output is."""

    version_id: int
    started_at: str
    finished_at: str | None
    passed: bool | None
    reasons: tuple[str, ...]
    report: str | None
    build_log: str | None


@dataclass(frozen=True, slots=True)
class Epoch:
    """An epoch's deal secret: committed (SHA-256) when it opens, revealed (``secret``) once it is closed and none
    of its blocks is in play any more."""

    id: int
    scheme: str
    commitment: str
    opened_at: str
    closed_at: str | None
    revealed_at: str | None
    secret: str | None  # None until revealed
    blocks: int
    chain_head: str | None = None  # the hash chain's last link when the epoch was revealed


@dataclass(frozen=True, slots=True)
class SeatRecord:
    """One version's part in one block: its total over the rotations, its matchpoint share and relative score
    (``referee.contest.block_stats.block_outcomes``), and its forfeits."""

    version_id: int
    key: str
    total: int
    games: int
    forfeits: int
    matchpoints: float
    relative: float


@dataclass(frozen=True, slots=True)
class Block:
    """A duplicate block: one deal (``seed``, from its epoch's secret) at one table, every seat rotation."""

    id: int
    epoch_id: int
    kind: BlockKind
    state: BlockState
    seats: tuple[int, ...]  # version ids in the seat order of the first rotation
    seed: int
    attempts: int
    created_at: str
    finished_at: str | None
    reason: str | None
    results: tuple[SeatRecord, ...] = ()


@dataclass(frozen=True, slots=True)
class GameRecord:
    """A stored game of a block: its id, rotation, seats (version ids), scores, ranks, forfeits and log."""

    id: str
    block_id: int
    rotation: int
    seats: tuple[int, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    forfeits: tuple[bool, ...]
    log_path: str | None
    duration: float
    finished_at: str
