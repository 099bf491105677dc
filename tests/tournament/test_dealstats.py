"""Statistics that know the deal: block outcomes, intervals over blocks, paired differences, separation, Holm."""

from __future__ import annotations

import random

import pytest

from referee.contest.block_stats import DealTally, block_outcomes, deal_standing, holm, mean_ci95, two_sided_p
from referee.contest.seating import games_per_block
from referee.tournament.standings import Tally
from referee.tournament.store import SeatRow


def test_block_outcomes_compare_totals_on_the_same_deal() -> None:
    out = block_outcomes({"a": 10, "b": 20, "c": 20, "d": 30}, games=4)
    assert out["a"].matchpoints == 1.0
    assert out["b"].matchpoints == pytest.approx(0.5)  # beat d, tied c, lost to a
    assert out["d"].matchpoints == 0.0
    # per game: a 2.5, b 5, c 5, d 7.5; table mean 5
    assert out["a"].relative == pytest.approx(-2.5)
    assert out["d"].relative == pytest.approx(2.5)
    assert sum(o.relative for o in out.values()) == pytest.approx(0.0)


def rotations(tally: DealTally, block: int, scores: dict[str, int]) -> None:
    """Feed a block as its games: every game gives each entrant its score (the deal, not the seat, decides)."""
    for _ in range(games_per_block(len(scores))):
        tally.add(block, game(scores))


def game(scores: dict[str, int], forfeited: frozenset[str] = frozenset()) -> list[SeatRow]:
    """A game's seats (ranks are not read by the deal statistics)."""
    return [SeatRow(n, s, 1, "crash" if n in forfeited else None) for n, s in scores.items()]


def test_incomplete_blocks_are_left_out() -> None:
    t = DealTally()
    rotations(t, 0, {"a": 1, "b": 5, "c": 9})
    t.add(1, game({"a": 1, "b": 5, "c": 9}))  # one rotation of three
    assert t.blocks == 1
    assert t.entrant("a").deals == 1


def test_figures_are_over_deals_not_games() -> None:
    t = DealTally()
    rng = random.Random(1)
    for block in range(40):
        rotations(t, block, {"a": rng.randint(0, 10), "b": rng.randint(5, 15)})
    a = t.entrant("a")
    assert a.deals == 40  # 80 games, 40 deals
    assert a.matchpoints_ci95 is not None and a.relative_score_ci95 is not None
    low, high = a.matchpoints_ci95
    assert 0 <= low < a.matchpoints < high <= 1
    pair = t.pair("a", "b")
    assert pair.deals == 40 and pair.score_diff is not None and pair.score_diff_ci95 is not None
    assert pair.score_diff_ci95[1] < 0, "a scores clearly less (better) than b on the same deals"
    both = t.pairs(["a", "b"])
    assert both["b"]["a"].score_diff == pytest.approx(-pair.score_diff)


def test_separation_needs_evidence_and_holm() -> None:
    t = DealTally()
    rng = random.Random(2)
    for block in range(60):
        rotations(t, block, {"strong": rng.randint(0, 6), "twin1": rng.randint(4, 12), "twin2": rng.randint(4, 12)})
    sep = t.separation(["strong", "twin1", "twin2"])
    assert sep[0][0] is True, "a clearly stronger entrant is separated from the next"
    assert sep[1][0] is False, "two copies of the same strength are not"
    few = DealTally()
    for block in range(3):
        rotations(few, block, {"x": 1, "y": 9})
    assert few.separation(["x", "y"])[0][0] is False, "three identical deals are no proof"


def test_holm_and_p_values() -> None:
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([]) == []
    assert two_sided_p(2.571, 5) == pytest.approx(0.05, abs=0.002)
    assert two_sided_p(2.042, 30) == pytest.approx(0.05, abs=0.002)
    mean, ci = mean_ci95([1.0, 2.0, 3.0])
    assert mean == 2.0 and ci == pytest.approx((2 - 4.303 / 3**0.5, 2 + 4.303 / 3**0.5), abs=1e-3)


def test_standings_carry_deal_fields_and_keep_todays() -> None:
    tally = Tally(["a", "b", "c"])
    for block in range(5):
        for r in range(3):
            seats = [("a", 3), ("b", 10), ("c", 20)]
            seats = seats[r:] + seats[:r]
            tally.add([SeatRow(n, s, 1 + sorted(x for _, x in seats).index(s), None) for n, s in seats], block)
    data = tally.standings().to_dict()
    assert data["format"] == "round-robin" and data["complete_deals"] == 5 and data["games"] == 15
    first = data["entrants"][0]
    for key in ("name", "games", "wins", "mean_score", "mean_score_ci95", "mean_rank", "forfeits", "rating"):
        assert key in first
    assert first["name"] == "a" and first["deals"] == 5 and first["matchpoints"] == 1.0
    assert first["separated_from_next"] is True
    assert data["entrants"][-1]["separated_from_next"] is None
    assert data["head_to_head_score_diff"]["a"]["c"]["score_diff"] == pytest.approx(-17.0)


def test_an_entrant_that_forfeited_in_a_block_beats_nobody_who_did_not() -> None:
    """The forfeit rule at the block level: one forfeited game of four (scored very low, so the counted score rule
    alone would leave the block total the best) puts the entrant below every entrant that played the block out."""
    t = DealTally()
    low = {"f": -40, "a": 10, "b": 12, "c": 30}
    t.add(0, game(low, frozenset({"f"})))
    for _ in range(3):
        t.add(0, game({"f": -40, "a": 10, "b": 12, "c": 30}))
    assert t.outcomes["f"][0].matchpoints == 0.0
    assert t.outcomes["a"][0].matchpoints == 1.0


def test_a_standing_from_blocks_gives_intervals_rank_intervals_and_separation() -> None:
    """``deal_standing`` (the ladder's official standing): blocks in, every figure over blocks out."""
    rng = random.Random(6)
    blocks = []
    for _ in range(40):
        deal = {
            "top": rng.randint(0, 6),
            "mid": rng.randint(5, 12),
            "low": rng.randint(10, 18),
            "low2": rng.randint(10, 18),
        }
        blocks.append([game(deal)] * 4)
    standing = deal_standing(blocks)
    assert standing.order[0] == "top" and standing.deals == 40
    assert standing.rank_interval["top"] == (1, 1) and standing.rank_interval["mid"] == (2, 2)
    assert standing.rank_interval["low"] == (3, 4) == standing.rank_interval["low2"], "two equal entrants share places"
    assert standing.separated[0][0] and standing.separated[1][0] and not standing.separated[2][0]
    ci = standing.entrants["top"].matchpoints_ci95
    assert ci is not None and ci[0] > 0.9
    assert standing.to_dict()["entrants"][0]["rank_interval"] == [1, 1]
    with pytest.raises(ValueError, match="different tables"):
        deal_standing([[game({"a": 1, "b": 2}), game({"a": 1, "c": 2})]])
