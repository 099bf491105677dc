"""What the report shows, read from a tournament folder: plain values, no I/O."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from referee.tournament.standings import Standings


@dataclass(frozen=True, slots=True)
class Entrant:
    """One bot of the tournament. ``key`` is its 0-based position; ``name`` its unique tournament name."""

    key: int
    name: str
    declared: str | None = None
    command: str = ""


@dataclass(frozen=True, slots=True)
class Game:
    """One stored game, in schedule order.

    ``key`` is the schedule ordinal, ``label`` the game id. ``seats`` holds the entrant key of each seat and
    ``scores``/``ranks``/``forfeits`` are per seat. ``replay`` is the compact replay (``referee.runner.replay``):
    its JSON text as ``referee run`` stored it (put into the page as it is), or a dict made from a game log; or
    ``None``, with ``replay_note`` saying why.
    """

    key: int
    label: str
    seats: tuple[int, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    forfeits: tuple[bool, ...]
    seed: int | None = None
    replay: dict[str, Any] | str | None = None
    replay_note: str = ""


@dataclass(frozen=True, slots=True)
class FaultEntry:
    """A bot fault that forfeited (or would have forfeited) a game; ``game`` is the game's key."""

    game: int
    entrant: int
    seat: int
    kind: str
    detail: str
    round: int | None = None
    turn: int | None = None
    line: str | None = None


@dataclass(frozen=True, slots=True)
class Tournament:
    """A tournament as the report sees it. ``partial`` when fewer games are stored than its schedule holds."""

    name: str
    entrants: tuple[Entrant, ...]
    games: tuple[Game, ...]
    standings: Standings
    faults: tuple[FaultEntry, ...] = ()
    planned: int | None = None
    ruleset: dict[str, Any] = field(default_factory=dict)
    #: The deal commitment and, once the tournament has ended, its secret (``ResultsStore.deals``).
    deals: dict[str, str | None] = field(default_factory=dict)
    #: Per entrant key, its rating (ordinal, mu - 3 sigma) after each game it played: (games so far in the
    #: tournament, rating), from (0, the starting rating); the standings' own updates (``Tally``), so it ends at
    #: the standings' rating.
    ratings: tuple[tuple[tuple[int, float], ...], ...] = ()

    @property
    def partial(self) -> bool:
        return self.planned is None or len(self.games) < self.planned
