"""The report's layout in a real browser (Debian's chromium via Playwright) at a laptop's 1,280 px and a phone's
390 px: the page never scrolls sideways, at 1,280 px no table does either (every column of the statistics, "vs
next" included, is on screen), names stay on one line (no break at their hyphens), the contest's ``--title`` heads
the page, the participants' results stand beside the statistics, and the page says which games have a replay.

The tournament is real (runner, engine, store, logs) with in-process scripted entrants named like a large field's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from referee.report import build_report
from tests.report.conftest import referee
from tests.tournament.scripted_runs import scripted_tournament

#: Names as a field of noisy sample bots has them: long, with hyphens (one at the 48-character limit).
NAMES = (
    "greedy-noise-0.15",
    "heuristic-with-a-long-hyphenated-name-v2",
    "montecarlo-1000-playouts-per-move-final-rc-1",
    "random",
    "team-blue-greedy-0.3",
    "a-forty-eight-character-entrant-name-xxxxxxxxx",
)
WIDTHS = {"laptop": (1280, 900), "phone": (390, 844)}


@pytest.fixture(scope="module")
def field(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = scripted_tournament(tmp_path_factory.mktemp("layout") / "results", NAMES, seed=5, table_size=3)
    build_report(folder, title="Spring Cup 2026")
    return folder


def _open(browser: Any, path: Path, width: int, height: int) -> Any:
    page = browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(path.resolve().as_uri())
    page.wait_for_selector("body[data-ready]")
    assert errors == []
    return page


@pytest.mark.parametrize("device", list(WIDTHS))
def test_the_report_fits_the_screen_and_names_stay_whole(field: Path, browser: Any, device: str) -> None:
    width, height = WIDTHS[device]
    page = _open(browser, field / "report.html", width, height)
    try:
        # the page itself never scrolls sideways
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        assert page.title() == "Spring Cup 2026 · referee report"
        assert page.inner_text("header h1") == "Spring Cup 2026"
        overflow = page.eval_on_selector_all(".wide", "els => els.map(e => e.scrollWidth - e.clientWidth)")
        results = page.eval_on_selector(
            "#results-table", "e => e.parentElement.scrollWidth - e.parentElement.clientWidth"
        )
        assert results <= 0  # the participants' table fits even a phone (its names fold there)
        if device == "laptop":  # names on one line (no break at a hyphen), and no table scrolls sideways
            lines = page.eval_on_selector_all(
                "#results-table td .name, #standings-table td.name",
                "els => els.map(e => { const r = document.createRange(); r.selectNodeContents(e.firstChild);"
                " return r.getClientRects().length; })",
            )  # the line boxes of each name's text
            assert lines == [1] * (2 * len(NAMES))
            assert overflow and max(overflow) <= 0, overflow
            right = page.eval_on_selector("#standings-table th:last-child", "e => e.getBoundingClientRect().right")
            assert right <= width
            vs_next = page.eval_on_selector(
                "#standings-table th:text-is('vs next')", "e => e.getBoundingClientRect().right"
            )
            assert vs_next <= width
        # the participants' view: place, name, score with its interval, games, forfeits
        heads = page.eval_on_selector_all("#results-table thead th", "ths => ths.map(t => t.textContent)")
        assert heads == ["place", "entrant", "score", "games", "forfeits"]  # games: not on a phone
        first = page.eval_on_selector_all("#results-table tbody tr:first-child td", "tds => tds.map(t => t.innerText)")
        assert first[0] == "1" and first[2].endswith(tuple("0123456789")) and "%" in first[2] and "±" in first[2]
        # which games have a replay: said once, in the games list
        assert page.inner_text("#replay-budget").startswith("Every game (")
        page.screenshot(path=str(field / f"report-{device}.png"), full_page=False)
    finally:
        page.close()


def test_title_option_and_a_race_says_why_each_place(tmp_path: Path) -> None:
    """``referee report --title`` names the page; a race's results say why each entrant holds its place."""
    folder = scripted_tournament(tmp_path / "race", NAMES, seed=5, table_size=3, format="race", top=2, max_games=120)
    done = referee("report", folder, "--title", "Race <night>")
    assert done.returncode == 0, done.stderr
    html = (folder / "report.html").read_text()
    assert "<h1>Race &lt;night&gt;</h1>" in html and "<title>Race &lt;night&gt; · referee report</title>" in html
    assert "<th>why this place</th>" in html
    assert '<p class="banner" id="race">Race for the top 2 at 95% confidence' in html
    reasons = html.count("left the race after round") + html.count("top 2") + html.count("still in the race")
    assert reasons >= len(NAMES)
