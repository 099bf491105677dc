"""The official standing fitted to the blocks: it knows who met whom (a biased schedule does not fool it), it is
exactly reproducible from the ladder's export, its joint rank intervals hold outside the model it fits, and the
simulated ladder it is measured on plays duplicate blocks."""

from __future__ import annotations

import random
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import main
from referee.ladder.simulate import SimulatedLadder, SimVersion
from referee.ladder.standing import official_standing
from referee.ladder.strengths import BlockSeat, fit_strengths, seats_of

WEIGHTS = {2: 1.0, 3: 1.0, 4: 2.0}


def test_four_equal_versions_without_noise_tie_on_every_simulated_block(tmp_path: Path) -> None:
    config = "[games]\ntable_sizes = [4]\ntable_weights = [1.0]\n"
    versions = [SimVersion(f"e{i}", 0.0) for i in range(4)]
    sim = SimulatedLadder(tmp_path / "s", config, versions, jobs=1, noise=0.0, seed=3)
    try:
        sim.run(blocks=5)
        rows = sim.store.standing_blocks([v.id for v in sim.store.versions()])
        by_block: dict[int, list[int]] = defaultdict(list)
        for block, _, total, _ in rows:
            by_block[block].append(total)
        assert len(by_block) == 5
        for totals in by_block.values():  # the card luck stays with the seat: every version plays every seat
            assert len(set(totals)) == 1, totals
    finally:
        sim.close()


def test_the_standing_is_reproduced_exactly_from_the_export(tmp_path: Path) -> None:
    versions = [SimVersion(f"e{i}", s) for i, s in enumerate([0.0, 0.5, 1.0, 2.0, 2.1, 4.0])]
    sim = SimulatedLadder(tmp_path / "s", "", versions, jobs=2, game_seconds=10, seed=11)
    try:
        sim.run(blocks=150)
        board = sim.ladder.leaderboard()
        exported = list(sim.store.export_games())
        keys = {v.key: v.id for v in sim.store.versions()}
        field = [r.version.id for r in board.rows]
    finally:
        sim.close()
    totals: dict[tuple[int, int], list[int]] = {}
    for game in exported:  # what anyone downloading /api/export.jsonl has
        for seat in game["seats"]:
            t = totals.setdefault((game["block"], keys[seat["version"]]), [0, 0])
            t[0] += seat["score"]
            t[1] += int(seat["forfeit"])
    rows = [(b, v, t, f) for (b, v), (t, f) in totals.items()]
    random.Random(1).shuffle(rows)
    again = official_standing(seats_of(rows), field, WEIGHTS)
    assert [r.official for r in board.rows] == again
    assert all(r.opponents == 5 for r in again)


def _pair_block(rng: random.Random, a: int, b: int, strength: dict[int, float]) -> list[BlockSeat]:
    """A 2-seat block whose winner follows Bradley-Terry: the winner totals 0, the loser 1."""
    p = 1 / (1 + 2.718281828459045 ** (strength[b] - strength[a]))
    won = rng.random() < p
    return [(a, 0 if won else 1, 0), (b, 1 if won else 0, 0)]


def test_a_biased_schedule_misleads_the_mean_matchpoints_but_not_the_fit() -> None:
    # A (1.0) meets only the strong S1 and S2 (2.0); B (0.5) only the weak W1 and W2 (-1.0); the strong and the weak
    # meet each other, so the field is connected
    strength = {1: 1.0, 2: 0.5, 3: 2.0, 4: 2.0, 5: -1.0, 6: -1.0}
    rng = random.Random(7)
    blocks: dict[int, list[BlockSeat]] = {}
    schedule = [(1, 3), (1, 4), (2, 5), (2, 6), (3, 5), (4, 6), (3, 6), (4, 5), (3, 4), (5, 6)]
    for n in range(3000):
        a, b = schedule[n % len(schedule)]
        blocks[n] = _pair_block(rng, a, b, strength)
    mean = {v: 0.0 for v in strength}
    for seats in blocks.values():
        for v, total, _ in seats:
            mean[v] += (1 - total) / 600
    assert mean[2] > mean[1] + 0.3  # B's mean matchpoints are far above A's: it only met the weak
    standing = official_standing(blocks, list(strength), {2: 1.0})
    place = {r.version_id: r for r in standing}
    assert [r.version_id for r in standing][:2] == [3, 4] or [r.version_id for r in standing][:2] == [4, 3]
    assert place[1].place < place[2].place
    assert place[1].rank_interval[1] < place[2].rank_interval[0]  # A is proven above B
    assert place[1].matchpoints is not None and place[1].matchpoints_ci95 is not None
    lo, hi = place[1].matchpoints_ci95
    fit = fit_strengths(blocks)
    # A's true expected matchpoints against the other five, at 2 seats
    truth = sum(1 / (1 + 2.718281828459045 ** (strength[j] - 1.0)) for j in strength if j != 1) / 5
    assert lo <= truth <= hi and fit.scale == {2: 1.0}


def _laplace(rng: random.Random, scale: float) -> float:
    return rng.expovariate(1 / scale) * (1 if rng.random() < 0.5 else -1)


@pytest.mark.parametrize("seed", [1])
def test_joint_rank_intervals_hold_on_a_windowed_schedule_with_heavy_tailed_luck(seed: int) -> None:
    # 8 versions, tables of 2 to 4 drawn mostly among neighbours in strength (a matchmaker's windows), a late
    # strong newcomer with a quarter of the blocks, luck with heavy (Laplace) tails: not the fitted model's shape
    truth = [0.0, 0.3, 0.6, 1.2, 1.3, 2.0, 2.6, 3.2]
    rng = random.Random(seed)
    held = 0
    runs = 30
    for _ in range(runs):
        blocks: dict[int, list[BlockSeat]] = {}
        for n in range(400):
            k = rng.choice([2, 3, 4, 4])
            pool = list(range(7)) if n < 300 else list(range(8))
            centre = rng.choice(pool)
            near = sorted(pool, key=lambda v: abs(v - centre) + rng.random() * 3)[:k]
            blocks[n] = [(v, round(10 * (-k * truth[v] + sum(_laplace(rng, 2.0) for _ in range(k)))), 0) for v in near]
        standing = official_standing(blocks, list(range(8)), WEIGHTS)
        true_rank = {v: 8 - v for v in range(8)}
        held += all(r.rank_interval[0] <= true_rank[r.version_id] <= r.rank_interval[1] for r in standing)
    assert held >= runs - 3  # 95% joint: 27 of 30 or more (a miss of 4 has chance < 6% at 95%)


def test_status_shows_the_figure_its_intervals_the_opponents_met_and_how_it_is_made(tmp_path: Path) -> None:
    versions = [SimVersion(f"e{i}", s) for i, s in enumerate([0.0, 1.0, 3.0])]
    sim = SimulatedLadder(tmp_path / "s", "", versions, jobs=1, game_seconds=10, seed=4)
    try:
        sim.run(blocks=40)
    finally:
        sim.close()
    out = CliRunner().invoke(main, ["ladder", "status", str(tmp_path / "s")], env={"COLUMNS": "200"})
    assert out.exit_code == 0, out.output
    assert "opponents" in out.output and "rank 95%" in out.output
    assert "predicted from a Bradley-Terry fit" in " ".join(out.output.split())
    row = next(line for line in out.output.splitlines() if "e2#1" in line)
    assert "[" in row and " 2 " in row  # its figure's interval; it met the 2 others


def test_blocks_that_all_tie_give_a_standing_with_honest_intervals() -> None:
    # every pair tied at two table sizes: nothing tells the sharpness of the second size, nor any spread
    blocks: dict[int, list[BlockSeat]] = {
        1: [(1, 10, 0), (2, 10, 0)],
        2: [(1, 5, 0), (2, 5, 0), (3, 5, 0)],
        3: [(2, 7, 0), (3, 7, 0)],
    }
    standing = official_standing(blocks, [1, 2, 3], {2: 1.0, 3: 1.0})
    assert [r.matchpoints for r in standing] == [0.5, 0.5, 0.5]
    assert all(r.rank_interval == (1, 3) and not r.separated_from_next for r in standing)
    for r in standing:
        assert r.matchpoints_ci95 is not None and r.matchpoints_ci95[1] - r.matchpoints_ci95[0] > 0.2
