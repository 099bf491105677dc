"""A forfeit is the worst result at its table in every statistic and format (issue 25, item 1).

The case of the issue: a bot that exits before ``hello`` forfeits every game and takes only the card penalty, which
can be lower than what the players who play on end with. Here every forfeit scores 25 points below the table's
deal (the fake of tests/compare/fakes.py with a negative forfeit cost), so counted as it stood it would win every
game on points; counted as the rule says it loses every block to every entrant that played."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.compare import Design, Settings, run_compare
from referee.compare.run import META_KEY
from referee.tournament import (
    DealSecret,
    EntrantInfo,
    LocalExecutor,
    Requested,
    ResultsStore,
    SeatRow,
    TournamentParams,
    counted_scores,
    resolve_params,
    run_tournament,
    standings_from_store,
)
from tests.compare.fakes import known_difference

from .fakes import make_factory

SECRET = DealSecret(bytes(range(1, 33)))
CHEAP = known_difference(0.0, crash=frozenset({"crash"}), forfeit_cost=-25.0)


def test_a_forfeit_counts_one_point_worse_than_the_worst_player() -> None:
    rows = [SeatRow("a", 12, 1, None), SeatRow("f", -4, 3, "crash"), SeatRow("b", 20, 2, None)]
    assert counted_scores(rows) == [12, 21, 20]
    assert counted_scores([SeatRow("a", 12, 1, None), SeatRow("f", 40, 2, "timeout")]) == [12, 40], "worse already"
    everyone = [SeatRow("a", 5, 1, "crash"), SeatRow("b", 9, 2, "crash")]
    assert counted_scores(everyone) == [5, 9]
    assert counted_scores([SeatRow("a", 5, 1, None), SeatRow("b", 9, 2, None)]) == [5, 9]


def _params(names: list[str], **kw: object) -> TournamentParams:
    entrants = tuple(EntrantInfo(n, ("python3", f"{n}.py"), "/tmp") for n in names)
    return resolve_params(None, Requested(entrants=entrants, seed=3, **kw))  # type: ignore[arg-type]


def _run(tmp: Path, params: TournamentParams, play: object = CHEAP) -> ResultsStore:
    store = ResultsStore(tmp)
    store.initialise(params, SECRET)
    run_tournament(store, params, LocalExecutor(1, play=play, factory=make_factory([])))  # type: ignore[arg-type]
    return store


@pytest.mark.parametrize("fmt", ["round-robin", "balanced", "gauntlet"])
def test_a_forfeiter_ranks_below_every_entrant_that_played(tmp_path: Path, fmt: str) -> None:
    extra: dict[str, object] = {"table_size": 3}
    names = ["crash", "a", "b", "c"]
    if fmt == "balanced":
        extra |= {"format": "balanced", "tables_per_entrant": 6}
    elif fmt == "gauntlet":
        names = ["a", "crash", "b", "c"]
        extra |= {"format": "gauntlet", "challengers": ("a", "crash"), "repeats": 4}
    else:
        extra |= {"repeats": 2}
    standings = standings_from_store(_run(tmp_path, _params(names, **extra)))
    last = standings.entrants[-1]
    assert last.name == "crash" and last.deals.matchpoints == 0.0 and last.wins == 0
    assert last.mean_score is not None
    assert all(e.mean_score is not None and e.mean_score < last.mean_score for e in standings.entrants[:-1])
    assert last.rating == min(e.rating for e in standings.entrants)
    assert all(row.score_diff is not None and row.score_diff > 0 for row in standings.paired["crash"].values())


def test_a_race_never_puts_a_forfeiter_first(tmp_path: Path) -> None:
    """The entrant named "new" plays 6 points a game better than b and c; the forfeiter would be first by far on raw
    points."""
    params = _params(["crash", "new", "b", "c"], table_size=2, format="race", top=1, max_games=3000)
    store = _run(tmp_path, params, known_difference(6.0, crash=frozenset({"crash"}), forfeit_cost=-25.0))
    race = standings_from_store(store).to_dict().get("race")
    assert race is not None and race["settled"] and race["order"] == ["new"]
    assert "crash" in race["eliminated_after_round"]


def test_compare_says_a_forfeiting_new_version_is_not_stronger(tmp_path: Path) -> None:
    names = ("new", "old", "p1", "p2", "p3")
    entrants = tuple(EntrantInfo(n, ("python3", f"{n}.py"), "/tmp") for n in names)
    params = resolve_params(None, Requested(entrants=entrants, table_size=4, seed=5))
    settings = Settings(Design(), "points")
    store = ResultsStore(tmp_path)
    store.initialise(params, SECRET)
    store.set_meta(META_KEY, settings.to_json())
    play = known_difference(0.0, crash=frozenset({"new"}), forfeit_cost=-25.0)
    outcome = run_compare(store, params, settings, LocalExecutor(2, play=play, factory=make_factory([])))
    assert outcome.state.verdict == "not stronger"
    assert outcome.state.points.mean < 0 and outcome.state.ranks.mean < 0
