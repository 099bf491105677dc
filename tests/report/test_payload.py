"""The size budget: past it, replays are left out (faulted games kept first) while every game stays listed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from referee.report import load_tournament, render, unpack_blob
from referee.report.payload import pack


def test_all_replays_fit_a_small_tournament(tournament: Path) -> None:
    t = load_tournament(tournament)
    packed = pack(t)
    assert packed.embedded == packed.available == len(t.games)
    replays = [r for chunk in packed.chunks for r in unpack_blob(chunk)]
    assert replays == [json.loads(g.replay) if isinstance(g.replay, str) else g.replay for g in t.games]


def test_a_size_limit_keeps_faulted_games_first(tournament: Path, open_report: Any, tmp_path: Path) -> None:
    t = load_tournament(tournament)
    faulted = {f.game for f in t.faults}
    assert 0 < len(faulted) < len(t.games)
    full, _ = render(t)
    chunks = sum(len(c) for c in pack(t).chunks)
    limit = len(full.encode()) - chunks // 2  # room for fewer than half the replays
    html, packed = render(t, limit=limit)
    assert len(html.encode()) <= limit < len(full.encode())
    assert 0 < packed.embedded < packed.available == len(t.games)
    index = unpack_blob(packed.index)
    assert [g["key"] for g in index["games"]] == [g.key for g in t.games]
    embedded = {g["key"] for g in index["games"] if g["replay"] is not None}
    assert len(embedded) == packed.embedded
    # faulted games come first
    assert embedded <= faulted if len(embedded) <= len(faulted) else faulted <= embedded
    left_out = next(g for g in index["games"] if g["replay"] is None)
    assert "left out" in left_out["note"]
    assert f"{packed.embedded:,} of {len(t.games):,} games have their replay in this file" in html
    assert "were left out to keep it small: every game with a fault is kept first" in html

    path = tmp_path / "small.html"
    path.write_text(html, encoding="utf-8")
    page = open_report(path, f"#replay/{left_out['key']}")
    page.wait_for_function("document.getElementById('replay-empty').textContent.includes('left out')")
    assert page.is_hidden("#replay-view")
    kept = next(g for g in index["games"] if g["replay"] is not None)
    page.evaluate(f"location.hash = '#replay/{kept['key']}'")
    page.wait_for_selector("#replay-view:not([hidden])")
    assert kept["label"] in page.inner_text("#replay-title")


def test_a_long_faults_table_is_cut_with_a_pointer_to_the_rest(tournament: Path, monkeypatch: Any) -> None:
    from referee.report import page

    t = load_tournament(tournament)
    assert len(t.faults) > 3
    monkeypatch.setattr(page, "FAULT_ROWS", 3)
    html, _ = render(t)
    table = html[html.index('id="fault-table"') : html.index("</table>", html.index('id="fault-table"'))]
    assert table.count("<tr data-game=") == 3
    assert f"{len(t.faults)} faults" in html and "The first 3 are listed" in html


def test_the_rating_history_ends_at_the_standings_ratings(tournament: Path) -> None:
    from openskill.models import PlackettLuce

    t = load_tournament(tournament)
    ratings = {e.name: e.rating for e in t.standings.entrants}
    # the same updates, replayed here game by game in schedule order
    model = PlackettLuce()
    current = [model.rating() for _ in t.entrants]
    want: list[list[tuple[int, float]]] = [[(0, float(r.ordinal()))] for r in current]
    for number, game in enumerate(t.games, start=1):
        rated = model.rate([[current[e]] for e in game.seats], ranks=list(game.ranks))
        for key, team in zip(game.seats, rated, strict=True):
            current[key] = team[0]
            want[key].append((number, float(team[0].ordinal())))
    for e in t.entrants:
        games = sum(1 for g in t.games if e.key in g.seats)
        assert len(t.ratings[e.key]) == games + 1
        assert [n for n, _ in t.ratings[e.key]] == [n for n, _ in want[e.key]]
        assert [v for _, v in t.ratings[e.key]] == pytest.approx([v for _, v in want[e.key]], abs=1e-9)
        assert t.ratings[e.key][-1][1] == pytest.approx(ratings[e.name], abs=1e-9)


def test_a_count_of_the_same_games_is_taken_and_any_other_is_not(tournament: Path) -> None:
    """``referee run`` hands the report the standings it has just counted from the store: the report takes them (the
    same figures and chart as counting itself), but counts itself when they hold other games or no history."""
    from referee.tournament import ResultsStore, Tally, tally_from_store

    own = load_tournament(tournament)
    with ResultsStore(tournament, read_only=True) as store:
        counted = tally_from_store(store, history=True)
        no_history = tally_from_store(store)
        games = list(store.games())
        fewer = Tally(store.names(), store.declared_names(), history=True)
    for game in games[:-1]:  # as if the last game had not been stored yet
        fewer.add(game.seats, game.batch)
    taken = load_tournament(tournament, counted=counted)
    assert (taken.standings, taken.ratings) == (own.standings, own.ratings)
    for other in (fewer, no_history):
        report = load_tournament(tournament, counted=other)
        assert (report.standings, report.ratings) == (own.standings, own.ratings)
    assert fewer.standings() != own.standings  # so taking it would have shown other figures
