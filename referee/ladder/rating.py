"""The live rating: OpenSkill's Plackett-Luce model (Joshy 2024, after Weng & Lin 2011), updated once per block.

A block is one deal at one table in every seat rotation, so it is rated as one match: the versions ranked by their
total score over the rotations (lower is better), a version that forfeited in the block below every one that did
not. ``tau`` (the ``[rating]`` section) is the uncertainty added before each update; the ladder's default is 0:
a bot does not learn between blocks, so its rating should settle, not drift. The live rating depends on the order
the blocks were played in; the official standing (``standing``) does not.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from openskill.models import PlackettLuce

from referee.ladder.config import RatingSection

__all__ = ["LiveRating", "block_ranks"]


def block_ranks(totals: Sequence[int], forfeits: Sequence[int]) -> list[int]:
    """Competition ranks (1 best; ties share) of a block's seats by (forfeited at all, total score)."""
    keys = [(f > 0, t) for t, f in zip(totals, forfeits, strict=True)]
    return [1 + sum(1 for other in keys if other < mine) for mine in keys]


class LiveRating:
    """Plackett-Luce with the ladder's ``[rating]`` settings."""

    def __init__(self, settings: RatingSection | None = None) -> None:
        settings = settings or RatingSection()
        self.settings = settings
        self._model = PlackettLuce(mu=settings.mu, sigma=settings.sigma, beta=settings.beta, tau=settings.tau)

    def initial(self) -> tuple[float, float]:
        return self.settings.mu, self.settings.sigma

    def update(
        self, current: Mapping[int, tuple[float, float] | None], ranks: Mapping[int, int]
    ) -> dict[int, tuple[float, float]]:
        """New (mu, sigma) of each version of a block given their (mu, sigma) before it (None: new) and ranks."""
        ids = list(ranks)
        teams = [[self._model.rating(*(current.get(v) or self.initial()))] for v in ids]
        rated = self._model.rate(teams, ranks=[ranks[v] for v in ids])
        return {v: (float(t[0].mu), float(t[0].sigma)) for v, t in zip(ids, rated, strict=True)}
