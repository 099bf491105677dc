"""The round-robin schedule: counts, duplicate deals, seat balance, determinism and errors."""

from __future__ import annotations

from collections import Counter
from math import comb

import pytest

from referee.contest.deal_secret import DealSecret
from referee.contest.errors import ScheduleError
from referee.contest.schedule import default_table_size, make_schedule
from referee.contest.seating import games_per_block

NAMES = ["a", "b", "c", "d", "e", "f"]
SECRET = DealSecret(b"k" * 32)


@pytest.mark.parametrize("k", [2, 3, 4])
@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("repeats", [1, 3])
def test_counts_and_balance(n: int, k: int, repeats: int) -> None:
    names = NAMES[:n]
    if k > n:
        with pytest.raises(ScheduleError, match="larger than the number of entrants"):
            make_schedule(names, table_size=k, repeats=repeats, seed=1, secret=SECRET)
        return
    batches = make_schedule(names, table_size=k, repeats=repeats, seed=1, secret=SECRET)
    games = [g for b in batches for g in b.games]
    per_block = games_per_block(k)  # every rotation of the block's cyclic order
    assert per_block == k
    assert len(batches) == comb(n, k) * repeats
    assert len(games) == comb(n, k) * per_block * repeats
    # Every entrant plays every seat equally often: C(n-1, k-1) tables per repeat, each seat per_block / k times.
    per_seat = Counter((name, seat) for g in games for seat, name in enumerate(g.seats))
    assert set(per_seat.values()) == {comb(n - 1, k - 1) * repeats * per_block // k}
    assert len(per_seat) == n * k
    # Every pair of entrants shares the same number of games.
    pairs = Counter(frozenset((a, b)) for g in games for a in g.seats for b in g.seats if a < b)
    assert set(pairs.values()) == {comb(n - 2, k - 2) * per_block * repeats}


def test_duplicate_format_and_ids() -> None:
    batches = make_schedule(NAMES[:4], table_size=3, repeats=2, seed=7, secret=SECRET)
    seeds = [b.games[0].seed for b in batches]
    assert len(set(seeds)) == len(batches), "every table and repeat gets a fresh deal"
    for b in batches:
        assert {g.seed for g in b.games} == {b.games[0].seed}, "all rotations of a table share one deal"
        assert {g.seats for g in b.games} == {b.entrants[i:] + b.entrants[:i] for i in range(3)}
        assert all(g.batch == b.batch for g in b.games)
    ids = [g.game_id for b in batches for g in b.games]
    assert ids == sorted(ids) and len(set(ids)) == len(ids)
    assert ids[0] == "g000001" and ids[-1] == f"g{len(ids):06d}"
    assert [g.ordinal for b in batches for g in b.games] == list(range(1, len(ids) + 1))


def test_same_seed_same_schedule_other_seed_other_deals() -> None:
    one = make_schedule(NAMES[:5], table_size=4, repeats=2, seed=42, secret=SECRET)
    assert one == make_schedule(NAMES[:5], table_size=4, repeats=2, seed=42, secret=SECRET)
    other = make_schedule(NAMES[:5], table_size=4, repeats=2, seed=43, secret=SECRET)
    # The same tables in the same order; the seed also draws their seat orders (seating.seat_cycle).
    assert [set(b.entrants) for b in one] == [set(b.entrants) for b in other]
    assert [g.seats for b in one for g in b.games] != [g.seats for b in other for g in b.games]
    assert {b.games[0].seed for b in one}.isdisjoint({b.games[0].seed for b in other})
    # More repeats keep the earlier games as they were (ids and deals).
    longer = make_schedule(NAMES[:5], table_size=4, repeats=3, seed=42, secret=SECRET)
    assert longer[: len(one)] == one


def test_the_deals_come_from_the_secret_not_from_the_seed() -> None:
    """Issue 17: the same seed with another secret deals other cards at every table, in the same schedule; the
    same secret and seed deal the same (a rerun with --deal-secret reproduces the tournament)."""
    one = make_schedule(NAMES[:5], table_size=4, repeats=2, seed=42, secret=SECRET)
    other = make_schedule(NAMES[:5], table_size=4, repeats=2, seed=42, secret=DealSecret(b"m" * 32))
    assert [g.seats for b in one for g in b.games] == [g.seats for b in other for g in b.games]
    assert {b.games[0].seed for b in one}.isdisjoint({b.games[0].seed for b in other})
    assert make_schedule(NAMES[:5], table_size=4, repeats=2, seed=42, secret=DealSecret(b"k" * 32)) == one


@pytest.mark.parametrize(
    ("names", "k", "repeats", "message"),
    [
        (["a"], 2, 1, "at least 2 entrants, got 1"),
        ([], 2, 1, "at least 2 entrants, got 0"),
        (["a", "b", "c"], 4, 1, "table size 4 is larger than the number of entrants \\(3\\)"),
        (["a", "b", "c", "d", "e"], 5, 1, "table size must be 2 to 4, got 5"),
        (["a", "b"], 1, 1, "table size must be 2 to 4, got 1"),
        (["a", "b"], 2, 0, "at least 1, got 0"),
        (["a", "a"], 2, 1, "unique"),
    ],
)
def test_errors(names: list[str], k: int, repeats: int, message: str) -> None:
    with pytest.raises(ScheduleError, match=message):
        make_schedule(names, table_size=k, repeats=repeats, seed=0, secret=SECRET)


def test_default_table_size() -> None:
    assert [default_table_size(n) for n in (2, 3, 4, 5, 9)] == [2, 3, 4, 4, 4]
