"""A new format is one module: a toy ``ring`` format, written here and registered, is checked, planned, scheduled,
played, stored, resumed, counted, reported and its deals listed by the same code as the built-in ones, with its own
option declared once (its flag, default and label)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from referee.contest.schedule import table_batches
from referee.report.load import load_tournament
from referee.tournament import (
    FORMATS,
    DealSecret,
    EntrantInfo,
    Format,
    FormatParams,
    LocalExecutor,
    Option,
    ParamsError,
    Requested,
    ResultsStore,
    ScheduleError,
    TableBatch,
    TournamentParams,
    check_format,
    planned_games,
    register,
    resolve_params,
    run_tournament,
    schedule_of,
    standings_from_store,
)
from referee.tournament.verify_deals import check_deals

from .fakes import fake_play, make_factory

LAPS: Option[int] = Option("laps", 1, int, flag="--laps", kind=int, help="ring: times round the ring.")


class Ring(Format):
    """Each entrant with the ``table_size - 1`` entrants after it in the given order, round the ring, ``--laps``
    times."""

    name = "ring"
    summary = "each entrant with the next ones in the given order"
    called = "this ring"
    options = (LAPS,)
    deals_per_table = False

    def check(self, params: FormatParams) -> None:
        if LAPS.of(params) < 1:
            raise ScheduleError(f"--laps must be at least 1, got {LAPS.of(params)}")

    def planned_games(self, params: FormatParams) -> int:
        return len(params.names) * LAPS.of(params) * params.table_size

    def batches(self, params: FormatParams, secret: DealSecret) -> list[TableBatch]:
        names, k, laps = params.names, params.table_size, LAPS.of(params)
        ring = [tuple(names[(i + j) % len(names)] for j in range(k)) for i in range(len(names))]
        return table_batches([(lap, table) for lap in range(laps) for table in ring], params.seed, secret)

    def describe(self, params: FormatParams, entrants: str) -> str:
        return f"ring: {entrants}, {LAPS.of(params)} laps, {self.planned_games(params):,} games"


@pytest.fixture
def ring() -> Iterator[Format]:
    fmt = register(Ring())
    try:
        yield fmt
    finally:
        del FORMATS[fmt.name]


NAMES = ["a", "b", "c", "zed", "e"]
SECRET = DealSecret(bytes(range(32)))


def ring_params(**given: object) -> TournamentParams:
    entrants = tuple(EntrantInfo(n, ("python3", f"{n}.py"), "/tmp") for n in NAMES)
    return resolve_params(None, Requested(entrants, seed=3, table_size=3, format="ring", **given))


def test_a_registered_format_is_checked_planned_and_its_option_refused_elsewhere(ring: Format) -> None:
    params = ring_params(laps=2)
    assert LAPS.of(params) == 2 and LAPS.of(ring_params()) == 1, "its default is its declaration's"
    check_format(params)
    assert planned_games(params) == 5 * 2 * 3
    with pytest.raises(ScheduleError, match="--laps must be at least 1, got 0"):
        check_format(ring_params(laps=0))
    with pytest.raises(ScheduleError, match="--laps applies to --format ring only"):
        check_format(params.changed({"format": "round-robin"}))
    with pytest.raises(ScheduleError, match="--games does not apply to --format ring"):
        check_format(params.changed({"repeats": 2}))
    with pytest.raises(TypeError, match="unknown tournament option 'lapz'"):
        Requested(lapz=3)


def test_a_registered_format_is_played_stored_resumed_counted_and_reported(ring: Format, tmp_path: Path) -> None:
    params = ring_params(laps=2)
    with ResultsStore(tmp_path) as store:
        store.initialise(params, SECRET)
        outcome = run_tournament(store, params, LocalExecutor(2, play=fake_play, factory=make_factory([])))
        assert outcome.total == outcome.played == store.game_count() == 30 and not outcome.interrupted
        assert store.deals()["secret"] == SECRET.hex, "every game stored: the secret is revealed"
        stored = store.tournament()
        assert stored == params and LAPS.of(stored) == 2, "its option round-trips through the stored JSON"
        standings = standings_from_store(store)
        assert standings.format == "ring" and standings.games == 30
    with pytest.raises(ParamsError, match="--laps was 2; now 3"):
        resolve_params(stored, Requested(laps=3))
    assert resolve_params(stored, Requested(laps=2, format="ring")) == stored
    report = load_tournament(tmp_path, replays=False)
    assert report.planned == 30 and len(report.games) == 30
    # verify-deals lists the format's schedule: every stored game is one of its games, on its deal and seats
    blocks = schedule_of(stored, SECRET).blocks({})
    assert sum(len(b.games) for b in blocks) == 30
    problems = check_deals(tmp_path).problems
    assert problems and all("game log" in p or "jsonl" in p for p in problems), problems  # the fakes' logs only
