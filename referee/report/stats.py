"""Figures of the report beyond the tournament's standings: ratings over time and score spreads.

The standings themselves (wins, means, ratings, head-to-head) are ``referee.tournament``'s, so the report and
``referee standings`` always agree. ``rating_history`` replays the same OpenSkill (Plackett-Luce) updates in
the same order (one per game, in schedule order, each seat a team, ranked by the game's ranks) and records
each entrant's rating (ordinal, μ − 3σ) after every game it played: its last point is the standings' rating.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean, median

from openskill.models import PlackettLuce

from referee.report.model import Game


@dataclass(frozen=True, slots=True)
class Spread:
    """Five-number summary and mean of a list of scores."""

    low: float
    q1: float
    median: float
    q3: float
    high: float
    mean: float
    count: int


def rating_history(entrants: int, games: Sequence[Game]) -> list[list[tuple[int, float]]]:
    """Per entrant key: (games played in the tournament so far, rating) from (0, start) after each of its games."""
    model = PlackettLuce()
    ratings = [model.rating() for _ in range(entrants)]
    out = [[(0, float(r.ordinal()))] for r in ratings]
    for number, game in enumerate(games, start=1):
        rated = model.rate([[ratings[e]] for e in game.seats], ranks=list(game.ranks))
        for e, team in zip(game.seats, rated, strict=True):
            ratings[e] = team[0]
            out[e].append((number, float(team[0].ordinal())))
    return out


def scores_by_entrant(entrants: int, games: Sequence[Game]) -> list[list[int]]:
    """Every game score of each entrant, by entrant key."""
    out: list[list[int]] = [[] for _ in range(entrants)]
    for game in games:
        for e, score in zip(game.seats, game.scores, strict=True):
            out[e].append(score)
    return out


def spread(values: Sequence[int]) -> Spread | None:
    """Min, quartiles (linear interpolation), max and mean; ``None`` for no values."""
    if not values:
        return None
    v = sorted(values)
    return Spread(v[0], _quantile(v, 0.25), float(median(v)), _quantile(v, 0.75), v[-1], fmean(v), len(v))


def _quantile(v: list[int], q: float) -> float:
    pos = (len(v) - 1) * q
    lo = int(pos)
    hi = min(lo + 1, len(v) - 1)
    return v[lo] + (v[hi] - v[lo]) * (pos - lo)
