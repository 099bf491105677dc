"""The race format: an adaptive schedule that stops once the order of the top K entrants is settled.

The race goes in rounds of ``BLOCKS_PER_ROUND`` *passes* (a long pairwise phase grows them: ``PASS_GROWTH``); each
pass seats entrants at tables, and every table is a block (one deal at one table, every seat rotation). The tables
of a round depend only on the seed, the round number and the results of the earlier rounds. The race has two phases.

*Field phase* (only while more than ``PAIRWISE_FROM`` entrants survive). Each pass shuffles the survivors (seeded)
and cuts them into tables; the last table is completed with *fillers* (recently eliminated entrants, else survivors
playing a second block that does not count for them). A survivor's observation on its block is its matchpoint share
(the share of the table it beat on that deal, ties half), a number in [0, 1]. Each entrant carries a confidence
sequence (``confseq.BettingCSArray``, Waudby-Smith & Ramdas 2023) of its shares at level 1 − alpha/(2N), every
survivor of a pass betting the same λ, so two survivors' sequences estimate averages of their expected shares with
the same weights. A is *ahead* of B when A's lower bound is above B's upper bound.

*Pairwise phase* (from the first round that starts with at most ``PAIRWISE_FROM`` survivors; from the start in a
field that small). Its survivors at that moment form the *pool* P. The entrants' own sequences are frozen (no
further updates: seating stops being random, and their targets would change meaning) but their "ahead" relations,
all between entrants that survived the same passes, stay valid. Every two entrants of P that share a table add one
observation to their head-to-head tests (``confseq.MixtureTests``: "a is ahead" and "b is ahead", one-sided,
mixtures of betting martingales), at level alpha'/(|P|(|P|−1)/2) for the pair, alpha' = alpha/2 after a field phase
and alpha without one. The observation on a shared block is a's share against b: by default (``pair_statistic``
``difference``) the paired difference of block totals clipped to [−c, c] and scaled into [0, 1] ((clip(b − a) + c) /
2c), c being ``pair_bound`` or else CLIP_SPREADS times the spread of the earlier rounds' paired differences around
their pair's mean (fixed before the round; the sign on the first round); with ``sign``, the sign test (1 when a's
block total is lower, 1/2 on a tie, else 0). A is ahead of B once the test "A is ahead" rejects. Seating focuses
where undecided pairs that matter are (LUCB-style, Kalyanakrishnan et al. 2012): survivors are ranked (proven
relations first, then a least-squares rating from the paired score differences); the top K + 1 sit Swiss-style
(consecutive in the ranking, cut into tables at an offset that moves by one seat each pass from a seeded random
start, so neighbours meet in all passes but about one in table_size), and every other survivor sits with the
``table_size − 1`` best-ranked survivors not yet proven ahead of it. Tables with nothing undecided that matters are
not played.

After every round, "ahead" is closed transitively (a ahead of b and b ahead of c gives a ahead of c); a survivor
with at least K entrants ahead of it is *eliminated*, and the race is *settled* when K survivors remain, each ahead
of the next. It also stops before a round that would pass ``max_games``.

Guarantee (probability at least 1 − alpha, alpha = 1 − confidence): every sequence covers its target at every round
at once, and no head-to-head test rejects a true "not ahead" (Ville's inequality for the betting martingales; a
union bound over the N entrants' sequences and over the pairs of P). The head-to-head tests start at a round fixed
by the past (the round the pool forms), and P with them; Ville's inequality for each betting martingale started then
holds conditionally on everything before, so their union bound at level alpha' over the pairs of P also holds
conditionally, hence unconditionally (the "optional continuation" of test martingales: Grünwald, de Heide & Koolen,
"Safe testing", JRSS-B 2024). On that event every "ahead" edge is a true order relation, as long as

- a stronger entrant expects a higher matchpoint share than a weaker one when both are seated at random among the
  same survivors (field phase), and
- at any table they share, a stronger entrant's expected clipped paired difference favours it, whatever the clip
  (``difference``), or it has the lower block total more often than the weaker one (``sign``),

which hold when results are a strength plus deal luck that does not favour either. True order is transitive, so the
closure adds no error; no entrant of the true top K is eliminated, and the settled order is the true one. This is a
racing algorithm in the sense of Maron & Moore (Hoeffding races, 1994/1997) and of Mnih, Szepesvári & Audibert
(empirical Bernstein stopping, 2008); F-race (Birattari et al. 2002) and irace race configurations the same way.

With a tie margin E (``tie_margin``, points per game; docs/statistics.md), each pair of P also runs "a is not behind
b by E or more" and its mirror: the same mixtures fed the paired difference shifted by E per game (E·table_size on a
block) before the clip, the four one-sided tests of a pair sharing its level. "Not behind by E" is closed through
"ahead" steps with at most one margin step, eliminations stay strict, and the race settles once every entrant of its
estimated top K is proven ahead of, or not behind by E, every survivor ranked below it: with probability at least
1 − alpha no reported pair of the top K is out of order by E or more. ``within_margin`` lists the pairs settled only
up to E.

The schedule is a pure function of the parameters and the results of the earlier rounds, so a resumed race plays
exactly the games the interrupted one would have played.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from referee.tournament.confseq import BettingCSArray, MixtureTests, bet
from referee.tournament.deals import DealSecret
from referee.tournament.schedule import TableBatch, table_batches

__all__ = ["Race", "RaceOutcome"]

#: The pairwise phase starts with the first round that has at most this many survivors.
PAIRWISE_FROM = 32
#: Passes (blocks per survivor) in a round. Several, so that a bot process plays several deals before it meets one
#: again (it is restarted then), and the elimination rule runs less often.
BLOCKS_PER_ROUND = 4
#: A pairwise round has this share of the passes the pairwise phase has played so far (at least BLOCKS_PER_ROUND):
#: late in a long race a round is then a few hundred passes instead of four, so the race looks after every 5% more
#: games (it stops at most a round late) instead of after every handful, and replays a long race quickly.
PASS_GROWTH = 0.05
#: The head-to-head statistics: the paired block-total difference, clipped (default), or the sign test.
PAIR_STATISTICS = ("difference", "sign")
#: ``difference`` clips the paired differences of a round at this many times the root mean square of the earlier
#: rounds' (the first pairwise round, with none before it, uses the sign).
CLIP_SPREADS = 2.0

Ints = npt.NDArray[np.int64]


@dataclass(frozen=True, slots=True)
class RaceOutcome:
    """Where a race stands: ``reason`` is None while it runs."""

    top: int
    confidence: float
    settled: bool
    reason: str | None
    games: int
    rounds: int
    order: tuple[str, ...]  # every entrant, best first: survivors by estimate, then the eliminated, latest first
    bounds: dict[str, tuple[float, float]] = field(default_factory=dict)
    eliminated: dict[str, int] = field(default_factory=dict)  # entrant -> the round after which it left
    tie_margin: float = 0.0  # points per game: pairs closer than this may be reported in either order
    #: Pairs (higher, lower) of the reported order, the higher in the top K, proven only "not behind by more than
    #: the tie margin", not ahead (empty without a margin).
    within_margin: tuple[tuple[str, str], ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "top": self.top,
            "confidence": self.confidence,
            "settled": self.settled,
            "reason": self.reason,
            "games": self.games,
            "rounds": self.rounds,
            "order": list(self.order[: self.top]),
            "bounds": {n: list(b) for n, b in self.bounds.items()},
            "eliminated_after_round": self.eliminated,
            "tie_margin": self.tie_margin,
            "within_margin": [list(p) for p in self.within_margin],
        }


class Race:
    """The race's state. Call ``next_round`` for a round's blocks, play them, and ``record`` their results.

    ``secret`` deals the blocks of ``next_round``; without it every deal seed is 0 (for replaying the schedule from
    stored results only: the tables and game ids do not depend on it). ``pair_bound``: see the module's docstring."""

    def __init__(
        self,
        names: Sequence[str],
        *,
        table_size: int,
        seed: int,
        top: int,
        confidence: float,
        max_games: int,
        secret: DealSecret | None = None,
        pair_statistic: str = "difference",
        pair_bound: float | None = None,
        tie_margin: float = 0.0,
    ) -> None:
        if pair_statistic not in PAIR_STATISTICS:
            raise ValueError(f"pair_statistic must be one of {', '.join(PAIR_STATISTICS)}, got {pair_statistic!r}")
        if not 0 <= tie_margin < float("inf"):
            raise ValueError(f"tie_margin must be a finite number of points per game, at least 0, got {tie_margin}")
        self.names = tuple(names)
        self.secret = secret
        self.table_size = table_size
        self.seed = seed
        self.top = top
        self.confidence = confidence
        self.max_games = max_games
        self.pair_statistic = pair_statistic
        self.pair_bound = pair_bound
        self.tie_margin = tie_margin
        self._shift = tie_margin * table_size  # the margin on a block total (a block is table_size games)
        self.within_margin: tuple[tuple[str, str], ...] = ()
        n = len(self.names)
        error = 1 - confidence
        self.field_phase = n > PAIRWISE_FROM  # whether the race starts with the entrants' own sequences
        self.alpha = error / 2 / n
        self.pair_error = error / 2 if self.field_phase else error
        self.cs = BettingCSArray(n, self.alpha)  # the entrants' matchpoint sequences (field phase only)
        self.alive = np.ones(n, dtype=bool)
        self.survivors = list(self.names)
        self.eliminated: dict[str, int] = {}
        self._out: list[int] = []  # the eliminated, latest first
        self.rounds = 0
        self.games = 0
        self.batches = 0
        self.reason: str | None = None
        self.settled = False
        self._index = {name: i for i, name in enumerate(self.names)}
        self._pending: list[tuple[str, ...]] | None = None
        self._passes: list[int] = []  # the pass of each pending table
        self._fillers: npt.NDArray[np.bool_] = np.zeros((0, table_size), dtype=bool)  # seats that do not count
        # The pairwise phase: the pool (entrant indices), each entrant's place in it (-1: outside), the head-to-head
        # sequences (entry a·m + b for places a < b: a's share against b), blocks shared, Σ paired differences.
        self.pool: Ints | None = None
        self._place = np.full(n, -1, dtype=np.int64)
        self.pairs = MixtureTests(0, 0.5)
        # With a tie margin E: "a is not behind b by E or more" (plus.above for a < b; minus.below for b over a).
        self._plus = MixtureTests(0, 0.5)
        self._minus = MixtureTests(0, 0.5)
        self._shared = np.zeros((0, 0))
        self._advantage = np.zeros((0, 0))
        self._squares = np.zeros((0, 0))
        self._frozen = np.zeros((0, 0), dtype=bool)  # "ahead" from the entrants' frozen sequences, in the pool
        self._closure = np.zeros((0, 0), dtype=bool)
        self._pair_passes = 0  # passes played in the pairwise phase
        self._near = self._closure  # [a, b]: a proven not behind b by the margin or more (the closure without one)
        if not self.field_phase:
            self._start_pairwise()

    # ------------------------------------------------------------------------------------------ schedule

    def next_tables(self) -> list[tuple[str, ...]] | None:
        """The tables of the next round (each one block; ``BLOCKS_PER_ROUND`` passes, one after the other), or None
        when the race is over (``reason`` says why)."""
        if self.reason is not None:
            return None
        if self._pending is not None:
            return self._pending
        rng = random.Random(f"referee-race/{self.seed}/{self.rounds}")
        tables, passes, fillers = self._pairwise_tables(rng) if self.pool is not None else self._field_tables(rng)
        if self.games + len(tables) * self.table_size > self.max_games:
            self.reason = (
                f"stopped at --max-games {self.max_games:,}: the next round would pass it, and the order of the top "
                f"{self.top} is not settled at {self.confidence:.0%}"
            )
            return None
        self._passes = passes
        self._fillers = fillers
        self._pending = [tuple(self.names[i] for i in t) for t in tables]
        return self._pending

    def _field_tables(self, rng: random.Random) -> tuple[list[list[int]], list[int], npt.NDArray[np.bool_]]:
        """Field phase: every pass a seeded shuffle of the survivors cut into tables, the last one filled."""
        k = self.table_size
        survivors = [self._index[s] for s in self.survivors]
        out = self._out
        tables: list[list[int]] = []
        passes: list[int] = []
        fillers: list[list[bool]] = []
        for p in range(BLOCKS_PER_ROUND):
            players = list(survivors)
            rng.shuffle(players)
            part = [players[i : i + k] for i in range(0, len(players), k)]
            short = k - len(part[-1])
            flags = [[False] * k for _ in part]
            if short:
                extra = rng.sample(out[: 2 * short], min(short, len(out)))
                spare = [s for s in survivors if s not in part[-1]]
                extra += rng.sample(spare, short - len(extra))
                flags[-1][k - short :] = [True] * short
                part[-1] += extra
            tables += part
            passes += [p] * len(part)
            fillers += flags
        return tables, passes, np.array(fillers, dtype=bool).reshape(-1, k)

    def _pairwise_tables(self, rng: random.Random) -> tuple[list[list[int]], list[int], npt.NDArray[np.bool_]]:
        """Pairwise phase: the top K + 1 Swiss-style, every other survivor with the best survivors not yet proven
        ahead of it; only tables with an undecided pair that matters (one of them in the estimated top K)."""
        k = self.table_size
        order = self._ranked()
        ranking = order + self._out
        best = set(order[: self.top])
        closure, near, place = self._closure, self._near, self._place
        rank = {e: i for i, e in enumerate(order)}

        def decided(a: int, b: int) -> bool:  # proven ahead either way, or not behind by the margin in rank order
            if rank[b] < rank[a]:
                a, b = b, a
            pa, pb = place[a], place[b]
            return bool(closure[pa, pb] or closure[pb, pa] or near[pa, pb])

        def useful(table: Sequence[int]) -> bool:
            return any(
                (a in best or b in best) and self.alive[a] and self.alive[b] and not decided(a, b)
                for a, b in itertools.combinations(table, 2)
            )

        def seated(c: int, anchors: list[int]) -> list[int]:  # c, its anchors, then the best-ranked others
            anchors = anchors[: k - 1]
            return [
                c,
                *anchors,
                *itertools.islice((a for a in ranking if a != c and a not in anchors), k - 1 - len(anchors)),
            ]

        challenges = [
            seated(c, [a for a in order if a != c and not near[place[a], place[c]]]) for c in order[self.top :]
        ]
        if self.tie_margin:  # "not behind by the margin" does not chain twice: pairs inside the top K meet directly
            for i, c in enumerate(order[1 : self.top], 1):
                above = [a for a in order[:i] if not near[place[a], place[c]]]
                if above:
                    challenges.append(seated(c, above))
        swiss = order[: self.top + 1]
        tables: list[list[int]] = []
        passes: list[int] = []
        start = rng.randrange(k)
        by_offset: dict[int, list[list[int]]] = {}  # a pass's tables depend on its offset only
        for p in range(self._round_passes()):
            offset = (start + p) % k if len(swiss) > k else 0  # the passes cycle through the offsets
            if offset not in by_offset:
                groups = [swiss[max(0, i) : i + k] for i in range(offset - k, len(swiss), k)]
                seen: set[frozenset[int]] = set()
                chosen = by_offset[offset] = []
                for table in [g + _nearest(g, ranking, k - len(g)) for g in groups if g] + challenges:
                    if frozenset(table) not in seen and useful(table):
                        seen.add(frozenset(table))
                        chosen.append(table)
            tables += [list(t) for t in by_offset[offset]]
            passes += [p] * len(by_offset[offset])
        if not tables:  # not reached while "ahead" is consistent; if it is not, play the top's table anyway
            tables, passes = [swiss[:k] + _nearest(swiss[:k], ranking, k - len(swiss[:k]))], [0]
        return tables, passes, np.zeros((len(tables), k), dtype=bool)

    def _round_passes(self) -> int:
        """The passes of the next pairwise round: BLOCKS_PER_ROUND, or PASS_GROWTH of those played before."""
        return max(BLOCKS_PER_ROUND, int(PASS_GROWTH * self._pair_passes))

    def next_round(self) -> list[TableBatch] | None:
        """The next round as the schedule's blocks (game ids and batch numbers go on from the earlier rounds'; the
        deals come from ``secret``), or None when the race is over."""
        tables = self.next_tables()
        if tables is None:
            return None
        pairs = [(self.rounds, table) for table in tables]
        return table_batches(pairs, self.seed, self.secret, first_batch=self.batches, first_ordinal=self.games)

    # ------------------------------------------------------------------------------------------ results

    def record(self, totals: Sequence[Mapping[str, float]]) -> None:
        """The results of the round ``next_tables`` (or ``next_round``) gave, table by table: entrant → its total
        score over the block's rotations. Updates the sequences, eliminates, and decides whether it is settled."""
        tables = self._pending
        if tables is None:
            raise RuntimeError("record() without a round from next_tables()")
        if len(totals) != len(tables):
            raise ValueError(f"a round of {len(tables)} tables, got results of {len(totals)}")
        seats = np.array([[self._index[n] for n in t] for t in tables], dtype=np.int64)
        scores = np.array([[float(block[n]) for n in t] for t, block in zip(tables, totals, strict=True)])
        if self.pool is None:
            self._record_shares(seats, scores)
        else:
            self._record_pairs(seats, scores)
            self._pair_passes += len(set(self._passes))
        self.games += len(tables) * self.table_size
        self.batches += len(tables)
        self.rounds += 1
        self._pending = None
        self._eliminate()
        self._check_settled()
        if self.pool is None and self.reason is None and len(self.survivors) <= PAIRWISE_FROM:
            self._start_pairwise()

    def _record_shares(self, seats: Ints, scores: npt.NDArray[np.float64]) -> None:
        """Field phase: each survivor's matchpoint share on its counted block of each pass, one bet per pass."""
        k = self.table_size
        below = (scores[:, :, None] < scores[:, None, :]).sum(-1)
        ties = (scores[:, :, None] == scores[:, None, :]).sum(-1) - 1
        shares = (below + 0.5 * ties) / (k - 1)
        counted = self.alive[seats] & ~self._fillers
        passes = np.array(self._passes)
        for p in range(BLOCKS_PER_ROUND):
            lam = bet(self.rounds * BLOCKS_PER_ROUND + p + 1, float(self.cs.variance[self.alive].mean()), self.alpha)
            chosen = counted & (passes == p)[:, None]
            self.cs.update(seats[chosen], shares[chosen], lam)

    def _record_pairs(self, seats: Ints, scores: npt.NDArray[np.float64]) -> None:
        """Pairwise phase: every two entrants of the pool at a table add their head-to-head observation."""
        m = len(self._shared)
        pairs = list(itertools.combinations(range(self.table_size), 2))
        first, second = np.array([i for i, _ in pairs]), np.array([j for _, j in pairs])
        place = self._place[seats]
        both = (place[:, first] >= 0) & (place[:, second] >= 0)
        a, b = place[:, first][both], place[:, second][both]
        gain = (scores[:, second] - scores[:, first])[both]  # a's advantage: b's total minus a's (lower is better)
        swap = a > b
        a, b, gain = np.where(swap, b, a), np.where(swap, a, b), np.where(swap, -gain, gain)
        clip = self._clip()
        shares = self._share(gain, clip)
        if self.tie_margin:
            self._plus.update(a * m + b, self._share(gain + self._shift, clip))
            self._minus.update(a * m + b, self._share(gain - self._shift, clip))
        np.add.at(self._squares, (a, b), gain**2)
        np.add.at(self._shared, (a, b), 1)
        np.add.at(self._shared, (b, a), 1)
        np.add.at(self._advantage, (a, b), gain)
        np.add.at(self._advantage, (b, a), -gain)
        decided = int(self.pairs.above.sum() + self.pairs.below.sum())
        self.pairs.update(a * m + b, shares)
        if int(self.pairs.above.sum() + self.pairs.below.sum()) != decided:
            ahead = self._frozen | self.pairs.above.reshape(m, m) | self.pairs.below.reshape(m, m).T
            for v in range(m):  # Warshall: the transitive closure
                ahead |= ahead[:, v, None] & ahead[None, v, :]
            self._closure = ahead
        if self.tie_margin:
            self._near = _near_closure(
                self._closure, self._plus.above.reshape(m, m) | self._minus.below.reshape(m, m).T
            )
        else:
            self._near = self._closure

    def _clip(self) -> float | None:
        """The clip c of this round's paired differences (None: the sign). ``difference`` clips them at CLIP_SPREADS
        times the spread of the earlier rounds' paired differences around their pair's mean (pooled over the pairs):
        a clip fixed before the round (predictable)."""
        c = self.pair_bound
        if c is None and self.pair_statistic == "difference":
            met = np.triu(self._shared, 1)
            freedom = (met - 1).clip(0).sum()  # blocks of each pair, less one per pair met
            if freedom > 0:
                spread = self._squares - self._advantage**2 / np.where(met > 0, met, 1)  # around each pair's mean
                c = CLIP_SPREADS * float(np.sqrt(np.triu(spread, 1).sum() / freedom))
        return None if self.pair_statistic == "sign" else c

    @staticmethod
    def _share(gain: npt.NDArray[np.float64], c: float | None) -> npt.NDArray[np.float64]:
        """The head-to-head observations, in [0, 1], of the paired differences ``gain`` of places a < b (positive:
        a did better): clipped at ±c and scaled, or the sign when ``c`` is None or 0."""
        if not c:
            shares: npt.NDArray[np.float64] = (gain > 0) + 0.5 * (gain == 0)
        else:
            shares = (np.clip(gain, -c, c) + c) / (2 * c)
        return shares

    def _start_pairwise(self) -> None:
        """The pool is the survivors now; their frozen "ahead" relations carry over."""
        pool = np.flatnonzero(self.alive)
        m = len(pool)
        self.pool = pool
        self._place[pool] = np.arange(m)
        level = self.pair_error / max(1, m * (m - 1) // 2)  # a pair's share of the error
        if self.tie_margin:  # four one-sided tests a pair instead of two: half the level for each pair of them
            level /= 2
            self._plus = MixtureTests(m * m, level)
            self._minus = MixtureTests(m * m, level)
        self.pairs = MixtureTests(m * m, level)
        self._shared = np.zeros((m, m))
        self._advantage = np.zeros((m, m))
        self._squares = np.zeros((m, m))  # Σ of the squared paired differences, per pair (a < b)
        if self.field_phase:
            self._frozen = self.cs.lower[pool][:, None] > self.cs.upper[pool][None, :]
        else:
            self._frozen = np.zeros((m, m), dtype=bool)
        self._closure = self._frozen.copy()
        self._near = self._closure

    # ------------------------------------------------------------------------------------------ decisions

    def _relation(self) -> tuple[Ints, npt.NDArray[np.bool_]]:
        """The entrants whose "ahead" relations are known, and the relation: [i, j] when i is proven ahead of j."""
        if self.pool is not None:
            return self.pool, self._closure
        alive = np.flatnonzero(self.alive)
        return alive, self.cs.lower[alive][:, None] > self.cs.upper[alive][None, :]

    def ahead(self, a: str, b: str) -> bool:
        """Whether ``a`` is proven ahead of ``b`` (directly or through others)."""
        members, relation = self._relation()
        spot = {int(e): i for i, e in enumerate(members)}
        i, j = spot.get(self._index[a]), spot.get(self._index[b])
        return i is not None and j is not None and bool(relation[i, j])

    def _eliminate(self) -> None:
        if len(self.survivors) <= self.top:
            return
        members, relation = self._relation()
        behind = relation.sum(axis=0)  # how many entrants are proven ahead of each
        ahead = relation.sum(axis=1)
        rating = self._rating() if self.pool is not None else np.zeros(len(members))
        estimate = self.cs.estimate
        out = [i for i, e in enumerate(members) if self.alive[e] and behind[i] >= self.top]
        out = sorted(out, key=lambda i: -behind[i])[: len(self.survivors) - self.top]
        out.sort(key=lambda i: (behind[i], -ahead[i], -rating[i], -estimate[members[i]], members[i]))  # best first
        for i in out:
            self.alive[members[i]] = False
            self.eliminated[self.names[members[i]]] = self.rounds
        self._out = [int(members[i]) for i in out] + self._out  # latest first
        self.survivors = [s for s in self.survivors if self.alive[self._index[s]]]

    def _check_settled(self) -> None:
        if len(self.survivors) == self.top:
            ordered = self._ranked()
            if all(self.ahead(a, b) for a, b in itertools.pairwise(self.names[i] for i in ordered)):
                self.settled = True
                self.survivors = [self.names[i] for i in ordered]
                self.reason = (
                    f"the order of the top {self.top} is settled at {self.confidence:.0%} confidence after "
                    f"{self.rounds} rounds ({self.games:,} games)"
                )
                return
        if self.tie_margin and self.pool is not None:
            self._check_settled_within_margin()

    def _check_settled_within_margin(self) -> None:
        """Settled up to the tie margin E: every entrant of the estimated top K is proven not behind every survivor
        ranked below it by E or more (the eliminated are behind K survivors, hence behind the top K or within E)."""
        ordered = self._ranked()
        place = self._place
        pairs = [(a, b) for i, a in enumerate(ordered[: self.top]) for b in ordered[i + 1 :]]
        if not all(self._near[place[a], place[b]] for a, b in pairs):
            return
        self.settled = True
        self.survivors = [self.names[i] for i in ordered]
        self.within_margin = tuple(
            (self.names[a], self.names[b]) for a, b in pairs if not self._closure[place[a], place[b]]
        )
        self.reason = (
            f"the order of the top {self.top} is settled at {self.confidence:.0%} confidence up to a tie margin of "
            f"{self.tie_margin:g} points per game ({len(self.within_margin)} pair(s) within it) after "
            f"{self.rounds} rounds ({self.games:,} games)"
        )

    def _rating(self) -> npt.NDArray[np.float64]:
        """Least-squares ratings of the pool from the paired score differences (a higher rating is better)."""
        laplacian = np.diag(self._shared.sum(axis=1)) - self._shared
        ridge = 1e-6 * (1.0 + laplacian.diagonal().mean()) * np.eye(len(laplacian))  # unconnected: rating 0
        rating: npt.NDArray[np.float64] = np.linalg.solve(laplacian + ridge, self._advantage.sum(axis=1))
        return rating

    def _ranked(self) -> list[int]:
        """The survivors best first: fewest proven ahead, most proven behind, rating, own estimate; then a random key
        seeded by the seed and the round (the same for the schedule and the outcome)."""
        members, relation = self._relation()
        spot = {int(e): i for i, e in enumerate(members)}
        rating = self._rating() if self.pool is not None else np.zeros(len(members))
        estimate = self.cs.estimate
        behind, ahead = relation.sum(axis=0), relation.sum(axis=1)
        survivors = [self._index[s] for s in self.survivors]
        rng = random.Random(f"referee-race/{self.seed}/{self.rounds}/order")
        jitter = {e: rng.random() for e in survivors}

        def key(e: int) -> tuple[float, ...]:
            i = spot[e]
            return (behind[i], -ahead[i], -rating[i], -estimate[e], jitter[e])

        return sorted(survivors, key=key)

    def _eliminated_order(self) -> list[str]:
        """The eliminated entrants, latest first; those of one round best first (as ``_ranked`` orders)."""
        return [self.names[e] for e in self._out]

    # ------------------------------------------------------------------------------------------ outcome

    def leaders(self) -> list[str]:
        """The race's current answer for the top K, best first: the settled order, else its estimate (what
        ``outcome`` reports if the race stops now, e.g. at ``max_games``)."""
        if self.settled:
            return self.survivors[: self.top]
        return [self.names[i] for i in self._ranked()[: self.top]]

    def outcome(self) -> RaceOutcome:
        survivors = self.survivors if self.settled else [self.names[i] for i in self._ranked()]
        return RaceOutcome(
            top=self.top,
            confidence=self.confidence,
            settled=self.settled,
            reason=self.reason,
            games=self.games,
            rounds=self.rounds,
            order=tuple(survivors + self._eliminated_order()),
            bounds={
                n: (round(float(self.cs.lower[i]), 6), round(float(self.cs.upper[i]), 6))
                for i, n in enumerate(self.names)
                if self.cs.t[i]
            },
            eliminated=dict(self.eliminated),
            tie_margin=self.tie_margin,
            within_margin=self.within_margin,
        )


def _near_closure(ahead: npt.NDArray[np.bool_], near: npt.NDArray[np.bool_]) -> npt.NDArray[np.bool_]:
    """[a, b]: a is proven not behind b by the margin or more, from the closed relation ``ahead`` and the direct
    "not behind by the margin" relation ``near``: a path of "ahead" steps with at most one ``near`` step (two near
    steps could add up to twice the margin)."""
    step = (ahead | np.eye(len(ahead), dtype=bool)).astype(np.int64)
    through: npt.NDArray[np.bool_] = ahead | ((step @ (near | ahead).astype(np.int64) @ step) > 0)
    return through


def _nearest(group: Sequence[int], ranking: Sequence[int], count: int) -> list[int]:
    """``count`` entrants of ``ranking`` outside ``group`` nearest to it in the ranking (the better on a tie)."""
    if count <= 0:
        return []
    spots = [i for i, e in enumerate(ranking) if e in group]
    lo, hi = min(spots), max(spots)
    others = [i for i, e in enumerate(ranking) if e not in group]
    nearest = sorted(others, key=lambda i: (lo - i if i < lo else i - hi, i))[:count]
    return [ranking[i] for i in nearest]
