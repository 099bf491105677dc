"""The caches' one policy (``referee.memo``): a memo never holds more than its size; ``KEEP`` keeps the first
entries, ``RENEW`` starts again; every memo is listed by name; a memoized function gives what it computes."""

from __future__ import annotations

import pytest

from referee.memo import MEMOS, Memo, Policy, memoized


def test_a_full_memo_keeps_its_first_entries_or_starts_again() -> None:
    kept = Memo[int, int]("tests.kept", 3)
    renewed = Memo[int, int]("tests.renewed", 3, Policy.RENEW)
    try:
        for i in range(5):
            assert kept.keep(i, i * i) == i * i and renewed.keep(i, -i) == -i
        assert kept == {0: 0, 1: 1, 2: 4}
        assert renewed == {3: -3, 4: -4}
        assert MEMOS["tests.kept"] is kept and "tests.renewed" in MEMOS
        with pytest.raises(ValueError, match="exists already"):
            Memo("tests.kept", 3)
    finally:
        del MEMOS["tests.kept"], MEMOS["tests.renewed"]


def test_a_memoized_function_computes_once_per_arguments_within_its_bound() -> None:
    calls: list[int] = []

    @memoized("tests.square", 2)
    def square(x: int) -> int:
        calls.append(x)
        return x * x

    try:
        assert [square(2), square(2), square(3), square(4), square(4)] == [4, 4, 9, 16, 16]
        assert calls == [2, 3, 4, 4], "4 came after the memo was full: computed each time, never wrong"
        assert len(square.memo) == 2  # type: ignore[attr-defined]
    finally:
        del MEMOS["tests.square"]


def test_every_cache_of_the_referee_is_listed() -> None:
    import protocol.wire
    import referee.engine.rules
    import referee.runner.player

    assert {"engine.rules.ROWS", "protocol.wire.ENTRIES", "runner.player.PARSED"} <= set(MEMOS)
    assert all(len(m) <= m.size for m in MEMOS.values())
    assert referee.engine.rules and protocol.wire and referee.runner.player
