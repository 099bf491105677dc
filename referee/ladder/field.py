"""The field as the matchmaker needs it, kept up to date between blocks: who is active, how long each version has
waited, how many blocks each entrant played today and the bot time it was charged for them, which pairs met how
often, who is playing now.

``FieldTracker.load`` reads it from the store once (at ``serve``'s start); then ``refresh`` picks up what changed
in the store (new versions out of their gate, retirements, suspensions, whether by this process or another) and
``started``/``finished`` follow the blocks (``finished`` is told what the block cost each version:
``matchmaker.charges``). After a restart, the blocks played earlier today are charged at an equal share of their
games' time per seat (the store keeps each game's time, not each bot's). Times are seconds since the epoch
(``time.time()``, or a simulated clock), days are UTC days.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from referee.ladder.matchmaker import Candidate
from referee.ladder.model import EntrantState, Version
from referee.ladder.store import LadderStore

__all__ = ["FieldTracker", "day_of", "parse_time"]


def parse_time(text: str | None) -> float | None:
    return None if text is None else datetime.fromisoformat(text).timestamp()


def day_of(t: float) -> int:
    """The UTC day number of time ``t``."""
    return int(t // 86_400)


@dataclass(slots=True)
class _Entry:
    version: Version
    since: float  # when its last block ended, or it became active


class FieldTracker:
    """The active versions of playing entrants, with what the matchmaker reads of each (``candidates``)."""

    def __init__(self, store: LadderStore, prior: tuple[float, float]) -> None:
        self.store = store
        self.prior = prior  # (mu, sigma) of a version before its first block
        self.field: dict[int, _Entry] = {}
        self.busy: Counter[int] = Counter()
        self.met: Counter[tuple[int, int]] = Counter()
        self.today: Counter[int] = Counter()  # entrant -> blocks today
        self.seconds: defaultdict[int, float] = defaultdict(float)  # entrant -> bot time charged today
        self.opponents: Counter[int] = Counter()  # version -> its meetings with the versions of the field
        self.day = -1
        self._gone: set[int] = set()
        self._left: set[int] = set()  # every version that left the field (its meetings may be dropped since)

    def load(self, now: float) -> None:
        """Read the field, today's block counts, the pairs' meetings and each version's last block."""
        self.day = day_of(now)
        self.refresh(now)
        start = datetime.fromtimestamp(self.day * 86_400, UTC).isoformat(timespec="seconds")
        self.today = Counter(dict(self.store.blocks_per_entrant_since(start)))
        self.seconds = defaultdict(float, self.store.seconds_per_entrant_since(start))
        ids = list(self.field)
        self.met = Counter(self.store.meetings(ids))
        self.opponents = Counter()
        for (a, b), n in self.met.items():
            self.opponents[a] += n
            self.opponents[b] += n
        ends = self.store.last_block_ends(ids)
        for vid, entry in self.field.items():
            since = parse_time(ends.get(vid)) or parse_time(entry.version.state_at)
            entry.since = min(now, since) if since is not None else now

    def refresh(self, now: float) -> None:
        """Take in the store's active versions of entrants that may play (a new one has waited since ``now``)."""
        playing = {e.id for e in self.store.entrants() if e.state == EntrantState.ACTIVE}
        active = {v.id: v for v in self.store.active_versions() if v.entrant_id in playing}
        for vid in list(self.field):
            if vid not in active:
                self._leave(vid)
        for vid, v in active.items():
            entry = self.field.get(vid)
            if entry is None:
                if vid in self._left:  # back (a rollback, a lifted suspension): its meetings as the store has them
                    self._left.discard(vid)
                    self._gone.discard(vid)
                    for pair, n in self.store.meetings([vid, *self.field]).items():
                        if vid in pair:
                            self.met[pair] = n
                self.field[vid] = _Entry(v, now)
                self._link(vid, 1)
            else:
                entry.version = v

    def roll_day(self, now: float) -> None:
        """A new UTC day: today's counts start again (the blocks in play count in the day they started)."""
        if day_of(now) != self.day:
            self.day = day_of(now)
            self.today.clear()
            self.seconds.clear()

    def mean_today(self) -> float:
        """The mean of today's bot time (seconds charged) over the entrants of the field."""
        entrants = {e.version.entrant_id for e in self.field.values()}
        return sum(self.seconds[e] for e in entrants) / len(entrants) if entrants else 0.0

    def candidates(self, now: float, warm: Iterable[int] = ()) -> list[Candidate]:
        self.roll_day(now)
        hot = set(warm)
        out = []
        for vid, e in self.field.items():
            v = e.version
            mu, sigma = (v.mu, v.sigma) if v.mu is not None and v.sigma is not None else self.prior
            waited = now - e.since
            out.append(
                Candidate(
                    vid,
                    v.entrant_id,
                    mu,
                    sigma,
                    self.today[v.entrant_id],
                    waited,
                    v.placement_left,
                    vid in hot,
                    v.games,
                    self.seconds[v.entrant_id],
                    self.opponents[vid],
                )
            )
        return out

    def version(self, vid: int) -> Version | None:
        entry = self.field.get(vid)
        return None if entry is None else entry.version

    def _entrants(self, seats: Sequence[int]) -> set[int]:
        return {entry.version.entrant_id for vid in seats if (entry := self.field.get(vid)) is not None}

    def started(self, seats: Sequence[int], now: float | None = None) -> None:
        """A block of ``seats`` starts: they are busy, and it counts in their entrants' blocks of today (a block in
        play counts, so that the daily bound holds for the blocks of an entrant's old and new version at once)."""
        if now is not None:
            self.roll_day(now)
        self.busy.update(seats)
        self.today.update(self._entrants(seats))

    def finished(
        self, seats: Sequence[int], now: float, *, counted: bool, charged: Mapping[int, float] | None = None
    ) -> None:
        """A block of ``seats`` ended at ``now`` (``counted``: committed; else voided, and not counted today);
        ``charged``: what it cost each version, in seconds (added to its entrant's bot time today)."""
        self.busy.subtract(seats)
        self.busy += Counter()  # drop the zeros
        if not counted:
            self.today.subtract(self._entrants(seats))
            self.today += Counter()
            return
        for vid in seats:
            entry = self.field.get(vid)
            if entry is not None:
                entry.since = now
        for vid, seconds in (charged or {}).items():
            entry = self.field.get(vid)
            if entry is not None:
                self.seconds[entry.version.entrant_id] += seconds
        ordered = sorted(seats)
        for i, a in enumerate(ordered):
            for b in ordered[i + 1 :]:
                self.met[(a, b)] += 1
                if a in self.field and b in self.field:
                    self.opponents[a] += 1
                    self.opponents[b] += 1
        for vid, fresh in self.store.versions_by_id(v for v in seats if v in self.field).items():
            if fresh.active:
                self.field[vid].version = fresh
            else:
                self._leave(vid)

    def _leave(self, vid: int) -> None:
        """A version leaves the field; its pairs' meetings are dropped now and then (so memory stays flat)."""
        self._link(vid, -1)
        del self.field[vid]
        self._gone.add(vid)
        self._left.add(vid)
        if len(self._gone) >= 64:
            gone = self._gone
            self.met = Counter({k: n for k, n in self.met.items() if k[0] not in gone and k[1] not in gone})
            gone.clear()

    def _link(self, vid: int, sign: int) -> None:
        """Count (``sign`` 1) or stop counting (-1) the meetings of ``vid`` with the rest of the field."""
        total = 0
        for other in self.field:
            if other != vid:
                n = self.met.get((vid, other) if vid < other else (other, vid), 0)
                self.opponents[other] += sign * n
                total += n
        if sign > 0:
            self.opponents[vid] = total
        else:
            self.opponents.pop(vid, None)
