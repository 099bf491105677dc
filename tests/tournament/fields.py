"""Simulated fields for the race and the statistics: in-process entrants whose block totals come from a known model,
outside the easy one (a strength plus luck of one shape for everyone), and the round robin's answer for each.

An entrant i at a table T on one deal has the block total (lower is better)

    total_i = -strength_i - sum over the others j at T of edge[i, j] + spread_i * luck

where ``edge[i, j]`` is what i gains against j beyond their strengths (a cycle: a gains on b, b on c, c on a; an
entrant that farms weak tables: a large edge against the weak), and ``luck`` is standard normal, or skewed
(``skew``: usually a little better, now and then much worse), independently for every entrant and deal.

``truth`` is what the race estimates: each entrant's expected matchpoints in a round robin at the table size (every
table holding it equally likely), by Monte Carlo over every table of the field.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from referee.tournament import Race

Floats = npt.NDArray[np.float64]

#: Of a skewed entrant's deals, this share is a collapse.
COLLAPSE = 0.1


@dataclass
class Field:
    """A field of ``len(strength)`` entrants named e00, e01, ... (see the module's docstring)."""

    strength: Sequence[float]
    spread: Sequence[float] | None = None
    edge: Floats | None = None
    skew: Sequence[bool] = ()
    _truth: dict[int, Floats] = field(default_factory=dict, repr=False)

    @property
    def n(self) -> int:
        return len(self.strength)

    @property
    def names(self) -> list[str]:
        return [f"e{i:02d}" for i in range(self.n)]

    def _spread(self) -> Floats:
        return np.ones(self.n) if self.spread is None else np.asarray(self.spread, dtype=float)

    def _edges(self) -> Floats:
        return np.zeros((self.n, self.n)) if self.edge is None else np.asarray(self.edge, dtype=float)

    def luck(self, rng: np.random.Generator, who: npt.NDArray[np.int64]) -> Floats:
        """Luck for the entrants ``who`` (any shape): standard normal, or for the skewed entrants mean 0 and variance
        about 1 but skewed (a third of a unit better on most deals, 3 units worse on one deal in ten)."""
        z = rng.standard_normal(who.shape)
        if any(self.skew):
            skewed = np.asarray([bool(s) for s in self.skew] + [False] * (self.n - len(self.skew)))[who]
            bad = rng.random(who.shape) < COLLAPSE
            shift = np.where(bad, 3.0, -3.0 * COLLAPSE / (1 - COLLAPSE))
            z = np.where(skewed, 0.3 * z + shift, z)
        return z

    def totals(self, tables: npt.NDArray[np.int64], rng: np.random.Generator) -> Floats:
        """Block totals for ``tables`` (rows of entrant indices)."""
        strength = np.asarray(self.strength, dtype=float)
        edges = self._edges()
        gain = edges[tables[:, :, None], tables[:, None, :]].sum(-1)  # Σ_j edge[i, j] (edge[i, i] = 0)
        return -strength[tables] - gain + self._spread()[tables] * self.luck(rng, tables)

    def truth(self, k: int, draws: int = 4000, seed: int = 0) -> Floats:
        """Each entrant's expected matchpoints in a round robin at tables of ``k``."""
        if k not in self._truth:
            rng = np.random.default_rng(seed)
            tables = np.array(list(itertools.combinations(range(self.n), k)), dtype=np.int64)
            sums, counts = np.zeros(self.n), np.zeros(self.n)
            for _ in range(draws // 500):
                rep = np.repeat(tables, 500, axis=0)
                t = self.totals(rep, rng)
                below = (t[:, :, None] < t[:, None, :]).sum(-1)
                share = below + 0.5 * ((t[:, :, None] == t[:, None, :]).sum(-1) - 1)
                np.add.at(sums, rep, share / (k - 1))
                np.add.at(counts, rep, 1)
            self._truth[k] = sums / counts
        return self._truth[k]


def cycle_edges(n: int, members: Sequence[int], edge: float) -> Floats:
    """Edges of a cycle among ``members`` of a field of ``n``: each gains ``edge`` on the next (the last on the
    first) and loses as much to the one before."""
    out = np.zeros((n, n))
    for a, b in zip(members, [*members[1:], members[0]], strict=True):
        out[a, b] += edge
        out[b, a] -= edge
    return out


def run(
    fld: Field,
    *,
    k: int,
    top: int,
    seed: int,
    confidence: float = 0.95,
    tie_margin: float = 0.0,
    max_games: int = 200_000,
) -> Race:
    """A race on ``fld`` played to its end with block totals from the model."""
    race = Race(
        fld.names, table_size=k, seed=seed, top=top, confidence=confidence, max_games=max_games, tie_margin=tie_margin
    )
    rng = np.random.default_rng(seed + 10_000)
    index = {name: i for i, name in enumerate(fld.names)}
    while (tables := race.next_tables()) is not None:
        seats = np.array([[index[e] for e in t] for t in tables], dtype=np.int64)
        totals = fld.totals(seats, rng)
        race.record([dict(zip(t, row.tolist(), strict=True)) for t, row in zip(tables, totals, strict=True)])
    return race


def wrong_by(fld: Field, race: Race, k: int, margin: float) -> bool:
    """Whether the race settled an order in which an entrant of its top K is below, in round-robin strength, by
    ``margin`` or more (by more than a hair when ``margin`` is 0), an entrant it reports below it."""
    outcome = race.outcome()
    if not outcome.settled:
        return False
    m = dict(zip(fld.names, fld.truth(k), strict=True))
    order = outcome.order
    gap = max(margin, 1e-3)
    return any(m[b] - m[a] >= gap for i, a in enumerate(order[: outcome.top]) for b in order[i + 1 :])


def head_to_head(fld: Field, k: int, draws: int = 400, seed: int = 1) -> Floats:
    """[i, j]: the chance that i beats j on a deal (a lower block total, ties half) at a table of ``k`` drawn
    uniformly from every table of the field that holds both, as a round robin seats them (Monte Carlo)."""
    rng = np.random.default_rng(seed)
    n = fld.n
    out = np.full((n, n), 0.5)
    for i, j in itertools.combinations(range(n), 2):
        others = np.array([e for e in range(n) if e not in (i, j)])
        rest = np.argsort(rng.random((draws, len(others))), axis=1)[:, : k - 2]
        tables = np.column_stack([np.full(draws, i), np.full(draws, j), others[rest]]).astype(np.int64)
        t = fld.totals(tables, rng)
        out[i, j] = float(np.mean((t[:, 0] < t[:, 1]) + 0.5 * (t[:, 0] == t[:, 1])))
        out[j, i] = 1 - out[i, j]
    return out
