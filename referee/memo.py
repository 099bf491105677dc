"""The process's caches, with one owner and one policy each: every module-level cache of the referee is a ``Memo``.

A ``Memo`` is a dict of at most ``size`` entries, named, and listed in ``MEMOS`` (so a long-lived process can see
them all, and ``clear_all`` empties them). Its policy says what happens when it is full: ``KEEP`` adds nothing more
(a run's hot set, the few rulesets, the short replies a bot repeats, the history entries of a round, is met early,
and a full cache then costs nothing), ``RENEW`` empties it and starts again (for keys that go stale, such as the ids
of objects that come and go). Reads are the dict's own (``get``, ``[]``, ``in``): the hot paths pay nothing for the
policy; ``keep(key, value)`` adds by it and returns ``value``. ``memoized`` keeps a function's results in one.

This module imports nothing: the engine, the protocol and the runner use it alike.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable
from enum import Enum
from typing import Any, TypeVar

__all__ = ["MEMOS", "Memo", "Policy", "clear_all", "memoized"]

K = TypeVar("K")
V = TypeVar("V")
F = TypeVar("F", bound=Callable[..., Any])


class Policy(Enum):
    """What a full ``Memo`` does with a new entry."""

    KEEP = "keep"  # add nothing more: the entries kept are the first met
    RENEW = "renew"  # empty the memo, then add it


#: Every memo of the process by name (``module.NAME``).
MEMOS: dict[str, Memo[object, object]] = {}


class Memo(dict[K, V]):
    """A named cache of at most ``size`` entries with its ``policy`` (see the module). Raises ``ValueError`` for a
    name another memo has."""

    __slots__ = ("name", "policy", "size")

    def __init__(self, name: str, size: int, policy: Policy = Policy.KEEP) -> None:
        super().__init__()
        if name in MEMOS:
            raise ValueError(f"a memo named {name!r} exists already")
        if size < 1:
            raise ValueError(f"a memo holds at least one entry, not {size}")
        self.name, self.size, self.policy = name, size, policy
        MEMOS[name] = self  # type: ignore[assignment]

    def keep(self, key: K, value: V) -> V:
        """Remember ``value`` under ``key`` as the policy allows; returns ``value``."""
        if len(self) >= self.size:
            if self.policy is Policy.KEEP:
                return value
            self.clear()
        self[key] = value
        return value

    def __repr__(self) -> str:
        return f"Memo({self.name!r}, {len(self)}/{self.size}, {self.policy.value})"


def memoized(name: str, size: int, policy: Policy = Policy.KEEP) -> Callable[[F], F]:
    """A function whose results are kept in a ``Memo`` by its positional arguments (hashable, no keywords): its
    ``functools.lru_cache`` under this module's policies."""

    def wrap(function: F) -> F:
        memo: Memo[tuple[Hashable, ...], Any] = Memo(name, size, policy)

        @functools.wraps(function)
        def call(*args: Hashable) -> Any:
            try:
                return memo[args]
            except KeyError:
                return memo.keep(args, function(*args))

        call.memo = memo  # type: ignore[attr-defined]
        return call  # type: ignore[return-value]

    return wrap


def clear_all() -> None:
    """Empty every memo (what is computed again is the same: a memo only saves work)."""
    for memo in MEMOS.values():
        memo.clear()
