"""Where a race stands as a round begins, as its progress shows it (light: no numpy, no race machinery)."""

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

    def to_dict(self) -> dict[str, object]:
        return {
            "round": self.round,
            "round_games": self.round_games,
            "games": self.games,
            "left": self.left,
            "leaders": list(self.leaders),
            "open_places": list(self.open),
        }
