"""The race format: an adaptive schedule that stops once the order of the top K entrants is settled.

The race goes in rounds. In each round every entrant still in the race (a *survivor*) plays exactly
``BLOCKS_PER_ROUND`` blocks (one deal at one table, every seat rotation): that many times, the survivors, and as few
eliminated entrants as fill the last seats, are shuffled and cut into tables. An entrant's observation on a block
is its matchpoint share (the share of the table it beat on that deal, ties half; ``dealstats.block_outcomes``), a
number in [0, 1].

Each survivor carries a confidence sequence (``confseq.BettingCS``, Waudby-Smith & Ramdas 2023) of its shares at
level 1 − alpha / (2N), and once at most ``PAIRWISE_FROM`` survivors remain, every two survivors that share a table
carry one of their head-to-head results on its deals (1 when the first's block total is lower, 1/2 on a tie) at
level 1 − alpha / (2·N(N−1)/2): union bounds over the entrants and the pairs. Every sequence is valid at all rounds
at once, so looking after every round costs nothing more. All survivors bet the same λ in a round, so their own
sequences estimate averages of their per-round expected shares with the same weights. A is *ahead* of B when A's
lower bound is above B's upper bound, or their head-to-head lower bound is above 1/2. After each round:

- a survivor is *eliminated* when at least K survivors are ahead of it;
- the race is *settled* when K survivors remain, each one ahead of the next.

The last table of each shuffle is completed with *fillers*: recently eliminated entrants, else survivors playing a
second block whose result does not count for them. It also stops before a round that would pass ``max_games``.

Guarantee: with probability at least 1 − alpha every sequence covers its target at every round. Then, as long as a
stronger entrant expects a higher share than a weaker one when both are seated at random among the same players,
and beats it more often than not at any table they share (true when results depend on a strength plus deal luck),
no entrant is eliminated from the top K wrongly and the settled order is the true one. This is a racing algorithm in
the sense of Maron & Moore (Hoeffding races, 1994/1997) and of Mnih, Szepesvári & Audibert (empirical Bernstein
stopping, 2008); F-race (Birattari et al. 2002) and irace race configurations the same way.

The schedule is a pure function of the parameters and the results of the earlier rounds, so a resumed race plays
exactly the games the interrupted one would have played.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from referee.tournament.confseq import BettingCS, bet
from referee.tournament.deals import DealSecret
from referee.tournament.dealstats import block_outcomes
from referee.tournament.params import TournamentParams
from referee.tournament.schedule import TableBatch, table_batches
from referee.tournament.store import SeatRow

__all__ = ["Race", "RaceOutcome", "race_of", "replay_race"]

#: Head-to-head sequences are kept from the round that starts with at most this many survivors.
PAIRWISE_FROM = 32
#: Blocks every survivor plays in a round (one per shuffle of the survivors). Several, so that a bot process plays
#: several deals before it meets one again (it is restarted then), and the elimination rule runs less often.
BLOCKS_PER_ROUND = 4


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
        }


class Race:
    """The race's state. Call ``next_round`` for a round's blocks, play them, and ``record`` their results.

    ``secret`` deals the blocks of ``next_round``; without it every deal seed is 0 (for replaying the schedule from
    stored results only: the tables and game ids do not depend on it)."""

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
    ) -> None:
        self.names = tuple(names)
        self.secret = secret
        self.table_size = table_size
        self.seed = seed
        self.top = top
        self.confidence = confidence
        self.max_games = max_games
        n = len(self.names)
        self.alpha = (1 - confidence) / 2 / n  # half the error for the entrants' sequences, half for the pairs'
        self.pair_alpha = (1 - confidence) / 2 / max(1, n * (n - 1) // 2)
        self.cs = {n: BettingCS(self.alpha) for n in self.names}
        self.pairs: dict[tuple[str, str], BettingCS] = {}  # (a, b) in entrant order: a's share of beating b
        self.survivors = list(self.names)
        self.eliminated: dict[str, int] = {}
        self.rounds = 0
        self.games = 0
        self.batches = 0
        self.reason: str | None = None
        self.settled = False
        self._pending: list[tuple[str, ...]] | None = None
        self._fillers: set[tuple[int, str]] = set()  # (table of the round, entrant): seats that only fill a table
        self._index = {n: i for i, n in enumerate(self.names)}

    # ------------------------------------------------------------------------------------------ schedule

    def next_tables(self) -> list[tuple[str, ...]] | None:
        """The tables of the next round (each one block; ``BLOCKS_PER_ROUND`` shuffles of the survivors, one after
        the other), or None when the race is over (``reason`` says why)."""
        if self.reason is not None:
            return None
        if self._pending is not None:
            return self._pending
        rng = random.Random(f"referee-race/{self.seed}/{self.rounds}")
        k = self.table_size
        tables: list[list[str]] = []
        self._fillers = set()
        for _ in range(BLOCKS_PER_ROUND):
            players = list(self.survivors)
            rng.shuffle(players)
            part = [players[i : i + k] for i in range(0, len(players), k)]
            short = k - len(part[-1])
            if short:
                out = sorted(self.eliminated, key=lambda n: (-self.eliminated[n], -self.cs[n].estimate, self._index[n]))
                fillers = rng.sample(out[: 2 * short], min(short, len(out)))
                spare = [n for n in self.survivors if n not in part[-1]]
                fillers += rng.sample(spare, short - len(fillers))
                part[-1] += fillers
                self._fillers |= {(len(tables) + len(part) - 1, n) for n in fillers}
            tables += part
        if self.games + len(tables) * k > self.max_games:
            self.reason = (
                f"stopped at --max-games {self.max_games:,}: the next round would pass it, and the order of the top "
                f"{self.top} is not settled at {self.confidence:.0%}"
            )
            return None
        self._pending = [tuple(t) for t in tables]
        return self._pending

    def next_round(self) -> list[TableBatch] | None:
        """The next round as the schedule's blocks (game ids and batch numbers go on from the earlier rounds'; the
        deals come from ``secret``), or None when the race is over."""
        tables = self.next_tables()
        if tables is None:
            return None
        pairs = [(self.rounds, table) for table in tables]
        return table_batches(pairs, self.seed, self.secret, first_batch=self.batches, first_ordinal=self.games)

    def record(self, totals: Sequence[Mapping[str, float]]) -> None:
        """The results of the round ``next_tables`` (or ``next_round``) gave, table by table: entrant → its total
        score over the block's rotations. Updates the sequences, eliminates, and decides whether it is settled."""
        tables = self._pending
        if tables is None:
            raise RuntimeError("record() without a round from next_tables()")
        if len(totals) != len(tables):
            raise ValueError(f"a round of {len(tables)} tables, got results of {len(totals)}")
        k = self.table_size
        pairwise = len(self.survivors) <= PAIRWISE_FROM
        per_shuffle = len(tables) // BLOCKS_PER_ROUND
        lam = 0.0
        for t, block in enumerate(totals):
            if t % per_shuffle == 0:  # a new shuffle: every survivor's next observation, with a bet fixed before it
                observed = self.rounds * BLOCKS_PER_ROUND + t // per_shuffle
                lam = bet(observed + 1, self._pooled_variance(), self.alpha)
            for name, outcome in block_outcomes(block, k).items():
                if name not in self.eliminated and (t, name) not in self._fillers:
                    self.cs[name].update(outcome.matchpoints, lam)
            if pairwise:
                here = sorted((n for n in block if n not in self.eliminated), key=self._index.__getitem__)
                for i, a in enumerate(here):
                    for c in here[i + 1 :]:
                        share = 1.0 if block[a] < block[c] else 0.5 if block[a] == block[c] else 0.0
                        self._pair(a, c).update(share)
        self.games += len(tables) * k
        self.batches += len(tables)
        self.rounds += 1
        self._pending = None
        self._eliminate()
        self._check_settled()

    def _pair(self, a: str, b: str) -> BettingCS:
        cs = self.pairs.get((a, b))
        if cs is None:
            cs = self.pairs[(a, b)] = BettingCS(self.pair_alpha)
        return cs

    def ahead(self, a: str, b: str) -> bool:
        """Whether ``a`` is settled ahead of ``b``: by their own sequences, or by their head-to-head sequence."""
        if self.cs[a].lower > self.cs[b].upper:
            return True
        if self._index[a] < self._index[b]:
            pair = self.pairs.get((a, b))
            return pair is not None and pair.lower > 0.5
        pair = self.pairs.get((b, a))
        return pair is not None and pair.upper < 0.5

    def _pooled_variance(self) -> float:
        return math.fsum(self.cs[n].variance for n in self.survivors) / len(self.survivors)

    def _eliminate(self) -> None:
        if len(self.survivors) <= self.top:
            return
        lows = sorted((self.cs[n].lower for n in self.survivors), reverse=True)
        kth_low = lows[self.top - 1]  # at least K survivors have a lower bound at least this high
        out = {n for n in self.survivors if self.cs[n].upper < kth_low}
        if len(self.survivors) <= PAIRWISE_FROM:
            out |= {e for e in self.survivors if sum(self.ahead(s, e) for s in self.survivors if s != e) >= self.top}
        for n in self.survivors:
            if n in out:
                self.eliminated[n] = self.rounds
        self.survivors = [n for n in self.survivors if n not in out]

    def _check_settled(self) -> None:
        if len(self.survivors) != self.top:
            return
        by_estimate = self._ranked(self.survivors)
        by_wins = sorted(by_estimate, key=lambda a: -sum(self.ahead(a, b) for b in self.survivors if b != a))
        for ordered in (by_estimate, by_wins):
            if all(self.ahead(a, b) for a, b in itertools.pairwise(ordered)):
                self.settled = True
                self.survivors = ordered
                self.reason = (
                    f"the order of the top {self.top} is settled at {self.confidence:.0%} confidence after "
                    f"{self.rounds} rounds ({self.games:,} games)"
                )
                return

    def _ranked(self, names: Sequence[str]) -> list[str]:
        return sorted(names, key=lambda n: (-self.cs[n].estimate, self._index[n]))

    # ------------------------------------------------------------------------------------------ outcome

    def outcome(self) -> RaceOutcome:
        out = sorted(self.eliminated, key=lambda n: (-self.eliminated[n], -self.cs[n].estimate, self._index[n]))
        return RaceOutcome(
            top=self.top,
            confidence=self.confidence,
            settled=self.settled,
            reason=self.reason,
            games=self.games,
            rounds=self.rounds,
            order=tuple((self.survivors if self.settled else self._ranked(self.survivors)) + out),
            bounds={n: (round(self.cs[n].lower, 6), round(self.cs[n].upper, 6)) for n in self.names},
            eliminated=dict(self.eliminated),
        )


def race_of(params: TournamentParams, secret: DealSecret | None = None) -> Race:
    """A new race with the parameters of ``params`` (format ``race``), dealt from ``secret`` (see ``Race``)."""
    return Race(
        params.names,
        table_size=params.table_size,
        seed=params.seed,
        top=params.top,
        confidence=params.confidence,
        max_games=params.max_games,
        secret=secret,
    )


def replay_race(
    race: Race, results: Mapping[str, Sequence[SeatRow]], rounds: list[TableBatch] | None = None
) -> list[TableBatch]:
    """Feed ``race`` every round whose games are all in ``results`` (game id → seats); the blocks of the first round
    that is not complete (empty when the race is over). A pure function of the results and the parameters.
    ``rounds``, when given, receives the blocks of every round scheduled on the way, the last one included."""
    while (batches := race.next_round()) is not None:
        if rounds is not None:
            rounds.extend(batches)
        if any(g.game_id not in results for b in batches for g in b.games):
            return batches
        race.record([_block_totals(b, results) for b in batches])
    return []


def _block_totals(batch: TableBatch, results: Mapping[str, Sequence[SeatRow]]) -> dict[str, float]:
    totals: dict[str, float] = dict.fromkeys(batch.entrants, 0.0)
    for g in batch.games:
        for row in results[g.game_id]:
            totals[row.entrant] += row.score
    return totals
