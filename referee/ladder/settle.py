"""A played block, settled: its games turned into what the store commits in one transaction, and the versions'
transitions that follow from it.

Each version's total over the block's rotations gives its matchpoints and relative score on the block
(``standing.block_outcome_shares``) and its rank for the live rating (``rating.block_ranks``: a version that
forfeited below every one that did not). A version in placement whose last placement block this was is ranked.
Then the faults rule: a version that forfeited in more than ``suspend_share`` of its latest ``recent_games`` games
(once it has played that many, or fewer if it forfeited too many even so) is suspended, with the reason shown to
its author. A forfeit is the offender's alone: the others' games count as played. Both moves are guarded
(``model.VERSION_TRANSITIONS``): a version retired while the block was played stays retired.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from referee.ladder.config import FaultsSection
from referee.ladder.model import Block, SeatRecord, Version, VersionState
from referee.ladder.rating import LiveRating, block_ranks
from referee.ladder.standing import block_outcome_shares
from referee.ladder.store import GameRow, LadderStore

__all__ = ["Settled", "settle_block"]


@dataclass(frozen=True, slots=True)
class Settled:
    """What a block changed: each version's result on it, the new live ratings, who was ranked or suspended."""

    results: tuple[SeatRecord, ...]
    ratings: dict[int, tuple[float, float]]
    ranked: tuple[int, ...]
    suspended: dict[int, str]
    faulting: dict[int, str] = field(default_factory=dict)  # versions that started faulting (``notices``), and how


def settle_block(
    store: LadderStore,
    rating: LiveRating,
    block: Block,
    games: Sequence[GameRow],
    versions: dict[int, Version],
    faults: FaultsSection,
) -> Settled:
    """Commit ``block``'s ``games`` (one per rotation) with ``versions`` (its seats' versions as they stand). Raises
    ``ValueError`` when the games are not one per rotation of the block's seats, ``LadderStoreError`` when the store
    cannot be written (the block then stays in play, and is voided and played again)."""
    seats = block.seats
    if sorted(g.rotation for g in games) != list(range(len(seats))) or any(
        sorted(g.seats) != sorted(seats) for g in games
    ):
        raise ValueError(f"block {block.id}: the games are not one per seat rotation of its table")
    totals: Counter[int] = Counter()
    forfeits: Counter[int] = Counter()
    for g in games:
        for seat, vid in enumerate(g.seats):
            totals[vid] += g.scores[seat]
            forfeits[vid] += int(g.forfeits[seat])
    shares = block_outcome_shares([totals[v] for v in seats], [forfeits[v] for v in seats], len(games))
    results = tuple(
        SeatRecord(v, versions[v].key, totals[v], len(games), forfeits[v], mp, rel)
        for v, (mp, rel) in zip(seats, shares, strict=True)
    )
    ranks = block_ranks([totals[v] for v in seats], [forfeits[v] for v in seats])
    current = {v: None if versions[v].mu is None else (versions[v].mu, versions[v].sigma) for v in seats}
    ratings = rating.update(current, dict(zip(seats, ranks, strict=True)))  # type: ignore[arg-type]
    done = [v for v in seats if versions[v].state == VersionState.PLACEMENT and versions[v].placement_left <= 1]
    transitions = {v: (VersionState.RANKED, "placement done") for v in done}
    moved = store.commit_block(block.id, games, results, ratings, transitions)
    ranked = tuple(v for v in done if v in moved)  # not one retired or suspended while the block was played
    suspended = {}
    for v in seats:
        if forfeits[v] == 0:
            continue
        reason = fault_reason(store, v, faults)
        if reason is not None and store.move_version(v, VersionState.SUSPENDED, reason):
            suspended[v] = reason
    faulting = _started_faulting(store, block, games, forfeits, suspended, faults)
    return Settled(results, ratings, ranked, suspended, faulting)


def _started_faulting(
    store: LadderStore,
    block: Block,
    games: Sequence[GameRow],
    forfeits: Counter[int],
    suspended: dict[int, str],
    faults: FaultsSection,
) -> dict[int, str]:
    """The versions that forfeited in ``block`` and in none of their recent games before it (not suspended by it),
    each with a line saying how (``notices``)."""
    out = {}
    for v in block.seats:
        if forfeits[v] == 0 or v in suspended or store.recent_forfeits(v, faults.recent_games)[0] != forfeits[v]:
            continue
        kinds = Counter(f.kind for g in games for f in g.faults if g.seats[f.seat] == v)
        said = ", ".join(f"{k} {n}" for k, n in kinds.most_common())
        out[v] = f"forfeited {forfeits[v]} of its {len(games)} games in block {block.id}" + (said and f": {said}")
    return out


def fault_reason(store: LadderStore, version_id: int, faults: FaultsSection) -> str | None:
    """Why the version is to be suspended for its faults, or None (see the module's docstring)."""
    lost, games = store.recent_forfeits(version_id, faults.recent_games)
    limit = faults.suspend_share * faults.recent_games
    if lost > limit or (games >= faults.recent_games and lost > faults.suspend_share * games):
        kinds = store.fault_kinds(version_id)
        said = ", ".join(f"{k} {n}" for k, n in sorted(kinds.items(), key=lambda kv: -kv[1]))
        return (
            f"forfeited {lost} of its last {games} games (more than {faults.suspend_share:.0%} of "
            f"{faults.recent_games}); faults: {said}"
        )
    return None
