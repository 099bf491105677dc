"""Standings: per-entrant results, an OpenSkill rating and a head-to-head matrix, built game by game.

``Tally`` takes games one at a time (``add``) and keeps running sums and each complete deal's outcomes. Every score
figure counts a forfeit as the worst score at its table (``counting.counted_scores``); ``mean_score`` is over games
and its 95% interval over deals (``block_stats``: the games of a deal are not independent). Fed in game-id order
(``standings_from_store``) its result is fully deterministic, ratings included: OpenSkill's Plackett-Luce model is
updated once per game, in that order, with the game's ranks (shared ranks are ties).
"""

from __future__ import annotations

import csv
import io
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from openskill.models import PlackettLuce

from referee.contest.block_stats import DealTally, EntrantDeals, PairDeals, t_quantile_975
from referee.contest.counting import counted_scores
from referee.tournament.formats import DEFAULT_FORMAT, Outcome, format_of
from referee.tournament.params import TournamentParams
from referee.tournament.store import ResultsStore, SeatRow

__all__ = [
    "WINS_NOTE",
    "EntrantStanding",
    "Standings",
    "Tally",
    "standings_from_store",
    "t_quantile_975",
    "tally_from_store",
    "with_format",
]

#: How wins are counted, for every place that shows them (terminal tables, the HTML report).
WINS_NOTE = (
    "wins: each game's win goes to its rank 1; when k players share rank 1 (equal best scores), each gets 1/k "
    "of it, hence fractions such as 13.5"
)


@dataclass(slots=True)
class _Sums:
    games: int = 0
    wins: float = 0.0
    score_sum: int = 0
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
    deals: EntrantDeals = field(default_factory=lambda: EntrantDeals(0, None, None, None, None))
    #: Whether this place is statistically separated from the next one (None for the last place).
    separated: bool | None = None
    #: The Holm-adjusted p-value of that comparison (None when either has fewer than 2 deals, or the last place).
    separation_p: float | None = None

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
            **self.deals.to_dict(),
            "separated_from_next": self.separated,
            "separation_p": self.separation_p,
        }


@dataclass(frozen=True, slots=True)
class Standings:
    """Entrants best first (by matchpoints over complete deals, then rating, wins and name; a race by its own
    order); ``head_to_head[a][b]`` is the share of the games a and b shared in which a placed ahead of b (None when
    they never met); ``met[a][b]`` counts those games; ``paired[a][b]`` is a's score difference with b over the
    deals (blocks) they shared, for the pairs that shared one. ``format`` is the schedule's format and ``decided``
    what it decided (``Format.decide``: a race's outcome, a gauntlet's verdicts with ``--early-stop``; None for a
    format that decides nothing)."""

    games: int
    entrants: tuple[EntrantStanding, ...]
    head_to_head: dict[str, dict[str, float | None]]
    met: dict[str, dict[str, int]]
    paired: dict[str, dict[str, PairDeals]] = field(default_factory=dict)
    deals: int = 0
    format: str = DEFAULT_FORMAT
    decided: Outcome | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": self.format,
            "games": self.games,
            "complete_deals": self.deals,
            "entrants": [e.to_dict() for e in self.entrants],
            "head_to_head": self.head_to_head,
            "head_to_head_games": self.met,
            "head_to_head_score_diff": {
                a: {b: p.to_dict() for b, p in row.items()} for a, row in self.paired.items() if row
            },
        }
        if self.decided is not None:
            out[self.decided.key] = self.decided.to_dict()
        return out

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
            d = e.deals
            mp_low, mp_high = d.matchpoints_ci95 or (None, None)
            rel_low, rel_high = d.relative_score_ci95 or (None, None)
            deal_numbers = [d.matchpoints, mp_low, mp_high, d.relative_score, rel_low, rel_high]
            separated = "" if e.separated is None else str(e.separated).lower()
            w.writerow(
                [
                    place,
                    _text(e.name),
                    _text(e.declared_name or ""),
                    e.games,
                    *map(_num, numbers),
                    forfeits,
                    *map(_num, ratings),
                    d.deals,
                    *map(_num, deal_numbers),
                    separated,
                ]
            )
        return out.getvalue()


_CSV_HEADER = (
    "place", "name", "declared_name", "games", "wins", "mean_score", "ci95_low", "ci95_high", "mean_rank",
    "forfeits", "rating", "rating_mu", "rating_sigma", "deals", "matchpoints", "matchpoints_ci95_low",
    "matchpoints_ci95_high", "relative_score", "relative_ci95_low", "relative_ci95_high", "separated_from_next",
)  # fmt: skip


def _num(x: float | None) -> str:
    return "" if x is None else f"{x:.6g}"


#: What a spreadsheet reads as the start of a formula (or, for a tab or line break, may strip to find one).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r", "\n")


def _text(x: str) -> str:
    """A text cell of standings.csv: a name an entrant chose (its manifest table, its hello) that a spreadsheet
    would run as a formula (``=HYPERLINK(...)``, ``@SUM(...)``) gets a leading ``'``, which makes it text."""
    return "'" + x if x.startswith(_FORMULA_START) else x


class Tally:
    """Running standings of a tournament between ``names`` (the entrants, in their given order)."""

    #: Games whose rating updates may wait for a rating to be read (bounds the memory they hold).
    RATE_AFTER = 4096

    def __init__(
        self,
        names: Sequence[str],
        declared: Mapping[str, str | None] | None = None,
        *,
        format: str = DEFAULT_FORMAT,
        history: bool = False,
    ) -> None:
        """With ``history``, ``rating_history()`` gives each entrant's rating after every game it played (the
        report's chart): (games counted so far, ordinal), from (0, the starting ordinal)."""
        self.names = tuple(names)
        self.format = format
        #: What the format decides (``Format.decide``, or a schedule's ``round_started`` as a run goes): the
        #: standings take its order, when it decides one (a race), else sort by matchpoints.
        self.decided: Outcome | None = None
        self.deal_tally = DealTally()
        self.declared: dict[str, str | None] = dict(declared or {})
        self.games = 0
        self._sums = {n: _Sums() for n in self.names}
        self._model = PlackettLuce()
        self._ratings = {n: self._model.rating(name=n) for n in self.names}
        self._history: dict[str, list[tuple[int, float]]] | None = None
        if history:
            self._history = {n: [(0, float(r.ordinal()))] for n, r in self._ratings.items()}
        #: Games counted but not rated yet: (game number, entrants by seat, ranks). OpenSkill's update is the
        #: costly part of a game's count (about 50 us), and the live count of a run off a terminal never shows a
        #: rating, so the updates wait (in order) until a rating is read, at most ``RATE_AFTER`` games.
        self._unrated: list[tuple[int, tuple[str, ...], list[float]]] = []
        self._ahead: dict[str, Counter[str]] = {n: Counter() for n in self.names}
        self._met: dict[str, Counter[str]] = {n: Counter() for n in self.names}

    def add(self, seats: Sequence[SeatRow], block: int | None = None) -> None:
        """Count one finished game, given its seats in seat order and its block (the schedule's batch: one deal at
        one table); games without a block count in every figure but the deal statistics."""
        self.games += 1
        counted = counted_scores(seats)  # a forfeit is the worst score at its table (counting.py)
        if block is not None:
            self.deal_tally.add(block, seats)
        winners = sum(1 for s in seats if s.rank == 1)
        for s, score in zip(seats, counted, strict=True):
            t = self._sums[s.entrant]
            t.games += 1
            t.score_sum += score
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
        self._unrated.append((self.games, tuple(s.entrant for s in seats), [s.rank for s in seats]))
        if len(self._unrated) >= self.RATE_AFTER:
            self._rate()

    def _rate(self) -> None:
        """Apply the waiting rating updates, in the order the games were counted."""
        for number, entrants, ranks in self._unrated:
            rated = self._model.rate([[self._ratings[e]] for e in entrants], ranks=ranks)
            for e, team in zip(entrants, rated, strict=True):
                self._ratings[e] = team[0]
                if self._history is not None:
                    self._history[e].append((number, float(team[0].ordinal())))
        self._unrated.clear()

    @property
    def keeps_history(self) -> bool:
        """Whether ``rating_history()`` has every game's point (made with ``history=True``)."""
        return self._history is not None

    def rating_history(self) -> dict[str, list[tuple[int, float]]]:
        """Entrant -> its rating after each of its games (``history=True``; empty lists without it)."""
        self._rate()
        return self._history if self._history is not None else {n: [] for n in self.names}

    def standings(self) -> Standings:
        self._rate()
        rows = [self._entrant(n) for n in self.names]
        rows.sort(key=_best_first)
        decided = self.decided
        if decided is not None and decided.order is not None:
            place = {n: i for i, n in enumerate(decided.order)}
            rows.sort(key=lambda e: place.get(e.name, len(place)))
        separation = self.deal_tally.separation([e.name for e in rows])
        if decided is not None and decided.ahead_of_next is not None:  # a race's "vs next" is its own proof, no p
            separation = [(proven, None) for proven in decided.ahead_of_next]
        rows = [
            replace(e, separated=sep, separation_p=p)
            for e, (sep, p) in zip(rows, [*separation, (None, None)], strict=True)
        ]
        h2h = {
            a: {b: (self._ahead[a][b] / self._met[a][b] if self._met[a][b] else None) for b in self.names if b != a}
            for a in self.names
        }
        met = {a: {b: self._met[a][b] for b in self.names if b != a} for a in self.names}
        paired = self.deal_tally.pairs(self.names)
        return Standings(
            self.games,
            tuple(rows),
            h2h,
            met,
            paired,
            self.deal_tally.blocks,
            format=self.format,
            decided=self.decided,
        )

    def _entrant(self, name: str) -> EntrantStanding:
        t = self._sums[name]
        r = self._ratings[name]
        n = t.games
        mean = t.score_sum / n if n else None
        return EntrantStanding(
            name=name,
            declared_name=self.declared.get(name),
            games=n,
            wins=t.wins,
            mean_score=mean,
            mean_score_ci95=self.deal_tally.score_ci95(name),
            mean_rank=t.rank_sum / n if n else None,
            forfeits=dict(t.forfeits),
            rating=float(r.ordinal()),
            rating_mu=float(r.mu),
            rating_sigma=float(r.sigma),
            deals=self.deal_tally.entrant(name),
        )


def _best_first(e: EntrantStanding) -> tuple[bool, float, float, float, str]:
    """The order of a fixed format's standings: mean matchpoints over complete deals (the deal statistics, the figure
    the separation of places tests), then rating, wins and name; entrants without a complete deal come last."""
    points = e.deals.matchpoints
    return (points is None, -(points or 0.0), -e.rating, -e.wins, e.name)


def tally_from_store(store: ResultsStore, *, history: bool = False) -> Tally:
    """A ``Tally`` of every game in ``store``, fed in game-id order (deterministic ratings); ``history`` as
    ``Tally``'s (the report's ratings chart)."""
    params = store.params()
    tally = Tally(
        store.names(), store.declared_names(), format=params.format if params else DEFAULT_FORMAT, history=history
    )
    results = {}
    for game in store.games():
        tally.add(game.seats, game.batch)
        results[game.game_id] = game.seats
    if params is not None:
        with_format(tally, params, results)
    return tally


def with_format(tally: Tally, params: TournamentParams, results: Mapping[str, Sequence[SeatRow]]) -> None:
    """Give ``tally`` what its format decides (``Format.decide``: for a race, the race's order and outcome,
    replayed from ``results``, game id → seats)."""
    tally.format = params.format
    tally.decided = format_of(params).decide(params, results)


def standings_from_store(store: ResultsStore) -> Standings:
    """The standings of every game in ``store``."""
    return tally_from_store(store).standings()
