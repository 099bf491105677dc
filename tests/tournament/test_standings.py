"""Standings from games: wins split on shared first places, mean score and its CI, ranks, forfeits, h2h, ratings."""

from __future__ import annotations

import io
import math
import random
import statistics

import pytest

from referee.tournament.standings import Tally, t_quantile_975
from referee.tournament.store import SeatRow


def seats(*rows: tuple[str, int, int] | tuple[str, int, int, str]) -> list[SeatRow]:
    return [SeatRow(r[0], r[1], r[2], r[3] if len(r) > 3 else None) for r in rows]  # type: ignore[misc]


GAMES = [
    seats(("a", -3, 1), ("b", 4, 2), ("c", 9, 3)),
    seats(("b", 2, 1), ("c", 2, 1), ("a", 5, 3)),
    seats(("c", -1, 1), ("a", 0, 2), ("b", 7, 3, "timeout")),
    seats(("a", 1, 1), ("b", 1, 1), ("c", 1, 1)),
]


def by_name(tally: Tally) -> dict[str, object]:
    return {e.name: e for e in tally.standings().entrants}


def test_counts_wins_means_ranks_forfeits() -> None:
    tally = Tally(["a", "b", "c"], {"a": "Alpha"})
    for g in GAMES:
        tally.add(g)
    s = tally.standings()
    assert s.games == 4
    e = {x.name: x for x in s.entrants}
    assert e["a"].games == e["b"].games == e["c"].games == 4
    assert e["a"].wins == pytest.approx(1 + 1 / 3)
    assert e["b"].wins == pytest.approx(1 / 2 + 1 / 3)
    assert e["c"].wins == pytest.approx(1 / 2 + 1 + 1 / 3)
    assert sum(x.wins for x in s.entrants) == pytest.approx(4)
    assert e["a"].mean_score == pytest.approx((-3 + 5 + 0 + 1) / 4)
    assert e["b"].mean_rank == pytest.approx((2 + 1 + 3 + 1) / 4)
    assert e["b"].forfeits == {"timeout": 1}
    assert e["a"].forfeits == {}
    assert e["a"].declared_name == "Alpha" and e["b"].declared_name is None
    assert e["a"].mean_score_ci95 is None, "games without a block (a deal) give no interval: games are not the unit"


def test_the_mean_score_interval_is_over_deals() -> None:
    """Issue 24: ``mean_score_ci95`` is a t interval over complete blocks (each block's mean score per game one
    observation), not over the games that share a deal."""
    tally = Tally(["a", "b"])
    per_block = []
    rng = random.Random(4)
    for block in range(6):
        mine, theirs = rng.randint(-5, 9), rng.randint(-5, 9)
        for rotation in range(2):  # both seats of one deal: a scores the same on each (the deal decides)
            tally.add(
                seats(("a", mine, 1 if mine <= theirs else 2), ("b", theirs, 1 if theirs <= mine else 2))[
                    :: 1 - 2 * rotation
                ],
                block,
            )
        per_block.append(mine)
    e = by_name(tally)["a"]
    half = t_quantile_975(5) * statistics.stdev(per_block) / math.sqrt(6)
    centre = statistics.mean(per_block)
    assert e.mean_score_ci95 == pytest.approx((centre - half, centre + half))  # type: ignore[attr-defined]


def test_head_to_head_shares() -> None:
    tally = Tally(["a", "b", "c", "d"])
    for g in GAMES:
        tally.add(g)
    s = tally.standings()
    # a ahead of b in games 1 and 3 (of 4 shared); tie in game 4 is not "ahead".
    assert s.head_to_head["a"]["b"] == pytest.approx(2 / 4)
    assert s.head_to_head["b"]["a"] == pytest.approx(1 / 4)
    assert s.met["a"]["b"] == 4
    assert s.head_to_head["a"]["d"] is None and s.met["a"]["d"] == 0
    d = {x.name: x for x in s.entrants}["d"]
    assert d.games == 0 and d.mean_score is None and d.mean_score_ci95 is None and d.mean_rank is None


def test_ratings_deterministic_and_reward_winning() -> None:
    def run(order: list[list[SeatRow]]) -> dict[str, float]:
        t = Tally(["a", "b", "c"])
        for g in order:
            t.add(g)
        return {e.name: e.rating for e in t.standings().entrants}

    assert run(GAMES) == run(GAMES)
    assert run(GAMES) != run(list(reversed(GAMES))), "updates are order-sensitive, hence done in game-id order"
    winner = [seats(("a", 0, 1), ("b", 5, 2), ("c", 9, 3))] * 10
    t = Tally(["a", "b", "c"])
    for g in winner:
        t.add(g)
    order = [e.name for e in t.standings().entrants]
    assert order == ["a", "b", "c"]
    ratings = run(winner)
    assert ratings["a"] > ratings["b"] > ratings["c"]
    # A fresh tally rates everyone 0 (mu 25 - 3 sigma 8.33).
    fresh = Tally(["x", "y"]).standings()
    assert [e.rating for e in fresh.entrants] == pytest.approx([0.0, 0.0], abs=1e-9)


def test_json_and_csv_shapes() -> None:
    tally = Tally(["a", "b", "c"])
    for g in GAMES:
        tally.add(g)
    data = tally.standings().to_dict()
    assert data["games"] == 4
    required = {"name", "games", "wins", "mean_score", "mean_score_ci95", "mean_rank", "forfeits", "rating"}
    assert all(required <= set(e) for e in data["entrants"])
    assert set(data["head_to_head"]) == {"a", "b", "c"}
    lines = tally.standings().to_csv().splitlines()
    assert lines[0].startswith("place,name,declared_name,games,wins,mean_score,ci95_low,ci95_high,mean_rank")
    assert len(lines) == 4
    assert any("timeout:1" in line for line in lines)


def test_t_quantiles() -> None:
    assert t_quantile_975(1) == pytest.approx(12.706)
    assert t_quantile_975(30) == pytest.approx(2.042)
    assert t_quantile_975(60) == pytest.approx(2.000, abs=0.003)
    assert t_quantile_975(10**6) == pytest.approx(1.96, abs=0.001)
    with pytest.raises(ValueError):
        t_quantile_975(0)


def test_the_terminal_table_explains_fractional_wins_when_there_are_some() -> None:
    from rich.console import Console

    from referee.tournament import WINS_NOTE, standings_table

    def shown(games: list[list[SeatRow]]) -> str:
        tally = Tally(["a", "b", "c"])
        for g in games:
            tally.add(g)
        console = Console(width=400, record=True, file=io.StringIO())
        console.print(standings_table(tally.standings()))
        return " ".join(console.export_text().split())

    assert WINS_NOTE in shown(GAMES)  # shared first places: wins of 1.3, 0.8, 1.8
    assert "1/k" not in shown(GAMES[:1] + GAMES[2:3])  # whole wins only: no footnote


def test_fixed_formats_rank_by_matchpoints_over_deals_not_by_rating() -> None:
    """The deal, not the game, is the unit: the standings of a fixed format go by mean matchpoints over complete
    deals (the figure the separation of places tests), not by the per-game rating, and an entrant without a
    complete deal comes last. On these games (8 deals of 4 rotations, seeded) the two orders disagree."""
    import random

    rng = random.Random(2)
    names = ["a", "b", "c", "d"]
    tally = Tally([*names, "late"])
    for block in range(8):
        base = {n: rng.randint(0, 20) for n in names}
        for _ in range(4):
            score = {n: base[n] + rng.randint(-8, 8) for n in names}
            tally.add(seats(*((n, score[n], 1 + sum(score[m] < score[n] for m in names)) for n in names)), block)
    tally.add(seats(("late", 0, 1), ("a", 5, 2), ("b", 9, 3)), 99)  # one rotation of three: no complete deal
    s = tally.standings()
    by_rating = [e.name for e in sorted(s.entrants, key=lambda e: -e.rating)]
    assert by_rating[:3] == ["d", "c", "a"], "the case where the orders disagree"
    assert [e.name for e in s.entrants] == ["a", "c", "d", "b", "late"]
    points = [e.deals.matchpoints for e in s.entrants[:4]]
    assert points == sorted(points, reverse=True) and s.entrants[4].deals.matchpoints is None  # type: ignore[type-var]
    assert [e["name"] for e in s.to_dict()["entrants"]] == ["a", "c", "d", "b", "late"]
    assert ",".join(line.split(",")[1] for line in s.to_csv().splitlines()[1:]) == "a,c,d,b,late"


def test_the_terminal_table_never_squeezes_a_column_to_nothing() -> None:
    """A long declared name on an 80-column terminal: the table keeps fewer columns whole (and says so) instead of
    shrinking the place, the names and the forfeits to nothing; a wide terminal shows every column."""
    from rich.console import Console

    from referee.tournament import standings_table
    from referee.tournament.display import NARROW_NOTE

    tally = Tally(["a", "b", "c"], declared={"a": "a declared name that goes on for quite a while", "b": "bee"})
    for g in GAMES:
        tally.add(g)

    def shown(width: int) -> tuple[list[str], str]:
        console = Console(width=width, record=True, file=io.StringIO())
        console.print(standings_table(tally.standings(), width=width))
        text = console.export_text()
        assert max(len(line) for line in text.splitlines()) <= width
        return text.splitlines(), " ".join(text.split())

    lines, flat = shown(80)
    assert NARROW_NOTE in flat
    for place, name in enumerate(tally.standings().entrants, start=1):
        assert any(line.startswith(f"│ {place} │ {name.name} ") for line in lines)
    assert "timeout 1" in flat
    lines, flat = shown(220)
    assert NARROW_NOTE not in flat
    for column in ("#", "entrant", "declared", "games", "wins", "mean score", "mean rank", "forfeits", "rating"):
        assert f" {column} " in lines[2]
    assert "a declared name that goes on for" in flat  # folded at DECLARED_WIDTH, not cut


@pytest.mark.parametrize("seed", range(6))
def test_the_quick_width_bound_is_never_below_richs_measurement(seed: int) -> None:
    """``standings_table`` skips rich's measurement when its quick bound fits: the bound must never be under what
    rich measures, for names and declared names of any length and any character width."""
    from referee.tournament.display import NARROW_COLUMNS, _narrowest, _standings_table, _widest, head_to_head_table

    rng = random.Random(seed)
    alphabet = "ab xyz-_é界😀\u200b"
    names = ["".join(rng.choice(alphabet) for _ in range(rng.randint(1, 48))) for _ in range(rng.randint(2, 6))]
    names = list(dict.fromkeys(names))
    declared = {
        n: "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 60))) for n in names if rng.random() < 0.5
    }
    tally = Tally(names, declared=declared)
    for block in range(3):
        table = rng.sample(names, 2)
        tally.add(seats(*((n, rng.randint(0, 30), 1 + i) for i, n in enumerate(table))), block)
    s = tally.standings()
    for keep in (None, NARROW_COLUMNS):
        built = _standings_table(s, s.entrants, None, keep=keep)
        assert _widest(built) >= _narrowest(built)
    assert _widest(head_to_head_table(s)) >= _narrowest(head_to_head_table(s))
