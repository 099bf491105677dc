"""The size budget: past it, replays are left out (faulted games kept first) while every game stays listed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee.report import load_tournament, render, unpack_blob
from referee.report.payload import pack


def test_all_replays_fit_a_small_tournament(tournament: Path) -> None:
    t = load_tournament(tournament)
    packed = pack(t)
    assert packed.embedded == packed.available == len(t.games)
    replays = [r for chunk in packed.chunks for r in unpack_blob(chunk)]
    assert replays == [g.replay for g in t.games]


def test_a_tight_budget_keeps_faulted_games_first(tournament: Path, open_report: Any, tmp_path: Path) -> None:
    t = load_tournament(tournament)
    faulted = {f.game for f in t.faults}
    assert 0 < len(faulted) < len(t.games)
    one = len(pack(t).chunks[0]) // len(t.games)
    budget = one * (len(faulted) + 3)
    html, packed = render(t, replay_budget=budget)
    assert sum(len(c) for c in packed.chunks) <= budget
    assert len(faulted) <= packed.embedded < packed.available
    index = unpack_blob(packed.index)
    assert [g["key"] for g in index["games"]] == [g.key for g in t.games]
    embedded = {g["key"] for g in index["games"] if g["replay"] is not None}
    assert faulted <= embedded
    left_out = next(g for g in index["games"] if g["replay"] is None)
    assert "left out" in left_out["note"]
    assert "replays are embedded" in html

    path = tmp_path / "small.html"
    path.write_text(html, encoding="utf-8")
    page = open_report(path, f"#replay/{left_out['key']}")
    page.wait_for_function("document.getElementById('replay-empty').textContent.includes('left out')")
    assert page.is_hidden("#replay-view")
    kept = next(g for g in index["games"] if g["replay"] is not None and g["key"] not in faulted)
    page.evaluate(f"location.hash = '#replay/{kept['key']}'")
    page.wait_for_selector("#replay-view:not([hidden])")
    assert kept["label"] in page.inner_text("#replay-title")
