"""A gauntlet that stops early: for each challenger, a sequential test of whether it beats the field.

What is estimated, for a challenger c: its **share against the field**, μ_c, the expected result of c against the
field entrant of its table on a deal (1 for a lower total over the block's rotations, 1/2 for an equal one, 0 for a
higher; forfeits counted by the forfeit rule, ``counting.block_totals``), averaged over every table of the gauntlet
that holds c (each field entrant with each combination of the other challengers): what the whole gauntlet measures
of c against the field. The standings still rank by matchpoints, as every format's do.

A round is one repeat (``--games``): every table of the gauntlet once, each on a deal of its own. The observation
of a round for c is its mean result over the round's tables that hold it: in [0, 1], independent from round to
round (fresh deals), with mean μ_c whatever the tables' own means. Two sequential tests by betting per challenger
(``confseq.MixtureTests``: "μ_c > 1/2" and "μ_c < 1/2", each at level α/2) with α = (1 − C)/m for m challengers
(Bonferroni's union bound): by Ville's inequality the chance that any challenger is ever declared on the wrong side
of 1/2 is at most 1 − C, whenever the gauntlet stops. The gauntlet stops after the first round at which every
challenger is decided, or after its last repeat; a challenger level with the field is never decided (it is reported
as undecided), so a gauntlet with one plays every repeat.

Pure: no I/O; ``GauntletStop`` is fed the rounds in order.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from referee.tournament.confseq import MixtureTests

__all__ = ["AHEAD", "BEHIND", "UNDECIDED", "GauntletOutcome", "GauntletStop", "Verdict"]

AHEAD = "ahead of the field"
BEHIND = "behind the field"
UNDECIDED = "undecided"


@dataclass(frozen=True, slots=True)
class Verdict:
    """A challenger's share against the field so far (None before its first round) and its verdict."""

    challenger: str
    share: float | None
    verdict: str


@dataclass(frozen=True, slots=True)
class GauntletOutcome:
    """Where a gauntlet with ``--early-stop`` stands (a ``formats.base.Outcome``): the ``rounds`` (repeats) counted,
    the ``confidence``, whether every challenger is ``decided``, each one's ``Verdict``, and the games it played once
    it stopped early (``final_games``; None before, or when it played every repeat)."""

    rounds: int
    confidence: float
    decided: bool
    verdicts: tuple[Verdict, ...]
    final_games: int | None = None

    #: Its key in standings.json; a gauntlet does not decide the order (the standings sort by matchpoints).
    key = "gauntlet"
    order = None
    ahead_of_next = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "rounds": self.rounds,
            "confidence": self.confidence,
            "decided": self.decided,
            "challengers": {v.challenger: {"share_vs_field": v.share, "verdict": v.verdict} for v in self.verdicts},
        }

    def lines(self) -> list[str]:
        return [self.banner()]

    def banner(self) -> str:
        """``Gauntlet: every challenger decided after 3 repeat(s), at 95% together: new ahead of the field (share
        0.83), ...``: the line after the standings, and the report's banner."""
        how = "every challenger decided" if self.decided else "not every challenger decided"
        verdicts = ", ".join(
            f"{v.challenger} {v.verdict}" + ("" if v.share is None else f" (share {v.share:.2f})")
            for v in self.verdicts
        )
        return f"Gauntlet: {how} after {self.rounds} repeat(s), at {self.confidence:.0%} together: {verdicts}"

    def places(self, names: Sequence[str]) -> dict[str, str]:
        return {}


class GauntletStop:
    """The sequential tests of a gauntlet's ``challengers`` against the rest of the entrants (the field) at
    ``confidence`` C (all of them together). Raises ``ValueError`` for no challenger or C outside (0, 1)."""

    def __init__(self, challengers: Sequence[str], confidence: float) -> None:
        if not challengers:
            raise ValueError("a gauntlet needs a challenger")
        if not 0 < confidence < 1:
            raise ValueError(f"the confidence is above 0 and below 1, got {confidence}")
        self.challengers = tuple(challengers)
        self.confidence = confidence
        self._index = {c: i for i, c in enumerate(self.challengers)}
        self._tests = MixtureTests(len(self.challengers), (1 - confidence) / len(self.challengers))
        self.rounds = 0

    def fresh(self) -> GauntletStop:
        """The same tests before any round."""
        return GauntletStop(self.challengers, self.confidence)

    def record(self, blocks: Sequence[Mapping[str, float]]) -> None:
        """Count one round: each block's totals (entrant → total over the block, lower is better, forfeits counted:
        ``counting.block_totals``), every block holding one field entrant."""
        sums = np.zeros(len(self.challengers))
        counts = np.zeros(len(self.challengers))
        for totals in blocks:
            field = [e for e in totals if e not in self._index]
            if len(field) != 1:
                raise ValueError(f"a gauntlet's table holds one field entrant, got {', '.join(field) or 'none'}")
            own = totals[field[0]]
            for entrant, total in totals.items():
                if entrant in self._index:
                    i = self._index[entrant]
                    sums[i] += 1.0 if total < own else 0.5 if total == own else 0.0
                    counts[i] += 1
        played = np.flatnonzero(counts)
        self._tests.update(played, sums[played] / counts[played])
        self.rounds += 1

    def verdict(self, challenger: str) -> str:
        """``AHEAD``, ``BEHIND`` or ``UNDECIDED`` for ``challenger`` so far."""
        i = self._index[challenger]
        return AHEAD if self._tests.above[i] else BEHIND if self._tests.below[i] else UNDECIDED

    @property
    def decided(self) -> bool:
        """Every challenger is proven ahead of or behind the field."""
        return bool(np.all(self._tests.above | self._tests.below))

    def outcome(self, final_games: int | None = None) -> GauntletOutcome:
        """The rounds counted, the confidence, and each challenger's share against the field so far (the mean of
        its rounds' observations) and verdict; ``final_games``: the games played, once it stopped early."""
        share = self._tests.estimate
        return GauntletOutcome(
            self.rounds,
            self.confidence,
            self.decided,
            tuple(
                Verdict(c, float(share[i]) if self.rounds else None, self.verdict(c)) for c, i in self._index.items()
            ),
            final_games,
        )

    def to_dict(self) -> dict[str, Any]:
        """``outcome().to_dict()``."""
        return self.outcome().to_dict()
