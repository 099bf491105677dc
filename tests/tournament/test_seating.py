"""Seat orders that cancel out (issue 24): a table's cyclic order comes from its names and the seed, never from the
order the entrants were listed in, and a table's repeats go through every cyclic order equally often."""

from __future__ import annotations

import itertools
import math
from collections import Counter

import pytest

from referee.contest.deal_secret import DealSecret
from referee.contest.schedule import make_schedule
from referee.contest.seating import cyclic_orders, seat_cycle

SECRET = DealSecret(b"s" * 32)


def _offsets(batches: list) -> Counter[tuple[str, str, int]]:
    """(a, b, d): how often b sat d seats after a (in the direction of play) over the games of ``batches``."""
    out: Counter[tuple[str, str, int]] = Counter()
    for b in batches:
        for g in b.games:
            k = len(g.seats)
            for i, j in itertools.permutations(range(k), 2):
                out[(g.seats[i], g.seats[j], (j - i) % k)] += 1
    return out


@pytest.mark.parametrize("k", [2, 3, 4])
def test_a_tables_repeats_go_through_every_cyclic_order_once(k: int) -> None:
    names = ["w", "x", "y", "z"][:k]
    cycles = math.factorial(k - 1)
    seen = [seat_cycle(names, 5, i) for i in range(2 * cycles)]
    assert sorted(seen[:cycles]) == sorted(cyclic_orders(names))
    assert seen[cycles:] == seen[:cycles], "the shuffle cycles"
    # Over those repeats every entrant sits at every offset after every other equally often.
    batches = make_schedule(names, table_size=k, repeats=cycles, seed=5, secret=SECRET)
    offsets = _offsets(batches)
    assert len(offsets) == k * (k - 1) * (k - 1) and len(set(offsets.values())) == 1


def test_the_listing_order_never_decides_a_seat() -> None:
    """Two listings of the same entrants seat every table of every repeat in the same rotations."""
    names = ["ann", "bob", "cy", "dee", "eve"]
    for k in (3, 4):
        for listing in (names, names[::-1], ["cy", "eve", "ann", "dee", "bob"]):
            one = make_schedule(names, table_size=k, repeats=4, seed=9, secret=SECRET)
            other = make_schedule(listing, table_size=k, repeats=4, seed=9, secret=SECRET)

            def seatings(batches: list) -> dict[tuple[frozenset[str], int], set[tuple[str, ...]]]:
                return {(frozenset(b.entrants), b.games[0].repeat): {g.seats for g in b.games} for b in batches}

            assert seatings(one) == seatings(other)


def test_no_pair_always_sits_in_the_same_relative_order() -> None:
    """The issue's case: in listing order b always sat right after a. Now, over a round robin of 6 entrants at
    tables of 3 and 4 with 6 repeats, every ordered pair sits next to each other in both directions equally."""
    names = [f"e{i}" for i in range(6)]
    for k in (3, 4):
        offsets = _offsets(make_schedule(names, table_size=k, repeats=6, seed=3, secret=SECRET))
        for a, b in itertools.permutations(names, 2):
            assert offsets[(a, b, 1)] == offsets[(b, a, 1)] > 0


def test_bad_tables_are_refused() -> None:
    with pytest.raises(ValueError, match="distinct"):
        seat_cycle(["a", "a"], 1, 0)
    with pytest.raises(ValueError, match="0 or more"):
        seat_cycle(["a", "b"], 1, -1)
