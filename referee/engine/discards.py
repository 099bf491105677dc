"""The legal discards of a hand (RULES.md, "Setting up a round"): every distinct multiset of ``discard`` cards
other than the 1, in lexicographic order, as an immutable sequence that is computed on demand.

A hand of 14 cards other than the 1 has up to 364 distinct three-card discards; listing them costs more than the
rest of a random game's turns together. ``DiscardOptions`` knows its length from the hand's value counts and
finds its ``i``-th discard by counting (combinatorial unranking), so a uniform random pick
(``rng.choice(discard_options(hand, 3))``) does not enumerate. Iterating, comparing or searching it lists the
discards once, in the same order.
"""

from __future__ import annotations

import operator
from collections.abc import Iterator, Sequence
from itertools import combinations
from typing import Any, overload

Cards = tuple[int, ...]


class DiscardOptions(Sequence[Cards]):
    """The distinct discards of ``discard`` cards from a sorted hand (never the 1), lexicographically.

    A read-only sequence: ``len``, indexing (negative indices and slices too), iteration, ``in``, ``index`` and
    ``count`` behave as on the list of the same discards, and it equals that list (and another
    ``DiscardOptions`` of the same discards). Build it with ``discard_options(hand, discard)``.
    """

    __slots__ = ("_copies", "_counts", "_k", "_len", "_listed", "_pairs", "_pool", "_values")

    _pool: Cards
    _k: int
    _values: list[int]
    _copies: list[int]
    _counts: list[list[int]] | None
    _len: int
    _pairs: int
    _listed: list[Cards] | None

    def __init__(self, pool: Cards, discard: int) -> None:
        """``pool``: the sorted cards a discard may take (the hand less its 1); ``discard``: cards per discard."""
        values: list[int] = []
        copies: list[int] = []
        prev = None
        for card in pool:  # sorted: the copies of a value are adjacent
            if card == prev:
                copies[-1] += 1
            else:
                values.append(card)
                copies.append(1)
                prev = card
        n = len(values)
        self._pool = pool
        self._k = discard
        self._values = values
        self._copies = copies
        self._listed = None
        if discard == 3:
            pairs = n - copies.count(1)  # values held at least twice
            triples = pairs - copies.count(2)  # values held at least three times
            # abc with a < b < c, aab and abb with a != b, aaa
            self._len = n * (n - 1) * (n - 2) // 6 + pairs * (n - 1) + triples
            self._pairs = pairs
            self._counts = None
        else:
            if discard < 0:
                raise ValueError(f"a discard has 0 cards or more, not {discard}")
            # counts[i][m]: multisets of m cards from the values i.. (bounded by their copies)
            counts = [[1] + [0] * discard for _ in range(n + 1)]
            for i in range(n - 1, -1, -1):
                below, row, c = counts[i + 1], counts[i], copies[i]
                for m in range(1, discard + 1):
                    row[m] = sum(below[m - t] for t in range(min(c, m) + 1))
            self._counts = counts
            self._len = counts[0][discard]

    def __len__(self) -> int:
        return self._len

    @overload
    def __getitem__(self, index: int) -> Cards: ...

    @overload
    def __getitem__(self, index: slice) -> list[Cards]: ...

    def __getitem__(self, index: int | slice) -> Cards | list[Cards]:
        if type(index) is not int:
            if isinstance(index, slice):
                return self._list()[index]
            index = operator.index(index)  # any integer type, as a list takes; TypeError for anything else
        size = self._len
        if index < 0:
            index += size
        if not 0 <= index < size:
            raise IndexError("discard option index out of range")
        if self._listed is not None:
            return self._listed[index]
        if self._counts is not None:
            return self._unrank(index)
        # The index-th three-card discard (here, not in a method of its own: a random pick comes here every time),
        # counting past whole blocks of discards with the same lowest cards.
        values, copies = self._values, self._copies
        n = len(values)
        pairs_after = self._pairs  # values held twice or more among those after the current one
        for i in range(n):
            rest = n - 1 - i
            c = copies[i]
            if c >= 2:
                pairs_after -= 1
                # (a, a, a), (a, a, b), then (a, b, b) and (a, b, c) with a < b < c
                block = (c >= 3) + rest + pairs_after + rest * (rest - 1) // 2
                first = i  # the lowest value that may come second
            else:
                block = pairs_after + rest * (rest - 1) // 2
                first = i + 1
            if index < block:
                a = values[i]
                for j in range(first, n):
                    b = values[j]
                    if copies[j] >= (3 if j == i else 2):
                        if index == 0:
                            return (a, b, b)
                        index -= 1
                    tail = n - 1 - j
                    if index < tail:
                        return (a, b, values[j + 1 + index])
                    index -= tail
            index -= block
        raise AssertionError("index below the length but past the last discard")  # pragma: no cover

    def _unrank(self, index: int) -> Cards:
        """The ``index``-th discard of any size: at each step, the next card is the lowest value still allowed
        when ``index`` falls among the discards that take it, which are counted without listing them."""
        counts = self._counts
        assert counts is not None
        values, copies = self._values, self._copies
        out: list[int] = []
        m = self._k
        i = 0
        left = copies[0] if copies else 0  # copies of values[i] still free to take
        while m:
            if left:
                below = counts[i + 1]
                # discards that take values[i] next: the other m - 1 cards from (left - 1 copies of it, later values)
                size = sum(below[m - 1 - t] for t in range(min(left - 1, m - 1) + 1))
                if index < size:
                    out.append(values[i])
                    left -= 1
                    m -= 1
                    continue
                index -= size
            i += 1
            left = copies[i]
        return tuple(out)

    def _list(self) -> list[Cards]:
        listed = self._listed
        if listed is None:
            if self._k == 3:
                listed = _three_card_discards(self._values, self._copies)
            else:
                listed = list(dict.fromkeys(combinations(self._pool, self._k)))
            self._listed = listed
        return listed

    def __iter__(self) -> Iterator[Cards]:
        return iter(self._list())

    def __contains__(self, item: object) -> bool:
        return item in self._list()

    def __reversed__(self) -> Iterator[Cards]:
        return reversed(self._list())

    def __eq__(self, other: object) -> bool:
        if isinstance(other, DiscardOptions):
            return self._len == other._len and self._list() == other._list()
        if isinstance(other, list):
            return self._list() == other
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self._list()))

    def __repr__(self) -> str:
        return repr(self._list())

    def __reduce__(self) -> tuple[Any, ...]:
        return (DiscardOptions, (self._pool, self._k))


def discard_options(hand: Cards, discard: int) -> Sequence[Cards]:
    """The distinct discards (sorted multisets of ``discard`` cards, never the 1), lexicographically.

    ``hand`` is sorted, as every hand of a State is. The answer is an immutable sequence that equals the list of
    those discards and computes a discard only when asked for it (see ``DiscardOptions``).
    """
    pool = hand[1:] if hand and hand[0] == 1 else hand  # sorted: the 1 comes first
    if pool and pool[0] == 1:  # not a hand of the deck (it has one 1), but answered all the same
        pool = tuple(c for c in pool if c != 1)
    return DiscardOptions(pool, discard)


def _three_card_discards(values: list[int], copies: list[int]) -> list[Cards]:
    """Every three-card discard, in order, from the distinct values and their copies."""
    out: list[Cards] = []
    add = out.append
    n = len(values)
    for i in range(n):
        a = values[i]
        if copies[i] >= 2:
            if copies[i] >= 3:
                add((a, a, a))
            for k in range(i + 1, n):
                add((a, a, values[k]))
        for j in range(i + 1, n):
            b = values[j]
            if copies[j] >= 2:
                add((a, b, b))
            for k in range(j + 1, n):
                add((a, b, values[k]))
    return out
