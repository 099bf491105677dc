"""The pages in a real browser (Debian's chromium via Playwright) against the served app: an author signs in,
uploads a bot and follows it to the leaderboard, which updates itself while it is open; a game's replay steps
through the report's viewer; another author's logs stay closed; no page breaks the Content-Security-Policy.

Each page's screenshot is written to ``$REFEREE_SCREENS`` (default: the test's temporary folder) as web-*.png.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from referee.ladder import BlockKind, VersionState
from tests.web.ladderdata import HOSTILE, HOSTILE_STDERR, ROOT, Built, commit_simulated


@pytest.fixture
def screens(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("REFEREE_SCREENS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def open_page(browser: Any) -> Iterator[Any]:
    """``open_page(url)``: a new browser context (its own cookies) on ``url``; page errors and CSP violations fail."""
    contexts: list[Any] = []
    problems: list[str] = []

    def open_(url: str) -> Any:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        contexts.append(context)
        page = context.new_page()
        page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
        page.on(
            "console",
            lambda msg: msg.type == "error" and "Failed to load resource" not in msg.text
            and problems.append(f"console: {msg.text}"),
        )  # fmt: skip
        page.on("response", lambda r: r.status == 404 and problems.append(f"404: {r.url}"))
        page.goto(url)
        return page

    yield open_
    for context in contexts:
        context.close()
    assert problems == []


def until(check: Any, timeout: float = 15.0) -> None:
    """Wait for ``check()`` to hold (the page's CSP forbids the string evaluation ``wait_for_function`` uses)."""
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the page did not change in time"
        time.sleep(0.1)


def sign_in(page: Any, base: str, token: str) -> None:
    page.goto(f"{base}/signin")
    page.fill("#token", token)
    page.click("#signin-submit")
    page.wait_for_url(f"{base}/me")


def test_every_page_renders_without_csp_violations(open_page, live_server, own_ladder: Built, screens: Path) -> None:
    server = live_server()
    base = server.url
    hostile = quote(HOSTILE, safe="")
    page = open_page(f"{base}/")
    assert page.locator("#leaderboard tbody tr").count() == 4
    assert page.inner_text("#leaderboard tbody tr:last-child td.name") == HOSTILE  # shown as text
    page.screenshot(path=screens / "web-leaderboard.png", full_page=True)
    for name, url in [
        ("entrant", f"/entrants/{hostile}"),
        ("blocks", "/blocks"),
        ("block", f"/blocks/{own_ladder.real_block}"),
        ("epochs", "/epochs"),
        ("final", "/final"),
        ("signin", "/signin"),
        ("api", "/api/docs"),
    ]:
        page.goto(base + url)
        page.wait_for_load_state("networkidle")
        page.screenshot(path=screens / f"web-{name}.png", full_page=True)
    assert page.locator(".swagger-ui").count() == 1  # the OpenAPI page ran under the CSP
    page.goto(f"{base}/entrants/alice")
    assert page.locator("#ratings polyline.line").count() == 1
    page.screenshot(path=screens / "web-entrant-alice.png", full_page=True)
    sign_in(page, base, own_ladder.tokens[HOSTILE])
    page.screenshot(path=screens / "web-me.png", full_page=True)
    page.goto(f"{base}/entrants/{hostile}/versions/1")
    assert HOSTILE_STDERR in page.inner_text("#stderr")  # as text
    assert page.locator("#fault-table tbody tr").count() >= 1
    page.screenshot(path=screens / "web-author-version.png", full_page=True)


def test_the_final_and_its_replays_at_a_desk_and_on_a_phone(
    open_page, live_server, own_ladder: Built, screens: Path
) -> None:
    """A real final of the ladder's versions (a race for first place, a few dozen games); its page and a game's
    replay at 1280 and 390 px wide, within the CSP; the epochs it closed show their secrets."""
    from click.testing import CliRunner

    from referee.cli import main

    done = CliRunner().invoke(main, ["ladder", "final", str(own_ladder.root), "--top", "1", "--max-games", "36"])
    assert done.exit_code == 0, done.output
    base = live_server().url
    page = open_page(f"{base}/final")
    for width in (1280, 390):
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{base}/final")
        assert page.locator("#final-table tbody tr").count() == 4
        assert HOSTILE in page.inner_text("#final-table")  # a name that is markup, shown as text
        assert page.locator("#final-verdict li").count() == 2
        page.screenshot(path=screens / f"web-final-{width}.png", full_page=True)
        page.click("#final-games-table tbody tr:first-child a")
        page.wait_for_selector("body[data-ready='1']")
        assert page.is_visible("#replay-view") and page.is_hidden("#replay-empty")
        page.click("#rp-last")
        assert "Game over" in page.inner_text("#rp-event")
        page.screenshot(path=screens / f"web-final-game-{width}.png", full_page=True)
    page.goto(f"{base}/epochs")
    assert "revealed when it closes" not in page.inner_text("#epoch-table")


def test_a_replay_steps_through_the_reports_viewer(open_page, live_server, own_ladder: Built, screens: Path) -> None:
    server = live_server()
    page = open_page(f"{server.url}/games/{own_ladder.faulted_game}#fault")
    page.wait_for_selector("body[data-ready='1']")
    assert page.is_visible("#replay-view") and page.is_hidden("#replay-empty")
    assert page.is_visible("#rp-fault")  # opened at the fault; its detail is the author's
    assert "illegal_move" in page.inner_text("#rp-fault") and "you hold no" not in page.inner_text("#rp-fault")
    assert page.locator("#rp-table tbody tr").count() == 3
    page.click("#rp-first")
    assert page.get_attribute("#replay-view", "data-frame") == "0"
    page.click("#rp-next")
    page.click("#rp-next")
    assert page.get_attribute("#replay-view", "data-frame") == "2"
    page.click("#rp-last")
    assert "Game over" in page.inner_text("#rp-event")
    page.screenshot(path=screens / "web-game.png", full_page=True)


def test_another_authors_logs_stay_closed(open_page, live_server, own_ladder: Built) -> None:
    server = live_server()
    base = server.url
    page = open_page(f"{base}/")
    sign_in(page, base, own_ladder.tokens["bob"])
    page.goto(f"{base}/entrants/{quote(HOSTILE, safe='')}/versions/1")
    assert page.locator("#stderr").count() == 0 and page.locator("#fault-table").count() == 0
    status = page.evaluate(
        "async (u) => (await fetch(u, {credentials: 'same-origin'})).status",
        f"/api/entrants/{quote(HOSTILE, safe='')}/versions/1/stderr",
    )
    assert status == 403
    page.goto(f"{base}/api/entrants/{quote(HOSTILE, safe='')}/versions/1/faults")
    assert "only" in page.inner_text("body") and "may read" in page.inner_text("body")


def test_an_author_uploads_and_follows_it_to_a_live_leaderboard(
    open_page, live_server, own_ladder: Built, screens: Path
) -> None:
    server = live_server(poll_seconds=0.5)
    base = server.url
    page = open_page(f"{base}/")
    sign_in(page, base, own_ladder.tokens["bob"])
    page.goto(f"{base}/submit")
    page.screenshot(path=screens / "web-submit.png", full_page=True)
    page.set_input_files("#file", str(ROOT / "sample_bots" / "montecarlo.py"))
    page.click("#submit-button")
    page.wait_for_url(f"{base}/entrants/bob/versions/2")
    assert page.inner_text("#version-state") == "submitted"
    page.screenshot(path=screens / "web-version-submitted.png", full_page=True)
    # the ladder gates it and places it (as serve does: state by state, blocks committed whole)
    ladder = server.ladder
    v = ladder.version("bob", 2)
    ladder.store.set_version_state(v.id, VersionState.GATING, None)
    until(lambda: page.inner_text("#version-state").strip() == "gating")
    ladder.store.start_gate(v.id)
    ladder.store.finish_gate(v.id, passed=True, reasons=[], report=None, build_log="built in 0.1 s")
    ladder.store.set_version_state(v.id, VersionState.PLACEMENT, None, placement_left=2)
    until(lambda: page.inner_text("#version-state").strip() == "placement")
    assert "Passed" in page.inner_text("#gate-result")
    # the leaderboard, open in another tab, follows without a reload
    board = page.context.new_page()
    board.goto(f"{base}/")
    board.evaluate("window.stillTheSamePage = true")
    assert board.locator("#placement-table tr[data-key='bob#2']").count() == 1
    rng = random.Random(5)
    vids = {e: ladder.version(e, 1).id for e in ("alice", "carol")}
    epoch = ladder.epochs()[0].id
    for _ in range(3):
        commit_simulated(ladder.store, epoch, [vids["alice"], v.id, vids["carol"]], rng, BlockKind.PLACEMENT)
    ladder.store.set_version_state(v.id, VersionState.RANKED, None, placement_left=0)
    board.wait_for_selector("#leaderboard tr[data-key='bob#2']", timeout=15000)
    assert board.evaluate("window.stillTheSamePage") is True
    assert board.locator("#placement-table tr[data-key='bob#2']").count() == 0
    blocks_before = board.inner_text("#leaderboard tr[data-key='bob#2'] td[data-f='blocks']")
    commit_simulated(ladder.store, epoch, [vids["alice"], v.id, vids["carol"]], rng, BlockKind.RANKED)
    until(lambda: board.inner_text("#leaderboard tr[data-key='bob#2'] td[data-f='blocks']") != blocks_before)
    assert board.evaluate("window.stillTheSamePage") is True
    assert int(board.inner_text("#leaderboard tr[data-key='bob#2'] td[data-f='blocks']")) == int(blocks_before) + 1
    board.screenshot(path=screens / "web-leaderboard-live.png", full_page=True)
