"""The official standing is a pure function of the stored blocks (any order gives the same standing), with the
deal as the unit; its rank intervals and separations say what the blocks settle, also for a skewed bot."""

from __future__ import annotations

import random
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from referee.ladder.simulate import SimulatedLadder, SimVersion
from referee.ladder.standing import (
    MP_UNIT,
    REL_UNIT,
    StandingSums,
    block_outcome_shares,
    block_outcome_units,
    official_standing,
)
from referee.ladder.strengths import seats_of

_blocks = st.lists(
    st.tuples(
        st.lists(st.integers(0, 5), min_size=2, max_size=4, unique=True),  # versions at the table
        st.lists(st.integers(-20, 60), min_size=4, max_size=4),  # their totals
        st.lists(st.integers(0, 1), min_size=4, max_size=4),  # forfeits
    ),
    min_size=1,
    max_size=40,
)


def _seats(blocks: list[tuple[list[int], list[int], list[int]]]) -> list[tuple[int, int, int, int]]:
    return [
        (b, v, total, lost)
        for b, (seats, totals, forfeits) in enumerate(blocks)
        for v, total, lost in zip(seats, totals, forfeits, strict=False)
    ]


WEIGHTS = {2: 1.0, 3: 1.0, 4: 2.0}


@settings(max_examples=40, deadline=None)
@given(_blocks, st.randoms(use_true_random=False))
def test_the_standing_does_not_depend_on_the_order_of_the_blocks(blocks, rnd) -> None:  # type: ignore[no-untyped-def]
    rows = _seats(blocks)
    shuffled = rows[:]
    rnd.shuffle(shuffled)
    versions = list(range(6))
    standing = official_standing(seats_of(rows), versions, WEIGHTS)
    assert standing == official_standing(seats_of(shuffled), versions, WEIGHTS)
    assert standing == official_standing(seats_of(rows), versions[::-1], WEIGHTS)


def test_a_forfeit_ranks_below_every_seat_that_did_not_forfeit() -> None:
    shares = block_outcome_shares([10, 50, 30], [1, 0, 0], 3)
    assert [mp for mp, _ in shares] == [0.0, 0.5, 1.0]


def test_rank_intervals_cover_the_true_ranks_with_a_skewed_bot_and_close_rivals(tmp_path: Path) -> None:
    rng = random.Random(5)
    strengths = [0.0, 0.3, 1.5, 3.0, 3.2, 6.0]
    versions = [SimVersion(f"e{i}", s, skew=0.3 if i == 3 else 0.0) for i, s in enumerate(strengths)]
    sim = SimulatedLadder(tmp_path / "s", "", versions, jobs=2, game_seconds=10, seed=rng.randrange(1000))
    try:
        sim.run(blocks=600)
        ranked = [v.id for v in sim.store.active_versions()]
        every = [v.id for v in sim.store.versions()]
        rows = [
            (b, v, round(mp * MP_UNIT), round(rel * REL_UNIT)) for b, v, mp, rel, _, _ in sim.store.block_outcomes()
        ]
        # the sums kept block by block are those of the stored blocks themselves: a pure function of them
        assert sim.store.standing_sums(every) == StandingSums.of(rows)
        standing = official_standing(seats_of(sim.store.standing_blocks(ranked)), ranked, WEIGHTS)
        assert [r.version.id for r in sim.ladder.leaderboard().rows] == [r.version_id for r in standing]
        # the skewed bot (strength 3.0 with a 30% chance of +25 a game) is really weaker than its strength says:
        # its true expected score is 3.0 - 0.3 * 25 = -4.5 points, below every other
        skewed = next(v for v in ranked if sim.truth[v].skew)
        expected = sorted(ranked, key=lambda v: -(sim.truth[v].strength - 25 * sim.truth[v].skew))
        truth = {v: r for r, v in enumerate(expected, start=1)}
        for row in standing:
            lo, hi = row.rank_interval
            assert lo <= truth[row.version_id] <= hi, (row, truth)
        assert standing[-1].version_id == skewed
        # strong gaps are settled: the best is separated from the second (6.0 against 3.2)
        assert standing[0].version_id == sim.true_order(ranked)[0] and standing[0].separated_from_next
    finally:
        sim.close()


def test_units_are_exact_for_every_table_size() -> None:
    for totals in ([10, 12], [10, 12, 12], [3, 9, 9, 40]):
        shares = block_outcome_shares(totals, [0] * len(totals), len(totals))
        units = block_outcome_units(totals, [0] * len(totals))
        for (mp, rel), (mpu, relu) in zip(shares, units, strict=True):
            assert mp * MP_UNIT == mpu and abs(rel * REL_UNIT - relu) < 1e-9
