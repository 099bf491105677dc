"""The order the games of a round are played in, and the queue that hands them to the lanes.

``rotation_order`` plays every deal's first seat rotation, then every deal's second, and so on, so that a bot
process that stays up meets a deal again only at a new pass (each pass in an order of its own from the secret, an
entrant's two rotations of a deal kept apart by its other deals); ``DealQueue`` hands the games to the lanes so that two
rotations of one deal never run at the same time, each lane preferring the games its bots have not been dealt.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Sequence

import trio

from referee.contest.schedule import ScheduledGame, TableBatch

__all__ = ["DealQueue", "rotation_order"]


def rotation_order(batches: Sequence[TableBatch]) -> list[TableBatch]:
    """The games of ``batches`` as one-game batches, rotation by rotation: the first seat rotation of every deal,
    then the second of every deal, and so on; within each pass the deals in an order of their own that no bot can
    foresee (``_pass_key``: from the deal seeds, which come from the secret).

    Played in this order by bots that stay up, a bot process meets a deal again only when a new pass over the
    deals begins; ``PlayerPool.for_game`` restarts it then (never between the rotations of each deal). With
    several lanes, each lane prefers the games its own processes have not dealt yet (``DealQueue.take``), so
    at a pass boundary a lane first plays the deals the other lanes played in the pass before.

    The rotations of a deal are also kept apart for each entrant: its processes play other deals between them
    wherever it has another deal in the pass (``_spread``), and which deal comes back when is new in every pass. So
    the processes of an entrant that pass what they were dealt to each other (through the page cache of a file
    they all read, say) cannot tell which of the hands they kept is of the deal they play now (the ids the bots
    see are opaque too: ``wire_id``).
    """
    passes: dict[int, list[TableBatch]] = {}
    for b in batches:
        for g in b.games:
            passes.setdefault(g.rotation, []).append(TableBatch(b.batch, (g,)))
    units: list[TableBatch] = []
    last: dict[str, int] = {}  # entrant -> the deal of its latest game so far
    for rotation in sorted(passes):
        ordered = sorted(passes[rotation], key=_pass_key)
        units += _spread(ordered, last)
    return units


def _pass_key(unit: TableBatch) -> tuple[bytes, int]:
    """Where a one-game unit goes in its pass: a hash of its deal seed and rotation (secret-derived, so unforeseeable
    to bots, and different in every pass), then the batch (every deal seed is 0 without a secret)."""
    game = unit.games[0]
    digest = hashlib.blake2b(f"{game.seed}/{game.rotation}".encode(), digest_size=8).digest()
    return digest, unit.batch


def _spread(units: Sequence[TableBatch], last: dict[str, int]) -> list[TableBatch]:
    """``units`` (one pass) in their order, but a unit that would give one of its entrants the deal of that entrant's
    latest game (``last``, updated) waits until the entrant has played another deal, or until nothing else is left.
    Only an entrant's first game of the pass can clash, so once every entrant has played the rest go as they come."""
    out: list[TableBatch] = []
    waiting: deque[TableBatch] = deque()
    fresh = set(last)  # entrants whose latest game is of the previous pass

    def clash(unit: TableBatch) -> bool:
        return any(last.get(name) == unit.batch for name in unit.games[0].seats if name in fresh)

    def take(unit: TableBatch) -> None:
        out.append(unit)
        for name in unit.games[0].seats:
            last[name] = unit.batch
            fresh.discard(name)

    for i, unit in enumerate(units):
        if not fresh and not waiting:
            rest = units[i:]
            out += rest
            last.update((name, u.batch) for u in rest for name in u.games[0].seats)
            return out
        if clash(unit):
            waiting.append(unit)
            continue
        take(unit)
        while (ready := next((w for w in waiting if not clash(w)), None)) is not None:
            waiting.remove(ready)
            take(ready)
    while waiting:
        take(waiting.popleft())
    return out


class DealQueue:
    """The games to play, in order, handed to the lanes so that two rotations of one deal never run at once.

    Two processes of one entrant playing two rotations of a deal at the same time (on two lanes) could pass each
    other the hands they were dealt; so ``take`` hands a lane the first game whose deal no lane is playing, and
    waits while every remaining game's deal is being played. The deals in play are at most one per lane, so the
    first free game is always among the first few.

    ``take(fits)`` looks up to ``LOOKAHEAD`` games further for one that ``fits`` the lane (its bot processes
    have not played that deal), so that a lane restarts its bots only when no such game is near: at ``--jobs
    2`` with every entrant at every table, each process then plays two passes over the deals instead of one
    (half the bot starts).

    ``more``, when given, is awaited for the next round's games once every game handed out has ended (a race's
    next round depends on the results of this one); an empty answer ends the queue.
    """

    #: How many queued games ``take`` looks through for one that fits the lane, past the first free one.
    LOOKAHEAD = 64
    #: A lane that fits none of the queued games leaves them to the busy lanes, instead of starting new bot
    #: processes, while there are at most this many for each busy lane (about what a lane plays while bots start).
    RESTART_GAMES = 4

    def __init__(
        self, units: Iterable[TableBatch], more: Callable[[], Awaitable[Sequence[TableBatch]]] | None = None
    ) -> None:
        self._pending = deque(units)
        self._playing: set[int] = set()
        self._changed = trio.Event()
        self._more = more
        self._refilling = False

    async def take(self, fits: Callable[[ScheduledGame], bool] | None = None) -> TableBatch | None:
        """The next game whose deal is free (marked as being played): the first one that ``fits`` within
        ``LOOKAHEAD`` games of the first free one, else the first free one; None when no game is left.

        A game that does not fit means new bot processes for the lane (a fresh process per entrant: a generation
        of bot starts), so rather than take one the lane waits while a game that fits is only waiting for its deal
        (another lane is playing that deal: free within a game), and while the queue is down to its last
        ``RESTART_GAMES`` games per busy lane (they play them in about the time new bots would take to start, and
        a generation started for a game or two is most of the extra bot starts of a two-lane run)."""
        while True:
            first = None
            fitting = fits is None
            soon = False  # a game that fits waits only for its deal, which another lane is playing
            for i, unit in enumerate(self._pending):
                if first is not None and i - first > self.LOOKAHEAD:
                    break
                if unit.batch in self._playing:
                    soon = soon or (fits is not None and fits(unit.games[0]))
                    continue
                if first is None:
                    first = i
                if fits is None or fits(unit.games[0]):
                    first, fitting = i, True
                    break
            if first is not None and not fitting and (soon or self._few_left()):
                first = None  # wait for a lane to finish its game, rather than start new bot processes
            if first is not None:
                unit = self._pending[first]
                del self._pending[first]
                self._playing.add(unit.batch)
                return unit
            if not self._pending and not self._playing and not self._refilling:
                if self._more is None:
                    return None
                self._refilling = True  # one lane asks; the others wait for its answer
                try:
                    units = await self._more()
                finally:
                    self._refilling = False
                    self._notify()
                self._pending.extend(units)
                if not units:
                    self._more = None
                continue
            await self._changed.wait()

    def _few_left(self) -> bool:
        """The queue's last few games: the busy lanes play them in about the time new bot processes take to start."""
        return len(self._pending) <= self.RESTART_GAMES * len(self._playing)

    def release(self, unit: TableBatch) -> None:
        """``unit``'s game has ended (or was abandoned): its deal is free again."""
        self._playing.discard(unit.batch)
        self._notify()

    def _notify(self) -> None:
        self._changed.set()
        self._changed = trio.Event()
