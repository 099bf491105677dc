"""Figures of the report beyond the tournament's standings: score spreads.

The standings themselves (wins, means, ratings, head-to-head) are ``referee.tournament``'s, so the report and
``referee standings`` always agree; so is the ratings chart's history (``Tally(history=True)``: the same
OpenSkill updates, recorded after every game).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from statistics import fmean, median

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
