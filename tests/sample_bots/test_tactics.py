"""The sample bots' shared estimate of what playing a hand out costs (``protocol.tactics``)."""

from __future__ import annotations

import pytest

from protocol.tactics import finish_cost, finish_estimate
from referee.engine import STANDARD


@pytest.mark.parametrize(
    ("hand", "last", "chips", "expected"),
    [
        # 5 and 6 follow on, 9 skips two values (half a point each); a turn is 0.6 after the first; refund 3.
        ((5, 6, 9), 4, 0, 0.6 + 1.6 - 3),
        ((6, 5, 9, 5), 4, 0, 0.6 + 1.6 - 3),  # copies and order do not matter
        ((1, 3), None, 0, 1.1 - 3),  # before the 1 the table stands at 0
        ((2, 10), 8, 2, 2 * 2 + 0.6 + 1.1 - 0.6 - 3),  # the 2 needs both chips (step 5), each worth 2 at the end
        ((2, 10), 8, 1, None),  # ... and one chip cannot lift it
    ],
)
def test_finish_estimate(hand: tuple[int, ...], last: int | None, chips: int, expected: float | None) -> None:
    got = finish_estimate(hand, last, chips, STANDARD)
    assert got == (None if expected is None else pytest.approx(expected))
    values = sorted(set(hand))
    assert finish_cost(values, 0 if last is None else last, chips, STANDARD) == got
