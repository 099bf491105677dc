"""Where a race stands as a round begins, as its progress shows it (light: no numpy, no race machinery): a
``formats.base.RoundStatus``."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["RaceStatus"]


@dataclass(frozen=True, slots=True)
class RaceStatus:
    """Where a race stands as a round begins: the ``round`` about to be played (1-based) and the games it holds
    (``round_games``), the ``games`` played before it, the entrants ``left`` in the race, its current ``leaders``
    (the estimated top K, best first) and which of their places are still ``open`` (1-based: place p is open
    while the p-th is not proven ahead of the next entrant; the race ends when none is)."""

    round: int
    round_games: int
    games: int
    left: int
    leaders: tuple[str, ...]
    open: tuple[int, ...]

    #: The ``--progress json`` event, and the word a printed progress line starts with.
    event = "race_round"
    label = "Race"

    def line(self) -> str:
        """``round 12 (480 games), 9 entrants left, places 2, 3 of the top 3 open``."""
        k = len(self.leaders)
        if self.open:
            places = ", ".join(map(str, self.open))
            settled = f"place{'s' if len(self.open) > 1 else ''} {places} of the top {k} open"
        else:
            settled = f"the top {k} proven in order"
        return f"round {self.round} ({self.round_games:,} games), {self.left} entrants left, {settled}"

    def news(self, before: object) -> bool:
        """Whether an entrant left the race since ``before`` (the status of an earlier round; None: the first)."""
        return not isinstance(before, RaceStatus) or before.left != self.left

    def to_dict(self) -> dict[str, object]:
        return {
            "round": self.round,
            "round_games": self.round_games,
            "games": self.games,
            "left": self.left,
            "leaders": list(self.leaders),
            "open_places": list(self.open),
        }
