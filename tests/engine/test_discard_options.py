"""``discard_options`` for the standard three-card discard (a fast path of its own) lists exactly the distinct
multisets that de-duplicating every combination of the hand's cards gives, in the same order."""

from __future__ import annotations

import pickle
from itertools import combinations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from referee.engine import discard_options


@given(st.lists(st.integers(min_value=1, max_value=23), max_size=20))
def test_three_card_discards_are_every_distinct_multiset_in_order(cards: list[int]) -> None:
    hand = tuple(sorted(cards))
    expected = list(dict.fromkeys(combinations([c for c in hand if c != 1], 3)))
    assert discard_options(hand, 3) == expected
    assert discard_options(hand, 2) == list(dict.fromkeys(combinations([c for c in hand if c != 1], 2)))


@settings(deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=23), max_size=16), st.integers(min_value=0, max_value=4))
def test_indexing_finds_each_discard_without_listing_them(cards: list[int], discard: int) -> None:
    # A random pick indexes a fresh answer (len, then one index): each index must give the discard the list holds
    # there, from the front and from the back, for the standard three cards and any other size.
    hand = tuple(sorted(cards))
    expected = list(dict.fromkeys(combinations([c for c in hand if c != 1], discard)))
    assert len(discard_options(hand, discard)) == len(expected)
    assert [discard_options(hand, discard)[i] for i in range(len(expected))] == expected
    assert [discard_options(hand, discard)[-1 - i] for i in range(len(expected))] == expected[::-1]
    with pytest.raises(IndexError):
        discard_options(hand, discard)[len(expected)]


def test_the_answer_is_an_immutable_sequence_equal_to_the_list() -> None:
    options = discard_options((1, 2, 3, 3, 9), 3)
    listed = [(2, 3, 3), (2, 3, 9), (3, 3, 9)]
    assert options == listed and listed == options and list(options) == listed and len(options) == 3
    assert options[1:] == listed[1:] and (3, 3, 9) in options and (1, 2, 3) not in options
    assert options.index((2, 3, 9)) == 1 and hash(options) == hash(discard_options((1, 2, 3, 3, 9), 3))
    assert pickle.loads(pickle.dumps(options)) == listed and repr(options) == repr(listed)
    with pytest.raises(TypeError):
        options[0] = (2, 3, 3)  # type: ignore[index]
    assert not hasattr(options, "append")
