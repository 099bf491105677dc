"""The report in a real browser (Debian's chromium via Playwright): what it shows matches the database.

Opens the report ``referee run`` wrote, sorts the standings, checks charts, the head-to-head table and the faults
against SQL, follows a fault link into the replay and steps through replays frame by frame, comparing every
frame with the engine's own state when the game is re-run from its log.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from referee.engine import Phase, PlayEvent, State
from referee.report import read_game_log, run_steps
from tests.report.conftest import RANDOM_BOT, referee, write_manifest
from tests.report.dbread import per_entrant, query

TABLE_JS = """() => Array.from(document.querySelectorAll('#rp-table tbody tr')).map(tr => ({
    seat: Number(tr.dataset.seat),
    hand: Array.from(tr.querySelectorAll('td.hand .card:not(.discard)')).map(c => Number(c.textContent)),
    cards: Number(tr.querySelector('td.cards').textContent),
    penalty: Number(tr.querySelector('td.penalty').textContent),
    bonus: Number(tr.querySelector('td.bonus').textContent),
    status: tr.querySelector('td.status').textContent,
    toMove: tr.classList.contains('to-move'),
    forced: tr.querySelector('.tag.forced') !== null,
    forfeit: tr.querySelector('.tag.forfeit') !== null,
    result: tr.querySelector('td.result').textContent,
}))"""


def standings_rows(page: Any) -> list[dict[str, str]]:
    heads = page.eval_on_selector_all("#standings-table thead th", "ths => ths.map(t => t.textContent)")
    rows = page.eval_on_selector_all(
        "#standings-table tbody tr", "trs => trs.map(tr => Array.from(tr.cells).map(td => td.dataset.v))"
    )
    return [dict(zip(heads, r, strict=True)) for r in rows]


def test_standings_match_the_database_and_sort(tournament: Path, open_report: Any) -> None:
    page = open_report(tournament / "report.html")
    expected = per_entrant(tournament)
    rows = standings_rows(page)
    assert sorted(r["entrant"] for r in rows) == sorted(expected)
    for r in rows:
        e = expected[r["entrant"]]
        assert int(r["games"]) == e["games"]
        assert float(r["mean score"]) == pytest.approx(e["mean_score"], abs=1e-6)
        assert float(r["mean rank"]) == pytest.approx(e["mean_rank"], abs=1e-6)
        assert int(r["forfeits"]) == e["forfeits"]
    faults = dict(query(tournament, "SELECT entrant, count(*) FROM faults GROUP BY entrant"))
    assert {r["entrant"]: int(r["faults"]) for r in rows} == {n: faults.get(n, 0) for n in expected}
    # best first by matchpoints over complete deals (the deal statistics), then by rating
    order = [(-float(r["matchpoints"]), -float(r["rating"])) for r in rows]
    assert order == sorted(order)

    page.click("#standings-table th:text-is('mean score')")
    shown = [float(r["mean score"]) for r in standings_rows(page)]
    assert shown == sorted(shown)
    assert page.get_attribute("#standings-table th:text-is('mean score')", "class") == "asc"
    page.click("#standings-table th:text-is('mean score')")
    shown = [float(r["mean score"]) for r in standings_rows(page)]
    assert shown == sorted(shown, reverse=True)
    page.click("#standings-table th:text-is('entrant')")
    names = [r["entrant"] for r in standings_rows(page)]
    assert names == sorted(names, key=str.lower)
    # the visible text follows the sort, not only the data
    first = page.inner_text("#standings-table tbody tr:first-child td:nth-child(2)")
    assert first.startswith(names[0])


def test_charts_and_head_to_head_match_the_database(tournament: Path, open_report: Any) -> None:
    page = open_report(tournament / "report.html")
    names = [r[0] for r in query(tournament, "SELECT name FROM entrants ORDER BY position")]
    assert page.locator("#ratings-chart polyline.line").count() == len(names)
    assert page.locator("#scores-chart g.box").count() == len(names)
    for key, name in enumerate(names):
        scores = sorted(s for (s,) in query(tournament, "SELECT score FROM seats WHERE entrant=?", name))
        box = page.locator(f"#scores-chart g.box[data-entrant='{key}']")
        assert float(box.get_attribute("data-mean")) == pytest.approx(sum(scores) / len(scores), abs=1e-3)
        assert name in box.locator("title").text_content()
    pairs = query(
        tournament,
        "SELECT a.entrant, b.entrant, count(*), sum(a.rank < b.rank) FROM seats a JOIN seats b "
        "ON a.game_id = b.game_id AND a.seat != b.seat GROUP BY a.entrant, b.entrant",
    )
    assert pairs
    for a, b, met, ahead in pairs:
        cell = page.locator(f"#heatmap td[data-row='{a}'][data-col='{b}']")
        assert int(cell.get_attribute("data-games")) == met
        assert float(cell.get_attribute("data-share")) == pytest.approx(ahead / met, abs=1e-6)
        assert cell.inner_text() == f"{round(100 * ahead / met)}%"


def test_game_list_pages_and_filters(tournament: Path, open_report: Any) -> None:
    page = open_report(tournament / "report.html")
    total = query(tournament, "SELECT count(*) FROM games")[0][0]
    assert page.locator("#game-table tbody tr").count() == total
    assert page.inner_text("#game-count") == f"{total} games"
    crashy = query(tournament, "SELECT position FROM entrants WHERE name='crashy'")[0][0]
    page.select_option("#game-filter", str(crashy))
    played = query(tournament, "SELECT count(*) FROM seats WHERE entrant='crashy'")[0][0]
    assert page.locator("#game-table tbody tr").count() == played
    page.check("#game-faulted")
    # The filter keeps crashy's games that hold a fault (of any seat: the deal decides whether crashy's own
    # crash comes before the game ends, and whether the cheater at its table faults).
    faulted = query(
        tournament,
        "SELECT count(DISTINCT f.game_id) FROM faults f JOIN seats s ON s.game_id = f.game_id "
        "WHERE s.entrant = 'crashy'",
    )[0][0]
    assert page.locator("#game-table tbody tr").count() == faulted


def test_faults_table_links_to_the_fault_in_the_replay(tournament: Path, open_report: Any) -> None:
    page = open_report(tournament / "report.html")
    faults = query(tournament, "SELECT game_id, seat, entrant, kind, detail FROM faults ORDER BY rowid")
    assert len(faults) >= 2
    rows = page.locator("#fault-table tbody tr")
    assert rows.count() == len(faults)
    for i, (game_id, _seat, entrant, kind, detail) in enumerate(faults):
        text = rows.nth(i).inner_text()
        for part in (game_id, entrant, kind, detail):
            assert part in text
    game_id, seat, entrant, kind, detail = faults[0]
    rows.nth(0).locator("a").click()
    page.wait_for_selector("#replay-view:not([hidden])")
    assert page.is_visible("#rp-fault")
    banner = page.inner_text("#rp-fault")
    assert entrant in banner and kind in banner and detail in banner
    assert game_id in page.inner_text("#replay-title")
    # the fault frame is the seat's forfeit: it shows as dropped
    table = {r["seat"]: r for r in page.evaluate(TABLE_JS)}
    assert table[seat]["status"] == "dropped"
    assert table[seat]["forfeit"]
    assert "forfeit" in page.inner_text("#rp-event")
    # before the fault the seat is an ordinary player
    page.click("#rp-first")
    assert not any(r["forfeit"] for r in page.evaluate(TABLE_JS))
    assert page.is_hidden("#rp-fault")


def expected_frames(states: list[State]) -> dict[int, dict[str, Any]]:
    """Frame index → the engine's table, for every frame that one engine state stands for.

    Frames per round: the deal, the discards, one per history event; then one "game over" frame.
    """
    final = states[-1]
    offsets = []
    at = 0
    for r in range(len(final.rounds_done)):
        offsets.append(at)
        at += 2 + len(final.rounds_done[r].history)
    out: dict[int, dict[str, Any]] = {}

    def table(hands: Any, views: Any, to_move: int, forced: bool) -> dict[str, Any]:
        return {
            "hands": [list(h) for h in hands],
            "penalty": [v.penalty for v in views],
            "bonus": [v.bonus for v in views],
            "status": [v.status.value for v in views],
            "to_move": to_move,
            "forced": forced,
        }

    for s in states:
        if s.phase is Phase.PLAY and s.history:
            r = len(s.rounds_done)
            out[offsets[r] + 1 + len(s.history)] = table(s.hands, s.table(), s.to_move, s.forced)
    for r, record in enumerate(final.rounds_done):
        # the round's end: the kept hands less every card played, and the table of the round record
        hands = [_minus(hand, discard) for hand, discard in zip(record.hands, record.discards, strict=True)]
        for e in record.history:
            if isinstance(e, PlayEvent):
                for _ in range(e.count):
                    hands[e.seat].remove(e.value)
        out[offsets[r] + 1 + len(record.history)] = table(hands, record.players, -1, False)
    return out


def _minus(hand: tuple[int, ...], cards: tuple[int, ...]) -> list[int]:
    rest = list(hand)
    for c in cards:
        rest.remove(c)
    return rest


def replay_games(tournament: Path) -> list[tuple[int, str, str]]:
    """(ordinal, game id, log path) of a game with a fault and one without."""
    faulted = {g for (g,) in query(tournament, "SELECT game_id FROM faults")}
    rows = query(tournament, "SELECT ordinal, game_id, log_path FROM games ORDER BY ordinal")
    clean = next(r for r in rows if r[1] not in faulted)
    bad = next(r for r in rows if r[1] in faulted)
    return [clean, bad]


@pytest.mark.parametrize("which", [0, 1], ids=["clean-game", "faulted-game"])
def test_replay_steps_match_the_engine(tournament: Path, open_report: Any, which: int) -> None:
    ordinal, game_id, log_path = replay_games(tournament)[which]
    logged = read_game_log(tournament / log_path)
    states = run_steps(len(logged.names), logged.ruleset, logged.steps, deal=logged.deal)
    final = states[-1]
    assert final.is_over
    expected = expected_frames(states)
    assert len(expected) > 20

    page = open_report(tournament / "report.html", f"#replay/{ordinal}")
    page.wait_for_selector("#replay-view:not([hidden])")
    assert game_id in page.inner_text("#replay-title")
    total = int(page.get_attribute("#rp-slider", "max")) + 1
    assert total == sum(2 + len(r.history) for r in final.rounds_done) + 1
    # the deal frame shows every hand as dealt
    first = page.evaluate(TABLE_JS)
    assert [r["hand"] for r in first] == [list(h) for h in final.rounds_done[0].hands]
    checked = 0
    for frame in range(total):
        if frame:
            page.click("#rp-next")
        assert page.get_attribute("#replay-view", "data-frame") == str(frame)
        want = expected.get(frame)
        if want is None:
            continue
        shown = page.evaluate(TABLE_JS)
        assert [r["hand"] for r in shown] == want["hands"], frame
        assert [r["cards"] for r in shown] == [len(h) for h in want["hands"]], frame
        assert [r["penalty"] for r in shown] == want["penalty"], frame
        assert [r["bonus"] for r in shown] == want["bonus"], frame
        assert [r["status"] for r in shown] == want["status"], frame
        assert [r["seat"] for r in shown if r["toMove"]] == ([want["to_move"]] if want["to_move"] >= 0 else []), frame
        assert any(r["forced"] for r in shown) == want["forced"], frame
        checked += 1
    assert checked == len(expected)
    # the last frame: the stored result
    assert page.is_disabled("#rp-next")
    seats = query(tournament, "SELECT seat, score, rank FROM seats WHERE game_id=? ORDER BY seat", game_id)
    shown = page.evaluate(TABLE_JS)
    assert [r["result"] for r in shown] == [f"score {score}, rank {rank}" for _, score, rank in seats]
    # keyboard and slider move too
    page.keyboard.press("Home")
    assert page.get_attribute("#replay-view", "data-frame") == "0"
    page.keyboard.press("ArrowRight")
    assert page.get_attribute("#replay-view", "data-frame") == "1"
    page.fill("#rp-slider", "5")
    assert page.get_attribute("#replay-view", "data-frame") == "5"


@pytest.fixture(scope="module")
def opener_forfeit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three games of one deal at a table of three, where "cheater" answers its first turn illegally.

    Over the three seat rotations the cheater holds the 1 once and must open with it: its illegal opening makes
    the referee play the 1 for it and then drop it, two history entries marked as forfeits.
    """
    folder = tmp_path_factory.mktemp("opener")
    entries = [
        ("cheater", RANDOM_BOT, 'MISBEHAVE = "illegal", MISBEHAVE_AT = "1"'),
        ("random-a", RANDOM_BOT, ""),
        ("random-b", RANDOM_BOT, ""),
    ]
    out = folder / "t"
    done = referee("run", "--manifest", write_manifest(folder, entries), "-k", "3", "--seed", "5", "--out", out)
    assert done.returncode == 0, done.stderr
    return out


def test_a_fault_whose_forfeit_plays_the_1_shows_on_the_drop(opener_forfeit: Path, open_report: Any) -> None:
    games = query(opener_forfeit, "SELECT ordinal, game_id, log_path FROM games ORDER BY ordinal")
    opened = []
    for ordinal, game_id, log_path in games:
        logged = read_game_log(opener_forfeit / log_path)
        first = run_steps(len(logged.names), logged.ruleset, logged.steps, deal=logged.deal)[-1].rounds_done[0]
        if isinstance(first.history[0], PlayEvent) and first.history[0].forfeit:
            opened.append((ordinal, game_id, first.history[0].seat))
    assert len(opened) == 1  # the cheater sits once in the seat that holds the 1
    ordinal, game_id, seat = opened[0]
    page = open_report(opener_forfeit / "report.html", f"#replay/{ordinal}/fault")
    page.wait_for_selector("#replay-view:not([hidden])")
    assert "cheater" in page.inner_text("#rp-fault") and "illegal_move" in page.inner_text("#rp-fault")
    # the banner's frame is the drop, after the referee's play of the 1 for the cheater
    table = {r["seat"]: r for r in page.evaluate(TABLE_JS)}
    assert table[seat]["status"] == "dropped" and table[seat]["forfeit"]
    assert page.get_attribute("#replay-view", "data-frame") == "3"  # deal, discards, the play of the 1, the drop
    page.click("#rp-prev")
    assert page.is_hidden("#rp-fault")
    table = {r["seat"]: r for r in page.evaluate(TABLE_JS)}
    assert table[seat]["status"] == "playing"
