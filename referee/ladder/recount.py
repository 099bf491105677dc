"""The ladder's derived rows derived again from its game rows: what ``referee audit`` checks besides the chain.

The hash chain covers each stored game's own rows (``games``, ``seats``, ``faults``) and its log. Everything else
the standing reads is derived from those rows when a block is committed: the block's state and table (``blocks``),
each version's result on it (``block_seats``: total, games, forfeits, matchpoints, relative score), the sums kept
for the standing (``version_sums``, ``pair_sums``, where the store keeps them), the versions' counters and the
ladder's (``meta`` blocks_done, games_done). ``recount`` derives each of them again from the game rows as they are
now and names every stored one that differs, in one line: which row, what it holds, what the games give. With the
chain holding the game rows to what was stored, an edit of any row that decides a place shows, whatever the
standing is computed from.

Not derived from games, so not checked here: a version's state (who is ranked), its live rating (for information;
it depends on the order blocks ended in) and the gates' records.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import astuple, dataclass, field
from itertools import groupby
from typing import Any

from referee.contest.chain import Findings
from referee.ladder.model import Block, BlockState, SeatRecord, Version
from referee.ladder.standing import MP_UNIT, REL_UNIT, PairSums, StandingSums, VersionSums, block_outcome_units
from referee.ladder.store import LadderStore

__all__ = ["recount"]


@dataclass(slots=True)
class _Block:
    """A block as its stored games give it: its table (rotation 0's seat order) and each version's figures."""

    table: tuple[int, ...] = ()
    rotations: int = 0
    total: Counter[int] = field(default_factory=Counter)
    games: Counter[int] = field(default_factory=Counter)
    forfeits: Counter[int] = field(default_factory=Counter)
    units: dict[int, tuple[int, int]] = field(default_factory=dict)  # version -> (matchpoints, relative) units


def recount(store: LadderStore, findings: Findings) -> int:
    """Check every derived row of ``store`` against its game rows, adding a line to ``findings`` for each row that
    differs; returns how many rows were checked. Raises ``LadderStoreError`` when the database cannot be read."""
    with store.snapshot():  # one state of the database while serve goes on writing
        versions = store.versions()
        keys = {v.id: v.key for v in versions}

        def key(vid: int) -> str:
            return keys.get(vid, f"version {vid}")

        played = dict(_blocks_of_games(store.game_seats()))
        try:
            blocks = store.blocks(limit=None)
        except ValueError as exc:  # a state that is none of the block states
            findings.problem(f"the blocks table (blocks): a row is unreadable ({exc})")
            blocks = []
        checked = _blocks(blocks, played, key, findings)
        checked += _results(store.blocks_results(None), played, key, findings)
        checked += _counters(store, versions, played, key, findings)
        return checked + _sums(store.standing_sums(list(keys)), played, key, findings)


def _blocks(blocks: list[Block], played: dict[int, _Block], key: Any, out: Findings) -> int:
    """Each block's state (done when its games are stored) and table (rotation 0's seats)."""
    for block in blocks:
        mine = played.get(block.id)
        if mine is None:
            if block.state == BlockState.DONE:
                out.problem(f"block {block.id} (blocks): stored as done, but none of its games is stored")
            continue
        if block.state != BlockState.DONE:
            out.problem(
                f"block {block.id} (blocks): stored as {block.state.value}, but its {mine.rotations} games are "
                "stored: done"
            )
        if not mine.units:
            out.problem(
                f"block {block.id} (games): {mine.rotations} of its {len(block.seats)} rotations are stored, so its "
                "results cannot be derived"
            )
        elif block.seats != mine.table:
            out.problem(
                f"block {block.id} (blocks): its table is stored as {_keys(block.seats, key)}; its games give "
                f"{_keys(mine.table, key)}"
            )
    for bid in sorted(set(played) - {b.id for b in blocks}):
        out.problem(f"block {bid} (blocks): gone, but its games are stored")
    return len(blocks)


def _results(stored: dict[int, tuple[SeatRecord, ...]], played: dict[int, _Block], key: Any, out: Findings) -> int:
    """Each version's result on each block (``block_seats``)."""
    checked = 0
    for bid, records in sorted(stored.items()):
        block = played.get(bid)
        for r in records:
            checked += 1
            if block is not None and not block.units:
                continue  # a block with games gone: named once (``_blocks``)
            if block is None or r.version_id not in block.units:
                out.problem(f"block {bid}, {r.key} (block_seats): a result stored for a version none of its games has")
                continue
            vid = r.version_id
            mp, rel = block.units[vid]
            want = (block.total[vid], block.games[vid], block.forfeits[vid], mp / MP_UNIT, rel / REL_UNIT)
            have = (r.total, r.games, r.forfeits, r.matchpoints, r.relative)
            said = _differences(("total", "games", "forfeits", "matchpoints", "relative"), have, want)
            if said:
                out.problem(f"block {bid}, {r.key} (block_seats): {said}")
    for bid, block in sorted(played.items()):
        listed = {r.version_id for r in stored.get(bid, ())}
        for vid in block.units:
            if vid not in listed:
                out.problem(f"block {bid}, {key(vid)} (block_seats): no result stored, but it played the block")
    return checked


def _blocks_of_games(rows: Iterable[tuple[int, int, int, int, int]]) -> Iterator[tuple[int, _Block]]:
    for bid, seats in groupby(rows, key=lambda r: int(r[0])):
        block = _Block()
        rotations = set()
        for _, rotation, vid, score, forfeit in seats:
            rotations.add(rotation)
            if rotation == 0:
                block.table += (vid,)
            block.total[vid] += score
            block.games[vid] += 1
            block.forfeits[vid] += int(forfeit)
        block.rotations = len(rotations)
        order = list(block.total)
        if block.rotations == len(order):  # a whole block (else the chain names the games gone)
            units = block_outcome_units([block.total[v] for v in order], [block.forfeits[v] for v in order])
            block.units = dict(zip(order, units, strict=True))
        yield bid, block


def _counters(store: LadderStore, versions: list[Version], played: dict[int, _Block], key: Any, out: Findings) -> int:
    """Each version's blocks, games and forfeits, and the ladder's blocks_done and games_done."""
    blocks: Counter[int] = Counter()
    games: Counter[int] = Counter()
    forfeits: Counter[int] = Counter()
    for block in played.values():
        blocks.update(block.games.keys())
        games.update(block.games)
        forfeits.update(block.forfeits)
    for v in versions:
        have = (v.blocks, v.games, v.forfeits)
        said = _differences(("blocks", "games", "forfeits"), have, (blocks[v.id], games[v.id], forfeits[v.id]))
        if said:
            out.problem(f"{v.key} (versions): {said}")
    counts = (("blocks_done", len(played)), ("games_done", sum(b.rotations for b in played.values())))
    for name, want in counts:
        kept = store.meta(name) or "0"
        if kept != str(want):
            out.problem(f"the ladder's {name} (meta): {kept} stored, its games give {want}")
    return len(versions) + len(counts)


def _sums(sums: StandingSums, played: dict[int, _Block], key: Any, out: Findings) -> int:
    """The standing's sums the store keeps (``version_sums``, ``pair_sums``)."""
    want = StandingSums.of((b, v, mp, rel) for b, block in played.items() for v, (mp, rel) in block.units.items())
    for vid in sorted(set(sums.versions) | set(want.versions)):
        x, y = sums.versions.get(vid, VersionSums()), want.versions.get(vid, VersionSums())
        said = _differences(("n", "mp", "mp2", "rel", "rel2"), astuple(x), astuple(y))
        if said:
            out.problem(f"{key(vid)}'s standing sums (version_sums): {said}")
    for a, b in sorted(set(sums.pairs) | set(want.pairs)):
        p, q = sums.pairs.get((a, b), PairSums()), want.pairs.get((a, b), PairSums())
        said = _differences(("n", "ab", "sa", "sb"), astuple(p), astuple(q))
        if said:
            out.problem(f"{key(a)} and {key(b)}'s shared sums (pair_sums): {said}")
    return len(sums.versions) + len(sums.pairs)


def _differences(names: tuple[str, ...], stored: Any, want: tuple[Any, ...]) -> str:
    """'name X stored, its games give Y' for each field that differs, joined; empty when none does."""
    out = []
    for name, have, should in zip(names, stored, want, strict=True):
        try:
            same = abs(float(have) - should) <= 1e-9 if isinstance(should, float) else have == should
        except (TypeError, ValueError):  # not even a number
            same = False
        if not same:
            out.append(f"{name} {have!r} stored, its games give {should!r}")
    return "; ".join(out)


def _keys(vids: Any, key: Any) -> str:
    return ", ".join(key(v) for v in vids)
