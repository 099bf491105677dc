"""The race format: an adaptive schedule that stops once the order of the top K entrants is settled.

*What it estimates* (the project's one estimand, docs/statistics.md): an entrant's **strength** m is its expected
matchpoints in a round robin at the table size, that is the expected share of a table's other entrants whose block
total it beats (ties half) when its table is drawn uniformly from every table of the field that holds it, on a fresh
deal. "a is ahead of b" means m_a > m_b. Every observation the race's tests use has a conditional mean fixed by m
alone, whatever the shape of the luck (skewed, heavy-tailed, an entrant much more erratic than the others) and
whatever the opponents do to each other (strength that depends on the opponent, cycles, an entrant that farms weak
tables): it is what a round robin would find. The tests are betting tests for bounded observations, so they hold
under optional stopping with no assumption on the distribution beyond independent deals and bots that do not learn.

The race goes in rounds of ``BLOCKS_PER_ROUND`` *passes* (a long pairwise phase grows them: ``PASS_GROWTH``); every
table is a block (one deal, every game of its seat orders). The tables of a round depend only on the seed, the round
number and the results of the earlier rounds. It has two phases.

*Field phase* (while more than ``PAIRWISE_FROM`` entrants survive). A pass is a seeded random partition of the
**whole field** (eliminated entrants too) into tables, the last one completed with random others who do not count
there; tables with no survivor are not played. A survivor's table is then a uniform draw of the tables that hold it,
so its matchpoint share there is an unbiased observation of its m. Each entrant carries a confidence sequence of
those shares (``confseq.BettingCSArray``, Waudby-Smith & Ramdas 2023) at level 1 − alpha/(2N); a is *ahead* of b
when a's lower bound is above b's upper bound.

*Pairwise phase* (from the first round that starts with at most ``PAIRWISE_FROM`` survivors; from the start in a
field that small). The survivors then form the *pool* P, and every two entrants of P run two one-sided sequential
tests ("a is ahead", "b is ahead": ``confseq.MixtureTests``) at level alpha'/(|P|(|P|−1)/2), alpha' = alpha/2 after
a field phase and alpha without one. A pass draws a set S of k − 1 *common opponents* uniformly from the whole field,
and every *contender* (a survivor in an undecided pair that matters: one of the two in the estimated top K) outside S
plays one block at the table S + itself. For two contenders a and b of the pass:

- both outside S: x = (mp_a − mp_b + 1)/2, their matchpoints against the same opponents;
- a in S (so a sits at b's table, a *direct* table): x = 1/2 + (mp_a − mp_b)/4, both at b's table;
- both in S: no observation.

Over the draw of S, E[x] = 1/2 + κ·(m_a − m_b) exactly, κ = (N − 1)/(2(N + k − 2)): the common-opponent case and
the direct case come with probabilities in the ratio (N − k) : 2(k − 1), and the direct case's weight 1/4 (against
1/2) brings that to (N − k) : (k − 1), the round robin's own weights of the tables without and with the other. So
"a is not ahead of b" (m_a ≤ m_b) means every conditional mean of x is at most 1/2, the betting mixture is a
nonnegative supermartingale and Ville's inequality bounds the chance that it ever rejects. The contenders'
matchpoints at their own tables (outside S) keep feeding their confidence sequences. "ahead" is closed
transitively: m is one number per entrant, so the closure adds no error.

*Direct evidence and cycles.* A pass's contender and each pool entrant among its common opponents also feed a
head-to-head duel test ("a beats b on the deal", a's block total below b's, ties half) at the same level, a separate
family (a reported cycle is a claim too). The table's other seats are then a uniform draw from the rest of the field,
so the duel's mean is the round robin's head-to-head one; two common opponents are not compared (their table's
remaining seat is a contender, a strong entrant, which would bias the duel toward whoever does better against the
strong). Head-to-head results need not follow strength against the field: rock-paper-scissors bots go round
(a beats b beats c beats a), and an erratic bot can beat a steadier one head to head more often than not while
beating less of the field. Such *cycles* (groups whose proven duels and proven "ahead" relations go round) are
reported in the outcome, the standings and the report; the order stays the round robin's, which is what the race
estimates. A symmetric cycle leaves the strengths equal, so it is never settled (the race runs to ``max_games``). If
the pair tests themselves ever contradict each other (a proven ahead of b, proven ahead of a, through the closure:
possible only on the event of probability at most alpha), the race stops, not settled, and says so.

After every round a survivor with at least K entrants ahead of it is *eliminated*, and the race is *settled* when K
survivors remain, each ahead of the next. It also stops before a round that would pass ``max_games``.

Guarantee (probability at least 1 − alpha, alpha = 1 − confidence): every sequence covers its entrant's m at every
round, and no pair test rejects a true "not ahead" (a union bound over the N sequences and over the pairs of P; the
pair tests start at a round fixed by the past, so their Ville bound holds conditionally on it: optional continuation,
Grünwald, de Heide & Koolen, "Safe testing", JRSS-B 2024). On that event no entrant of the true top K is eliminated
and a settled order is the true one.

With a tie margin E (``tie_margin``, a matchpoint share), each pair of P also runs "a is not behind b by E or more"
and its mirror: the same mixtures fed y = (x + 2κE)/(1 + 2κE), whose mean is at most 1/2 when m_a ≤ m_b − E, the
four one-sided tests of a pair sharing its level. "Not behind by E" is closed through "ahead" steps with at most one
margin step; the race settles once every entrant of its estimated top K is proven ahead of, or not behind by E, every
survivor ranked below it: with probability at least 1 − alpha no reported pair of the top K is out of order by E or
more. ``within_margin`` lists the pairs settled only up to E.

*A mix of table sizes* (``table_mix``: size -> weight w_k, as a ladder mixes its tables). Each pass draws its table
size k (seeded, independent of the results), and the strength becomes the mix's: m = sum over k of w_k m_k, m_k the
round robin's at tables of k. A field pass draws k with w_k and measures every survivor once, so its matchpoints
have mean m and the sequences are unchanged. A pairwise pass observes a pair (a, b) unless both sit among its k - 1
common opponents, which happens with probability (k - 1)(k - 2) / (N(N - 1)) (the pass's redraw when no contender
is outside them never removes a pass that observes the pair); so it draws k with w_k / P(pair observed | k), and the
sizes of the observations a pair gets come with w_k. A pair observation at size k has mean 1/2 + kappa_k (m_a,k -
m_b,k), kappa_k falling as k grows: it is scaled towards 1/2 by kappa / kappa_k (kappa the smallest kappa_k, so it
stays in [0, 1]), which gives every size the slope kappa and the pair's mean 1/2 + kappa (m_a - m_b): the tests and
the tie margin hold as above. A contender's matchpoints at its own table (outside the common opponents: probability
1 - (k - 1)/N) feed its sequence only with a seeded probability proportional to P(pair observed | k) / P(outside | k),
so that they too come with w_k; its strength's estimate (which orders what is not proven) takes them all, each weighted
by that probability. A duel mixes the head-to-head means of the sizes (weighted by how often a pass of
each size seats the two). With one size nothing is drawn: the schedule is the one-size race's.

The schedule is a pure function of the parameters and the results of the earlier rounds, so a resumed race plays
exactly the games the interrupted one would have played.
"""

from __future__ import annotations

import itertools
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt

from referee.contest.deal_secret import DealSecret
from referee.contest.schedule import TableBatch, table_batches
from referee.contest.seating import games_per_block
from referee.tournament.confseq import BettingCSArray, MixtureTests

__all__ = ["Race", "RaceOutcome"]

#: Why a race that is not over stopped, as standings.json and the report say it: it was interrupted.
INTERRUPTED = "not finished: the race was interrupted; continue it with referee run --resume"
#: The pairwise phase starts with the first round that has at most this many survivors.
PAIRWISE_FROM = 32
#: Passes in a round. Several, so that a bot process plays several deals before it meets one again, and the
#: elimination rule runs less often.
BLOCKS_PER_ROUND = 4
#: A pairwise round has this share of the passes the pairwise phase has played so far (at least BLOCKS_PER_ROUND):
#: late in a long race a round is then many passes instead of four, so the race looks after every 5% more games.
PASS_GROWTH = 0.05
#: Draws of the common opponents a pass may take to find a contender outside them (a small field) before the round
#: goes on with the passes it has.
MAX_DRAWS = 64

Ints = npt.NDArray[np.int64]
Bools = npt.NDArray[np.bool_]
Floats = npt.NDArray[np.float64]


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
    tie_margin: float = 0.0  # matchpoints: pairs closer than this may be reported in either order
    #: Pairs (higher, lower) of the reported order, the higher in the top K, proven only "not behind by more than
    #: the tie margin", not ahead (empty without a margin).
    within_margin: tuple[tuple[str, str], ...] = ()
    #: Groups of entrants whose head-to-head results and strength against the field go round (see the module).
    cycles: tuple[tuple[str, ...], ...] = ()
    #: Each entrant's estimated strength: its mean matchpoints at the tables that measure it (None: none yet).
    strength: dict[str, float] = field(default_factory=dict)
    #: For each place of ``order`` but the last: whether the race proved it ahead of the next (the guarantee above).
    ahead_of_next: tuple[bool, ...] = ()

    #: Its key in standings.json (``formats.base.Outcome``, which this is).
    key = "race"

    @property
    def final_games(self) -> int | None:
        """The games the race played once it is over (settled, or stopped at ``--max-games``); None while it runs."""
        return None if self.reason is None else self.games

    def to_dict(self) -> dict[str, Any]:
        """Its JSON form (standings.json's ``race``); a race not over says so as its ``reason``."""
        return {
            "top": self.top,
            "confidence": self.confidence,
            "settled": self.settled,
            "reason": self.reason if self.reason is not None else INTERRUPTED,
            "games": self.games,
            "rounds": self.rounds,
            "order": list(self.order[: self.top]),
            "estimand": "matchpoints",
            "strength": self.strength,
            "bounds": {n: list(b) for n, b in self.bounds.items()},
            "eliminated_after_round": self.eliminated,
            "tie_margin": self.tie_margin,
            "within_margin": [list(p) for p in self.within_margin],
            "cycles": [list(c) for c in self.cycles],
        }

    def lines(self) -> list[str]:
        """How the race ended, for ``referee run`` (none while it runs): why it stopped, the pairs settled only up
        to the tie margin, and the cycles."""
        if self.reason is None:
            return []
        out = [f"Race: {self.reason}; {self.games:,} games used"]
        if self.within_margin:
            out.append(
                "Settled up to the tie margin (proven only that the second is not ahead of the first by the margin or "
                f"more; their exact order was not tested further): {_pairs(self.within_margin)}"
            )
        out.extend(
            f"Cycle: {', '.join(cycle)}: their head-to-head results go round, or disagree with their strength against "
            "the field (the race's order is the field's, as a round robin's)"
            for cycle in self.cycles
        )
        return out

    def banner(self) -> str:
        """The report's paragraph: the race, whether it settled its top places, its games and why it stopped."""
        reason = self.reason if self.reason is not None else INTERRUPTED
        out = (
            f"Race for the top {self.top} at {self.confidence:.0%} confidence: "
            f"{'settled' if self.settled else 'not settled'} ({', '.join(self.order[: self.top])}); "
            f"{self.games:,} games used in {self.rounds} rounds. Why it stopped: {reason}."
        )
        if self.within_margin:
            out += (
                f" Settled up to the tie margin of {self.tie_margin:g} matchpoints (the second is proven not ahead of "
                "the first by the margin or more; the exact order was not tested further): "
                f"{_pairs(self.within_margin)}."
            )
        if self.cycles:
            out += (
                " Cycles (head-to-head results that go round, or disagree with strength against the field; the order "
                f"is the field's): {'; '.join(', '.join(c) for c in self.cycles)}."
            )
        return out

    def places(self, names: Sequence[str]) -> dict[str, str]:
        """Why each entrant of ``names`` (best first) holds its place: proven ahead of the next, left the race (after
        which round), or still in it when the race stopped."""
        top, within = self.top, set(self.within_margin)
        out: dict[str, str] = {}
        for place, name in enumerate(names, start=1):
            if name in self.eliminated:
                out[name] = f"left the race after round {self.eliminated[name]}: proven behind the entrants still in it"
            elif place <= top and self.settled:
                nxt = names[place] if place < len(names) else None
                if nxt is not None and (name, nxt) in within:
                    out[name] = f"top {top}: within the tie margin of {nxt}, not behind it by the margin or more"
                else:
                    out[name] = f"top {top}: proven ahead of every entrant below it"
            elif place <= top:
                out[name] = f"top {top} by estimate: the race stopped before it proved this order"
            else:
                out[name] = "still in the race when it stopped, behind the top places by estimate"
        return out


def _pairs(pairs: Sequence[tuple[str, str]]) -> str:
    return ", ".join(f"{a} over {b}" for a, b in pairs)


@dataclass(frozen=True, slots=True)
class _Table:
    """A table of the pending round: its entrants (indices), which seats' matchpoints measure their entrant's
    strength (a uniform draw of its tables), its pass, and in the pairwise phase the pass's contender seated there."""

    seats: tuple[int, ...]
    counted: tuple[bool, ...]
    pass_no: int
    contender: int = -1
    #: A pairwise table of a mix: the weight of the contender's matchpoints in its strength's estimate (every such
    #: table counts there, weighted so that the sizes come with the mix's weights; ``counted`` thins the sequence's).
    weight: float = 1.0


class Race:
    """The race's state. Call ``next_round`` (or ``next_tables``) for a round, play it, and ``record`` its results.

    ``secret`` deals the blocks of ``next_round``; without it every deal seed is 0 (for replaying the schedule from
    stored results only: the tables and game ids do not depend on it). Raises ``ValueError`` for a bad tie margin."""

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
        tie_margin: float = 0.0,
        table_mix: Mapping[int, float] | None = None,
    ) -> None:
        if not 0 <= tie_margin < 1:
            raise ValueError(f"tie_margin must be a matchpoint share from 0 up to 1, got {tie_margin}")
        mix = {int(k): float(w) for k, w in (table_mix or {table_size: 1.0}).items() if w > 0}
        if not mix or max(mix) != table_size or min(mix) < 2:
            raise ValueError(f"table_mix must weigh sizes from 2 up to table_size {table_size}, got {table_mix}")
        self.names = tuple(names)
        self.secret = secret
        self.table_size = table_size
        self.seed = seed
        self.top = top
        self.confidence = confidence
        self.max_games = max_games
        self.tie_margin = tie_margin
        n = len(self.names)
        #: Table size -> its share of the passes (one size unless ``table_mix`` mixes several).
        self.table_mix = {k: w / sum(mix.values()) for k, w in sorted(mix.items())}
        # E[x | k] = 1/2 + kappa_k (m_a,k - m_b,k); a pass at size k scales x - 1/2 by kappa / kappa_k (at most 1)
        self._kappas = {k: (n - 1) / (2 * (n + k - 2)) for k in self.table_mix}
        self._kappa = min(self._kappas.values())  # E[x] = 1/2 + kappa (m_a - m_b), m mixed over the sizes
        # A pairwise pass observes a pair unless both sit among its k - 1 common opponents, and measures a contender
        # at its own table unless it sits among them: drawn with w_k / P(pair observed | k), and a contender's own
        # table counted with a probability proportional to P(pair observed | k) / P(contender outside | k), both
        # kinds of observation come at the sizes' weights w_k (see the module).
        pair_seen = {k: 1 - (k - 1) * (k - 2) / (n * (n - 1)) for k in self.table_mix}
        self._pair_draw = {k: w / pair_seen[k] for k, w in self.table_mix.items()}
        keep = {k: pair_seen[k] / (1 - (k - 1) / n) for k in self.table_mix}
        self._keep_own = {k: v / max(keep.values()) for k, v in keep.items()}
        self.within_margin: tuple[tuple[str, str], ...] = ()
        self.cycles: tuple[tuple[str, ...], ...] = ()
        error = 1 - confidence
        self.field_phase = n > PAIRWISE_FROM  # whether the race starts with the entrants' own sequences
        self.alpha = error / 2 / n
        self.pair_error = error / 2 if self.field_phase else error
        self.cs = BettingCSArray(n, self.alpha)  # each entrant's strength (decides only in a field phase)
        self._mp_sum = np.zeros(n)  # Σ of the (weighted) matchpoints that measure each entrant's strength
        self._mp_w = np.zeros(n)  # Σ of their weights
        self._mp_n = np.zeros(n, dtype=np.int64)
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
        self._pending: list[_Table] | None = None
        self._pending_blocks: list[TableBatch] | None = None  # the pending round's blocks, once made
        self._common: dict[int, tuple[int, ...]] = {}  # pass -> its common opponents (pairwise phase)
        self._contending: frozenset[int] = frozenset()  # the pending pairwise round's contenders
        self._seatings: Counter[frozenset[str]] = Counter()  # blocks seated so far per table (seat orders)
        # The pairwise phase: the pool (entrant indices) and each entrant's place in it (-1: outside); pair tests on
        # entry a·m + b for places a < b ("above": a is ahead); with a margin, "a not behind b by E" (plus.above) and
        # "b not behind a by E" (minus.below); head-to-head duels.
        self.pool: Ints | None = None
        self._place = np.full(n, -1, dtype=np.int64)
        self.pairs = MixtureTests(0, 0.5)
        self._plus = MixtureTests(0, 0.5)
        self._minus = MixtureTests(0, 0.5)
        self._duels = MixtureTests(0, 0.5)
        self._cs_ahead = np.zeros((0, 0), dtype=bool)  # "ahead" from the sequences, in the pool (kept once seen)
        self._closure = np.zeros((0, 0), dtype=bool)
        self._contradiction: tuple[str, ...] = ()  # entrants in a cycle of proven "ahead" (only on the bad event)
        self._near = self._closure  # [a, b]: a proven not behind b by the margin or more (the closure without one)
        self._pair_passes = 0  # passes played in the pairwise phase
        if not self.field_phase:
            self._start_pairwise()

    # ------------------------------------------------------------------------------------------ schedule

    def next_tables(self) -> list[tuple[str, ...]] | None:
        """The tables of the next round (each one block), or None when the race is over (``reason`` says why)."""
        plan = self._plan()
        return None if plan is None else [tuple(self.names[i] for i in t.seats) for t in plan]

    def _plan(self) -> list[_Table] | None:
        if self.reason is not None:
            return None
        if self._pending is not None:
            return self._pending
        rng = random.Random(f"referee-race/2/{self.seed}/{self.rounds}")
        tables = self._pairwise_tables(rng) if self.pool is not None else self._field_tables(rng)
        if self.games + sum(games_per_block(len(t.seats)) for t in tables) > self.max_games:
            self.reason = (
                f"stopped at --max-games {self.max_games:,}: the next round would pass it, and the order of the top "
                f"{self.top} is not settled at {self.confidence:.0%}"
            )
            return None
        self._pending = tables
        return tables

    def _field_tables(self, rng: random.Random) -> list[_Table]:
        """Field phase: every pass a seeded random partition of the whole field into tables of a size drawn from
        the mix, the last table completed with random others (not counted there); only tables that measure a
        survivor."""
        n = len(self.names)
        tables: list[_Table] = []
        for p in range(BLOCKS_PER_ROUND):
            k = self._pass_size(rng, self.table_mix)
            everyone = list(range(n))
            rng.shuffle(everyone)
            for i in range(0, n, k):
                part = everyone[i : i + k]
                counted = [True] * len(part)
                if len(part) < k:
                    fill = rng.sample([e for e in range(n) if e not in part], k - len(part))
                    part, counted = part + fill, counted + [False] * len(fill)
                if any(c and self.alive[e] for e, c in zip(part, counted, strict=True)):
                    tables.append(_Table(tuple(part), tuple(counted), p))
        return tables

    def _contenders(self) -> list[int]:
        """Survivors in an undecided pair that matters (one of the two in the estimated top K), best first."""
        order = self._ranked()
        best = set(order[: self.top])
        rank = {e: i for i, e in enumerate(order)}
        place = self._place
        out: set[int] = set()
        for a, b in itertools.combinations(order, 2):
            if a not in best and b not in best:
                continue
            if rank[b] < rank[a]:
                a, b = b, a
            pa, pb = place[a], place[b]
            if not (self._closure[pa, pb] or self._closure[pb, pa] or self._near[pa, pb]):
                out |= {a, b}
        return [e for e in order if e in out] or order

    def _pairwise_tables(self, rng: random.Random) -> list[_Table]:
        """Pairwise phase: each pass draws k − 1 common opponents from the whole field; every contender outside them
        plays a block with them (the pass's table size drawn from the mix)."""
        n = len(self.names)
        contenders = self._contenders()
        tables: list[_Table] = []
        self._common = {}
        self._contending = frozenset(contenders)
        passes = self._round_passes()
        p = draws = 0
        while p < passes and draws < passes * MAX_DRAWS:
            draws += 1
            k = self._pass_size(rng, self._pair_draw)
            common = tuple(rng.sample(range(n), k - 1))
            playing = [c for c in contenders if c not in common]
            if not playing:
                continue
            self._common[p] = common
            for c in playing:
                seats = (c, *common)
                keep = self._keep_own[k]
                own = keep == 1 or rng.random() < keep  # no draw with one size
                tables.append(_Table(seats, (own,) + (False,) * (k - 1), p, c, keep))
            p += 1
        return tables

    def _pass_size(self, rng: random.Random, weights: Mapping[int, float]) -> int:
        """The table size of a pass, drawn with ``weights`` (no draw with one size, so a one-size race's schedule
        is the one it always was)."""
        sizes = list(weights)
        return sizes[0] if len(sizes) == 1 else rng.choices(sizes, weights=list(weights.values()))[0]

    def _round_passes(self) -> int:
        """The passes of the next pairwise round: BLOCKS_PER_ROUND, or PASS_GROWTH of those played before."""
        return max(BLOCKS_PER_ROUND, int(PASS_GROWTH * self._pair_passes))

    def next_round(self) -> list[TableBatch] | None:
        """The next round as the schedule's blocks (game ids and batch numbers go on from the earlier rounds'; the
        deals come from ``secret``), or None when the race is over."""
        tables = self.next_tables()
        if tables is None:
            return None
        if self._pending_blocks is None:
            pairs = [(self.rounds, table) for table in tables]
            self._pending_blocks = table_batches(
                pairs, self.seed, self.secret, first_batch=self.batches, first_ordinal=self.games,
                seatings=self._seatings,
            )  # fmt: skip
        return self._pending_blocks

    # ------------------------------------------------------------------------------------------ results

    def record(self, totals: Sequence[Mapping[str, float]]) -> None:
        """The results of the round ``next_tables`` (or ``next_round``) gave, table by table: entrant → its total
        score over the block's games (forfeits counted as ``counting.counted_scores`` counts them). Updates the
        tests, eliminates, and decides whether it is settled. Raises ``RuntimeError`` without a pending round and
        ``ValueError`` for results of another number of tables."""
        tables = self._pending
        if tables is None:
            raise RuntimeError("record() without a round from next_tables()")
        if len(totals) != len(tables):
            raise ValueError(f"a round of {len(tables)} tables, got results of {len(totals)}")
        seats = [np.array(t.seats, dtype=np.int64) for t in tables]
        scores = [
            np.array([float(block[self.names[i]]) for i in t.seats]) for t, block in zip(tables, totals, strict=True)
        ]
        shares = [_matchpoints(s) for s in scores]  # each seat's matchpoints at its table
        counted = [np.array(t.counted, dtype=bool) & self.alive[e] for t, e in zip(tables, seats, strict=True)]
        self.cs.update(
            np.concatenate([e[c] for e, c in zip(seats, counted, strict=True)]),
            np.concatenate([s[c] for s, c in zip(shares, counted, strict=True)]),
        )
        estimated = [  # a pairwise table's contender always, weighted
            (np.array(t.counted, dtype=bool) | (np.arange(len(t.seats)) == 0) & (t.contender >= 0)) & self.alive[e]
            for t, e in zip(tables, seats, strict=True)
        ]
        self._estimate(
            np.concatenate([e[c] for e, c in zip(seats, estimated, strict=True)]),
            np.concatenate([s[c] for s, c in zip(shares, estimated, strict=True)]),
            np.concatenate([np.full(int(c.sum()), t.weight) for t, c in zip(tables, estimated, strict=True)]),
        )
        if self.pool is not None:
            self._record_pairs(tables, shares)
            for k in self.table_mix:  # the duels, a table size at a time
                rows = [i for i, t in enumerate(tables) if len(t.seats) == k]
                if rows:
                    self._record_duels(np.stack([seats[i] for i in rows]), np.stack([scores[i] for i in rows]))
            self._pair_passes += len({t.pass_no for t in tables})
        self.games += sum(games_per_block(len(t.seats)) for t in tables)
        self.batches += len(tables)
        self.rounds += 1
        self._pending = None
        self._pending_blocks = None
        self._update_relations()
        self._eliminate()
        self._check_settled()
        if self.pool is None and self.reason is None and len(self.survivors) <= PAIRWISE_FROM:
            self._start_pairwise()

    def _estimate(self, who: Ints, shares: Floats, weights: Floats) -> None:
        """Matchpoints that measure their entrant's strength, with their weights: its estimate."""
        np.add.at(self._mp_sum, who, shares * weights)
        np.add.at(self._mp_w, who, weights)
        np.add.at(self._mp_n, who, 1)

    def _record_pairs(self, tables: Sequence[_Table], shares: Sequence[Floats]) -> None:
        """Pairwise phase: the pair observations of every pass (common opponents and direct tables), a pass at
        table size k scaled towards 1/2 by kappa / kappa_k so that every size's observation has the same slope."""
        m = len(self.pool) if self.pool is not None else 0
        place = self._place
        cons = sorted(self._contending, key=lambda e: place[e])  # the round's contenders, in pool order
        col = {e: i for i, e in enumerate(cons)}
        passes = 1 + max(t.pass_no for t in tables)
        scale = np.ones((passes, 1))  # [p]: kappa / kappa_k of pass p's table size k
        own = np.full((passes, len(cons)), np.nan)  # [p, a]: a's matchpoints at its own table of pass p
        at = np.full((passes, len(cons), len(cons)), np.nan)  # [p, a, b]: a's (one of the common) at b's table
        for row, t in enumerate(tables):
            b = col[t.contender]
            scale[t.pass_no] = self._kappa / self._kappas[len(t.seats)]
            own[t.pass_no, b] = shares[row][0]
            for seat in range(1, len(t.seats)):
                a = col.get(t.seats[seat])
                if a is not None:
                    at[t.pass_no, a, b] = shares[row][seat]
        i, j = np.triu_indices(len(cons), 1)
        pair = np.broadcast_to(
            place[np.array(cons, dtype=np.int64)][i] * m + place[np.array(cons, dtype=np.int64)][j], (passes, len(i))
        )
        observed = [
            0.5 + scale * x
            for x in (
                (own[:, i] - own[:, j]) / 2,  # both at their own tables: the same common opponents
                (at[:, i, j] - own[:, j]) / 4,  # a among the common opponents, at b's table: a direct table
                (own[:, i] - at[:, j, i]) / 4,  # b among them, at a's table
            )
        ]
        idx = np.concatenate([pair[~np.isnan(x)] for x in observed])
        x = np.concatenate([x[~np.isnan(x)] for x in observed])
        if len(idx):
            self.pairs.update(idx, x)
            if self.tie_margin:
                shift = 2 * self._kappa * self.tie_margin
                self._plus.update(idx, (x + shift) / (1 + shift))
                self._minus.update(idx, x / (1 + shift))

    def _record_duels(self, seats: Ints, scores: Floats) -> None:
        """The contender of each table against every pool entrant among the pass's common opponents: "a beat b on the
        deal" (a's block total lower, ties half). Given that b is among the common opponents and a is not, the table's
        other seats are a uniform draw from the rest of the field, as a round robin seats a and b, so the duel has the
        round robin's head-to-head mean. Two common opponents are not compared: their table's remaining seat is a
        contender, and contenders are the strong (over-represented against the round robin)."""
        m = len(self.pool) if self.pool is not None else 0
        k = seats.shape[1]
        second = np.arange(1, k)
        place = self._place[seats]
        both = (place[:, :1] >= 0) & (place[:, second] >= 0)
        a, b = np.broadcast_to(place[:, :1], both.shape)[both], place[:, second][both]
        own = np.broadcast_to(scores[:, :1], both.shape)[both]
        win = own < scores[:, second][both]
        tie = own == scores[:, second][both]
        x = win + 0.5 * tie
        swap = a > b
        lo, hi = np.where(swap, b, a), np.where(swap, a, b)
        self._duels.update(lo * m + hi, np.where(swap, 1 - x, x))

    def _start_pairwise(self) -> None:
        """The pool is the survivors now; the sequences' "ahead" relations carry over (when they decide)."""
        pool = np.flatnonzero(self.alive)
        m = len(pool)
        self.pool = pool
        self._place[pool] = np.arange(m)
        level = self.pair_error / max(1, m * (m - 1) // 2)  # a pair's share of the error
        self._duels = MixtureTests(m * m, (1 - self.confidence) / max(1, m * (m - 1) // 2))
        if self.tie_margin:  # four one-sided tests a pair instead of two: half the level for each pair of them
            level /= 2
            self._plus = MixtureTests(m * m, level)
            self._minus = MixtureTests(m * m, level)
        self.pairs = MixtureTests(m * m, level)
        self._cs_ahead = np.zeros((m, m), dtype=bool)
        self._update_relations()

    # ------------------------------------------------------------------------------------------ decisions

    def _update_relations(self) -> None:
        """Close "ahead" transitively (the sequences' relations, when they decide, and the pair tests), the margin's
        "not behind by E", and the cycles."""
        if self.pool is None:
            return
        m = len(self.pool)
        if self.field_phase:
            lower, upper = self.cs.lower[self.pool], self.cs.upper[self.pool]
            self._cs_ahead |= lower[:, None] > upper[None, :]
        ahead = self._cs_ahead | self.pairs.above.reshape(m, m) | self.pairs.below.reshape(m, m).T
        self._closure = _closed(ahead)
        self._contradiction = tuple(self.names[self.pool[i]] for i in np.flatnonzero(self._closure.diagonal()))
        if self.tie_margin:
            near = self._plus.above.reshape(m, m) | self._minus.below.reshape(m, m).T
            self._near = _near_closure(self._closure, near)
        else:
            self._near = self._closure
        beats = self._duels.above.reshape(m, m) | self._duels.below.reshape(m, m).T
        reach = _closed(self._closure | beats)
        together = reach & reach.T
        groups: dict[tuple[int, ...], None] = {}
        for i in range(m):
            members = tuple(int(j) for j in np.flatnonzero(together[i]))
            if len(members) > 1:
                groups[members] = None
        self.cycles = tuple(tuple(self.names[self.pool[j]] for j in g) for g in groups)

    def _relation(self) -> tuple[Ints, Bools]:
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

    def duels(self) -> list[tuple[str, str]]:
        """The proven head-to-head results, (winner, loser): "the winner beats the loser on the deal" at tables whose
        other seats are a uniform draw from the field, as a round robin seats them."""
        if self.pool is None:
            return []
        m = len(self.pool)
        beats = self._duels.above.reshape(m, m) | self._duels.below.reshape(m, m).T
        return [(self.names[self.pool[a]], self.names[self.pool[b]]) for a, b in zip(*np.nonzero(beats), strict=True)]

    def _eliminate(self) -> None:
        if len(self.survivors) <= self.top:
            return
        members, relation = self._relation()
        behind = relation.sum(axis=0)  # how many entrants are proven ahead of each
        ahead = relation.sum(axis=1)
        estimate = self.strength()
        out = [i for i, e in enumerate(members) if self.alive[e] and behind[i] >= self.top]
        out = sorted(out, key=lambda i: -behind[i])[: len(self.survivors) - self.top]
        out.sort(key=lambda i: (behind[i], -ahead[i], -estimate[members[i]], members[i]))  # best first
        for i in out:
            self.alive[members[i]] = False
            self.eliminated[self.names[members[i]]] = self.rounds
        self._out = [int(members[i]) for i in out] + self._out  # latest first
        self.survivors = [s for s in self.survivors if self.alive[self._index[s]]]

    def _check_settled(self) -> None:
        if self._contradiction:
            self.reason = (
                f"not settled: the tests contradict each other ({', '.join(self._contradiction)} each proven ahead of "
                f"another that is proven ahead of it), which happens in at most {1 - self.confidence:.0%} of races; "
                f"stopped after {self.rounds} rounds ({self.games:,} games)"
            )
            return
        ordered = self._ranked()
        top = [self.names[i] for i in ordered[: self.top]]
        if len(self.survivors) == self.top and all(self.ahead(a, b) for a, b in itertools.pairwise(top)):
            self._settle(ordered, None)
        elif self.tie_margin and self.pool is not None:
            place = self._place
            pairs = [(a, b) for i, a in enumerate(ordered[: self.top]) for b in ordered[i + 1 :]]
            if all(self._near[place[a], place[b]] for a, b in pairs):
                within = tuple(
                    (self.names[a], self.names[b]) for a, b in pairs if not self._closure[place[a], place[b]]
                )
                self._settle(ordered, within)

    def _settle(self, ordered: list[int], within: tuple[tuple[str, str], ...] | None) -> None:
        """Everything the order of the top K needs is proven (``within``: the pairs proven only up to the margin,
        None for the exact order): settle."""
        self.survivors = [self.names[i] for i in ordered]
        self.settled = True
        self.within_margin = within or ()
        margin = (
            ""
            if within is None
            else f" up to a tie margin of {self.tie_margin:g} matchpoints ({len(within)} pair(s) within it)"
        )
        self.reason = (
            f"the order of the top {self.top} is settled at {self.confidence:.0%} confidence{margin} after "
            f"{self.rounds} rounds ({self.games:,} games)"
        )

    def strength(self) -> Floats:
        """Each entrant's estimated strength: the mean of its matchpoints that measure it (1/2 before any)."""
        mean: Floats = np.where(self._mp_w > 0, self._mp_sum / np.where(self._mp_w > 0, self._mp_w, 1), 0.5)
        return mean

    def _ranked(self) -> list[int]:
        """The survivors best first: fewest proven ahead, most proven behind, estimated strength; then a random key
        seeded by the seed and the round (the same for the schedule and the outcome)."""
        members, relation = self._relation()
        spot = {int(e): i for i, e in enumerate(members)}
        estimate = self.strength()
        behind, ahead = relation.sum(axis=0), relation.sum(axis=1)
        survivors = [self._index[s] for s in self.survivors]
        rng = random.Random(f"referee-race/{self.seed}/{self.rounds}/order")
        jitter = {e: rng.random() for e in survivors}

        def key(e: int) -> tuple[float, ...]:
            i = spot[e]
            return (behind[i], -ahead[i], -estimate[e], jitter[e])

        return sorted(survivors, key=key)

    # ------------------------------------------------------------------------------------------ outcome

    def leaders(self) -> list[str]:
        """The race's current answer for the top K, best first: the settled order, else its estimate (what
        ``outcome`` reports if the race stops now, e.g. at ``max_games``)."""
        if self.settled:
            return self.survivors[: self.top]
        return [self.names[i] for i in self._ranked()[: self.top]]

    def outcome(self) -> RaceOutcome:
        survivors = self.survivors if self.settled else [self.names[i] for i in self._ranked()]
        order = tuple(survivors + [self.names[e] for e in self._out])
        estimate = self.strength()
        return RaceOutcome(
            top=self.top,
            confidence=self.confidence,
            settled=self.settled,
            reason=self.reason,
            games=self.games,
            rounds=self.rounds,
            order=order,
            bounds={
                n: (round(float(self.cs.lower[i]), 6), round(float(self.cs.upper[i]), 6))
                for i, n in enumerate(self.names)
                if self.cs.t[i]
            },
            eliminated=dict(self.eliminated),
            tie_margin=self.tie_margin,
            within_margin=self.within_margin,
            cycles=self.cycles,
            strength={n: round(float(estimate[i]), 6) for i, n in enumerate(self.names) if self._mp_n[i]},
            ahead_of_next=tuple(self.ahead(a, b) for a, b in itertools.pairwise(order)),
        )


def _matchpoints(scores: Floats) -> Floats:
    """Each seat's matchpoints at its table: the share of the other seats whose block total it beats (lower), ties
    half."""
    below = (scores[:, None] < scores[None, :]).sum(-1)
    ties = (scores[:, None] == scores[None, :]).sum(-1) - 1
    out: Floats = (below + 0.5 * ties) / (len(scores) - 1)
    return out


def _closed(ahead: Bools) -> Bools:
    """The transitive closure of a relation (Warshall)."""
    out = ahead.copy()
    for v in range(len(out)):
        out |= out[:, v, None] & out[None, v, :]
    return out


def _near_closure(ahead: Bools, near: Bools) -> Bools:
    """[a, b]: a is proven not behind b by the margin or more, from the closed relation ``ahead`` and the direct
    "not behind by the margin" relation ``near``: a path of "ahead" steps with at most one ``near`` step (two near
    steps could add up to twice the margin)."""
    step = (ahead | np.eye(len(ahead), dtype=bool)).astype(np.int64)
    through: Bools = ahead | ((step @ (near | ahead).astype(np.int64) @ step) > 0)
    return through
