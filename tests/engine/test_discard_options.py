"""``discard_options`` for the standard three-card discard (a fast path of its own) lists exactly the distinct
multisets that de-duplicating every combination of the hand's cards gives, in the same order."""

from __future__ import annotations

from itertools import combinations

from hypothesis import given
from hypothesis import strategies as st

from referee.engine import discard_options


@given(st.lists(st.integers(min_value=1, max_value=23), max_size=20))
def test_three_card_discards_are_every_distinct_multiset_in_order(cards: list[int]) -> None:
    hand = tuple(sorted(cards))
    expected = list(dict.fromkeys(combinations([c for c in hand if c != 1], 3)))
    assert discard_options(hand, 3) == expected
    assert discard_options(hand, 2) == list(dict.fromkeys(combinations([c for c in hand if c != 1], 2)))
