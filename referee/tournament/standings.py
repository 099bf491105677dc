"""Standings: per-entrant results, an OpenSkill rating and a head-to-head matrix, built game by game.

``Tally`` takes games one at a time (``add``) and keeps only running sums, so memory does not grow with the
number of games. Fed in game-id order (``standings_from_store``) its result is fully deterministic, ratings
included: OpenSkill's Plackett-Luce model is updated once per game, in that order, with the game's ranks (shared
ranks are ties).
"""

from __future__ import annotations

import csv
import io
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from openskill.models import PlackettLuce

from referee.tournament.store import ResultsStore, SeatRow

__all__ = [
    "WINS_NOTE",
    "EntrantStanding",
    "Standings",
    "Tally",
    "standings_from_store",
    "t_quantile_975",
    "tally_from_store",
]

#: How wins are counted, for every place that shows them (terminal tables, the HTML report).
WINS_NOTE = (
    "wins: each game's win goes to its rank 1; when k players share rank 1 (equal best scores), each gets 1/k "
    "of it, hence fractions such as 13.5"
)

# Two-sided 95% quantiles of Student's t for 1..30 degrees of freedom.
_T975 = (
    12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
    2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
    2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042,
)  # fmt: skip


def t_quantile_975(df: int) -> float:
    """Student's t 97.5% quantile: exact to 3 decimals up to 30 degrees of freedom, then 1.96 + 2.4/df (< 0.003 off)."""
    if df < 1:
        raise ValueError("degrees of freedom must be at least 1")
    return _T975[df - 1] if df <= len(_T975) else 1.96 + 2.4 / df


@dataclass(slots=True)
class _Sums:
    games: int = 0
    wins: float = 0.0
    score_sum: int = 0
    score_sq: int = 0
    rank_sum: int = 0
    forfeits: Counter[str] = field(default_factory=Counter)


@dataclass(frozen=True, slots=True)
class EntrantStanding:
    name: str
    declared_name: str | None
    games: int
    wins: float
    mean_score: float | None
    mean_score_ci95: tuple[float, float] | None
    mean_rank: float | None
    forfeits: dict[str, int]
    rating: float
    rating_mu: float
    rating_sigma: float

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "declared_name": self.declared_name,
            "games": self.games,
            "wins": self.wins,
            "mean_score": self.mean_score,
            "mean_score_ci95": list(self.mean_score_ci95) if self.mean_score_ci95 else None,
            "mean_rank": self.mean_rank,
            "forfeits": dict(sorted(self.forfeits.items())),
            "rating": self.rating,
            "rating_mu": self.rating_mu,
            "rating_sigma": self.rating_sigma,
        }


@dataclass(frozen=True, slots=True)
class Standings:
    """Entrants best first (by rating, then wins, then name); ``head_to_head[a][b]`` is the share of the games
    a and b shared in which a placed ahead of b (None when they never met); ``met[a][b]`` counts those games."""

    games: int
    entrants: tuple[EntrantStanding, ...]
    head_to_head: dict[str, dict[str, float | None]]
    met: dict[str, dict[str, int]]

    def to_dict(self) -> dict[str, Any]:
        return {
            "games": self.games,
            "entrants": [e.to_dict() for e in self.entrants],
            "head_to_head": self.head_to_head,
            "head_to_head_games": self.met,
        }

    def to_csv(self) -> str:
        """One row per entrant, best first; forfeits as ``kind:count`` pairs joined by ``;``."""
        out = io.StringIO()
        w = csv.writer(out, lineterminator="\n")
        w.writerow(_CSV_HEADER)
        for place, e in enumerate(self.entrants, start=1):
            low, high = e.mean_score_ci95 if e.mean_score_ci95 else (None, None)
            forfeits = ";".join(f"{k}:{v}" for k, v in sorted(e.forfeits.items()))
            numbers = [e.wins, e.mean_score, low, high, e.mean_rank]
            ratings = [e.rating, e.rating_mu, e.rating_sigma]
            w.writerow(
                [place, e.name, e.declared_name or "", e.games, *map(_num, numbers), forfeits, *map(_num, ratings)]
            )
        return out.getvalue()


_CSV_HEADER = (
    "place", "name", "declared_name", "games", "wins", "mean_score", "ci95_low", "ci95_high", "mean_rank",
    "forfeits", "rating", "rating_mu", "rating_sigma",
)  # fmt: skip


def _num(x: float | None) -> str:
    return "" if x is None else f"{x:.6g}"


class Tally:
    """Running standings of a tournament between ``names`` (the entrants, in their given order)."""

    def __init__(self, names: Sequence[str], declared: Mapping[str, str | None] | None = None) -> None:
        self.names = tuple(names)
        self.declared: dict[str, str | None] = dict(declared or {})
        self.games = 0
        self._sums = {n: _Sums() for n in self.names}
        self._model = PlackettLuce()
        self._ratings = {n: self._model.rating(name=n) for n in self.names}
        self._ahead: dict[str, Counter[str]] = {n: Counter() for n in self.names}
        self._met: dict[str, Counter[str]] = {n: Counter() for n in self.names}

    def add(self, seats: Sequence[SeatRow]) -> None:
        """Count one finished game, given its seats in seat order."""
        self.games += 1
        winners = sum(1 for s in seats if s.rank == 1)
        for s in seats:
            t = self._sums[s.entrant]
            t.games += 1
            t.score_sum += s.score
            t.score_sq += s.score * s.score
            t.rank_sum += s.rank
            if s.rank == 1:
                t.wins += 1 / winners  # a shared first place splits the win (WINS_NOTE)
            if s.forfeit_kind is not None:
                t.forfeits[s.forfeit_kind] += 1
            for o in seats:
                if o is not s:
                    self._met[s.entrant][o.entrant] += 1
                    if s.rank < o.rank:
                        self._ahead[s.entrant][o.entrant] += 1
        teams = [[self._ratings[s.entrant]] for s in seats]
        rated = self._model.rate(teams, ranks=[s.rank for s in seats])
        for s, team in zip(seats, rated, strict=True):
            self._ratings[s.entrant] = team[0]

    def standings(self) -> Standings:
        rows = [self._entrant(n) for n in self.names]
        rows.sort(key=lambda e: (-e.rating, -e.wins, e.name))
        h2h = {
            a: {b: (self._ahead[a][b] / self._met[a][b] if self._met[a][b] else None) for b in self.names if b != a}
            for a in self.names
        }
        met = {a: {b: self._met[a][b] for b in self.names if b != a} for a in self.names}
        return Standings(self.games, tuple(rows), h2h, met)

    def _entrant(self, name: str) -> EntrantStanding:
        t = self._sums[name]
        r = self._ratings[name]
        n = t.games
        mean = t.score_sum / n if n else None
        ci: tuple[float, float] | None = None
        if n >= 2 and mean is not None:
            variance = (n * t.score_sq - t.score_sum**2) / (n * (n - 1))
            half = t_quantile_975(n - 1) * math.sqrt(max(variance, 0.0) / n)
            ci = (mean - half, mean + half)
        return EntrantStanding(
            name=name,
            declared_name=self.declared.get(name),
            games=n,
            wins=t.wins,
            mean_score=mean,
            mean_score_ci95=ci,
            mean_rank=t.rank_sum / n if n else None,
            forfeits=dict(t.forfeits),
            rating=float(r.ordinal()),
            rating_mu=float(r.mu),
            rating_sigma=float(r.sigma),
        )


def tally_from_store(store: ResultsStore) -> Tally:
    """A ``Tally`` of every game in ``store``, fed in game-id order (deterministic ratings)."""
    tally = Tally(store.names(), store.declared_names())
    for game in store.games():
        tally.add(game.seats)
    return tally


def standings_from_store(store: ResultsStore) -> Standings:
    """The standings of every game in ``store``."""
    return tally_from_store(store).standings()
