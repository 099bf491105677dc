"""Schedules of every format (hypothesis properties) and the one-line errors of impossible options."""

from __future__ import annotations

import hashlib
import itertools
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from referee.contest.seating import games_per_block
from referee.tournament import DealSecret, EntrantInfo, ScheduleError, TournamentParams, check_format, schedule_for
from referee.tournament.designs import balanced_tables

SECRET = DealSecret(bytes(range(32)))


def params(n: int, **kw: object) -> TournamentParams:
    base = TournamentParams(
        entrants=tuple(EntrantInfo(f"e{i:03d}", ("bot",)) for i in range(n)),
        table_size=4,
        repeats=1,
        seed=7,
        ruleset={},
        move_time=1.0,
        startup_time=10.0,
        time_bank=None,
        sandbox="none",
    )
    return base.changed(kw)


def assert_blocks(batches: list) -> None:  # type: ignore[type-arg]
    """Every table is a duplicate block: every seat rotation of its cyclic seat order, all on one deal, and ids in
    order."""
    for b in batches:
        k = len(b.entrants)
        assert len(b.games) == games_per_block(k) == k
        assert {g.seed for g in b.games} == {b.games[0].seed}
        assert {g.seats for g in b.games} == {b.entrants[i:] + b.entrants[:i] for i in range(k)}
        assert len(set(b.entrants)) == k
    ids = [g.game_id for b in batches for g in b.games]
    assert ids == [f"g{i:06d}" for i in range(1, len(ids) + 1)]
    assert len({b.games[0].seed for b in batches}) == len(batches), "a fresh deal for every table"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(4, 60), k=st.integers(2, 4), t=st.integers(1, 12), seed=st.integers(0, 2**31))
def test_balanced_equal_tables_and_pairs_within_one(n: int, k: int, t: int, seed: int) -> None:
    if n * t % k or t * (k - 1) > (n - 1) / 2:  # the design's purpose: large fields, sparse meetings
        return
    p = params(n, table_size=k, format="balanced", tables_per_entrant=t, seed=seed)
    batches = schedule_for(p, SECRET)
    assert_blocks(batches)
    seats = Counter(e for b in batches for e in b.entrants)
    assert set(seats.values()) == {t} and len(seats) == n, "every entrant at the same number of tables"
    met = Counter(frozenset(pair) for b in batches for pair in itertools.combinations(b.entrants, 2))
    counts = [met.get(frozenset(pair), 0) for pair in itertools.combinations(p.names, 2)]
    assert max(counts) - min(counts) <= 1, "pairs meet as evenly as possible"
    assert schedule_for(p, SECRET) == batches, "seeded and deterministic"


@pytest.mark.parametrize(
    ("n", "k", "t", "seed", "digest"),
    [(20, 4, 12, 0, "4d5e538cfef21911"), (30, 3, 10, 7, "0030bf13ba46e9fd"), (9, 3, 4, 1, "e5cd4865494872c9")],
)
def test_balanced_tables_are_the_ones_earlier_versions_drew(n: int, k: int, t: int, seed: int, digest: str) -> None:
    """A seed gives the tables it gave before (digests from the annealing as of 12e09f0): a stored balanced
    tournament resumes, and ``verify-deals`` confirms it, against the same schedule."""
    tables = balanced_tables([f"e{i}" for i in range(n)], k, t, seed)
    assert hashlib.sha256(repr(tables).encode()).hexdigest()[:16] == digest


def test_balanced_denser_schedules_stay_close() -> None:
    names = [f"e{i}" for i in range(10)]
    tables = balanced_tables(names, 4, 6, seed=3)
    assert Counter(e for t in tables for e in t) == dict.fromkeys(names, 6)
    met = Counter(frozenset(p) for t in tables for p in itertools.combinations(t, 2))
    counts = [met.get(frozenset(p), 0) for p in itertools.combinations(names, 2)]
    assert max(counts) - min(counts) <= 2


@settings(max_examples=30, deadline=None)
@given(field=st.integers(1, 8), challengers=st.integers(1, 5), k=st.integers(2, 4), repeats=st.integers(1, 2))
def test_gauntlet_never_seats_two_field_entrants_together(field: int, challengers: int, k: int, repeats: int) -> None:
    n = field + challengers
    if k > n or challengers < k - 1:
        return
    chosen = tuple(f"e{i:03d}" for i in range(0, n, max(1, n // challengers)))[:challengers]
    if len(chosen) < challengers:
        return
    p = params(n, table_size=k, format="gauntlet", challengers=chosen, repeats=repeats)
    batches = schedule_for(p, SECRET)
    assert_blocks(batches)
    for b in batches:
        assert sum(e not in chosen for e in b.entrants) == 1, "exactly one field entrant per table"
    meetings = Counter(
        (c, f) for b in batches for c in b.entrants for f in b.entrants if c in chosen and f not in chosen
    )
    assert len(set(meetings.values())) == 1, "every challenger meets every field entrant equally often"
    assert len(meetings) == challengers * field


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        (
            {},
            "a round robin of 40 entrants at tables of 4 is 365,560 games, over --max-games 100,000; use --format "
            "balanced --tables-per-entrant T or --format race",
        ),
        ({"format": "balanced"}, "--format balanced needs --tables-per-entrant T"),
        ({"format": "balanced", "tables_per_entrant": 3, "entrants": 41}, "leaves seats empty"),
        (
            {"format": "balanced", "tables_per_entrant": 3000},
            "this balanced schedule of 40 entrants at tables of 4 is 120,000 games, over --max-games 100,000",
        ),
        ({"format": "race", "top": 40}, "--top must be 1 to 39"),
        ({"format": "race", "confidence": 1.0}, "--confidence must be"),
        ({"format": "race", "repeats": 2}, "--games does not apply to --format race"),
        ({"top": 5}, "--top applies to --format race only"),
        ({"confidence": 0.9}, "--confidence applies to --format race only"),
        ({"tables_per_entrant": 2}, "--tables-per-entrant applies to --format balanced only"),
        ({"challengers": ("e000",)}, "need --format gauntlet"),
        ({"format": "gauntlet"}, "--format gauntlet needs challengers"),
        ({"format": "gauntlet", "challengers": ("e000",)}, "needs 3 challengers per table"),
        ({"format": "gauntlet", "challengers": ("nobody",), "table_size": 2}, "challenger 'nobody' is not an entrant"),
        ({"format": "race", "max_games": 0}, "--max-games must be at least 1"),
        ({"tie_margin": 0.5}, "--tie-margin applies to --format race only"),
        ({"format": "race", "tie_margin": -1.0}, "--tie-margin is a matchpoint share: at least 0 and below 1"),
        ({"format": "race", "tie_margin": 1.0}, "below 1 (e.g. 0.02), got 1.0"),
        ({"format": "race", "tie_margin": float("nan")}, "--tie-margin is a matchpoint share"),
    ],
)
def test_bad_combinations_are_one_line_errors(changes: dict[str, object], message: str) -> None:
    n = int(changes.pop("entrants", 40))  # type: ignore[call-overload]
    with pytest.raises(ScheduleError) as err:
        check_format(params(n, **changes))
    assert message in str(err.value) and "\n" not in str(err.value)


def test_a_race_tie_margin_is_stored_and_a_resume_must_keep_it() -> None:
    p = params(40, format="race", tie_margin=0.5)
    assert TournamentParams.from_json(p.to_json()) == p
    assert p.mismatch(p.changed({"tie_margin": 0.0})) == "--tie-margin was 0.5; now 0.0"


def test_round_robin_under_the_cap_is_todays_schedule() -> None:
    from referee.tournament import make_schedule

    p = params(6, table_size=3, repeats=2)
    assert schedule_for(p, SECRET) == make_schedule(p.names, table_size=3, repeats=2, seed=7, secret=SECRET)
    check_format(replace(p, max_games=120))
    with pytest.raises(ScheduleError, match="120 games, over --max-games 119"):
        check_format(replace(p, max_games=119))


def test_the_cli_offers_every_format_with_its_options() -> None:
    """``referee run`` takes its --format choices, their help and each format's options from the registry."""
    import click

    from referee.cli.run_cmd import run_cmd
    from referee.tournament import FORMATS

    by_name = {p.name: p for p in run_cmd.params}
    choice = by_name["format"].type
    assert isinstance(choice, click.Choice) and tuple(choice.choices) == tuple(FORMATS)
    for fmt in FORMATS.values():
        assert f"{fmt.name}: {fmt.summary}" in (by_name["format"].help or "")
        for option in fmt.options:
            assert option.flag in by_name[option.name].opts


@pytest.mark.parametrize(
    "kw",
    [
        {"format": "round-robin", "repeats": 2},
        {"format": "round-robin", "table_size": 3},
        {"format": "balanced", "tables_per_entrant": 4},
        {"format": "gauntlet", "challengers": ("e000", "e001"), "table_size": 3, "repeats": 2},
    ],
)
def test_the_planned_count_is_the_schedules_length(kw: dict[str, object]) -> None:
    """The report and ``referee run`` announce ``planned_games``; the schedule is what is played."""
    from referee.tournament import planned_games

    p = params(8, **kw)
    check_format(p)
    assert planned_games(p) == sum(len(b.games) for b in schedule_for(p, SECRET))
