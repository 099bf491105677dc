"""The pages in a real browser (Debian's chromium via Playwright) against the served app: an author signs in,
uploads a bot and follows it to the leaderboard, which updates itself while it is open; a game's replay steps
through the report's viewer; another author's logs stay closed; every page, public, an author's and the organiser's,
opens at 1,280 and 390 px without a console error or Content-Security-Policy violation and no wider than the window.

The every-page tour writes each page's screenshot at each width to ``$REFEREE_SCREENS`` as web-NAME-WIDTH.png when
that is set (none otherwise: they cost CPU); the other tests write theirs there or to their temporary folder.
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

from referee.ladder import BlockKind, Ladder, VersionState
from referee.runner.gamelog import read_records
from referee.runner.logrecords import ActionEvent
from referee.runner.stderr_marks import mark_line
from tests.web.ladderdata import HOSTILE, HOSTILE_STDERR, ROOT, Built, commit_simulated


@pytest.fixture
def screens(tmp_path: Path) -> Path:
    folder = Path(os.environ.get("REFEREE_SCREENS", tmp_path))
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture
def asked_screens() -> Path | None:
    """Where the every-page tour writes its screenshots: ``$REFEREE_SCREENS``, or nowhere (they cost CPU)."""
    asked = os.environ.get("REFEREE_SCREENS")
    if not asked:
        return None
    Path(asked).mkdir(parents=True, exist_ok=True)
    return Path(asked)


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


#: The widths every page is checked at: a desktop and a phone.
WIDTHS = (1280, 390)
#: A page that is not there: the error page.
MISSING = "/entrants/nobody-by-this-name"


def _check_page(page: Any, base: str, url: str, width: int, screens: Path | None, name: str) -> None:
    """Open ``url`` at the page's width: it loads, nothing on it is wider than the window (wide tables scroll in
    their own box), and its screenshot goes to ``screens`` when asked (``$REFEREE_SCREENS``)."""
    page.goto(base + url)
    page.wait_for_load_state("networkidle")
    if url.startswith("/games/"):
        page.wait_for_selector("body[data-ready='1']")
    wide = page.evaluate("document.documentElement.scrollWidth")
    assert wide <= width, f"{url} is {wide} px wide in a {width} px window"
    if screens is not None:
        page.screenshot(path=screens / f"web-{name}-{width}.png", full_page=True)


def test_every_page_renders_at_both_widths_without_csp_violations(
    browser: Any, live_server, own_ladder: Built, asked_screens: Path | None
) -> None:
    server = live_server()
    base = server.url
    hostile = quote(HOSTILE, safe="")
    game = own_ladder.faulted_game
    # the hostile seat's stderr in that game, marked as serve marks it (tests/web/test_turn_stderr.py plays it)
    with Ladder.open(own_ladder.root) as ladder:
        seat = [ladder.store.version(v).key for v in ladder.game(game).seats].index(f"{HOSTILE}#1")
        _, events = read_records(ladder.game_log(game), wire=False)
    actions = [e for e in events if isinstance(e, ActionEvent) and e.round == 1]
    step = sum(len(e.entries) for e in actions[: next(i for i, e in enumerate(actions) if e.seat == seat)])
    with (own_ladder.root / "bots" / f"{HOSTILE}#1.lane0.log").open("a", encoding="utf-8") as f:
        f.write(mark_line(game, seat, 1, 0, "deal").decode() + "thinking about my discard\n")
        f.write(mark_line(game, seat, 1, step, "turn").decode() + "thinking about turn 1\n")
    public = [
        ("leaderboard", "/"),
        ("entrant", f"/entrants/{hostile}"),
        ("entrant-alice", "/entrants/alice"),
        ("version", f"/entrants/{hostile}/versions/1"),
        ("blocks", "/blocks"),
        ("block", f"/blocks/{own_ladder.real_block}"),
        ("game", f"/games/{game}"),
        ("epochs", "/epochs"),
        ("final", "/final"),
        ("signin", "/signin"),
        ("api", "/api/docs"),
        ("play", "/play"),
        ("error", MISSING),
    ]
    author = [
        ("me", "/me"),
        ("submit", "/submit"),
        ("author-play", "/play"),
        ("author-version", f"/entrants/{hostile}/versions/1"),
        ("author-game", f"/games/{game}"),
    ]
    organiser = [("admin-me", "/me"), ("admin-version", f"/entrants/{hostile}/versions/1")]
    for width in WIDTHS:
        problems: list[str] = []
        context = browser.new_context(viewport={"width": width, "height": 900})
        try:
            page = context.new_page()
            page.on("pageerror", lambda exc, out=problems: out.append(f"page error: {exc}"))
            # every console error fails (a CSP violation is one), but the one line Chromium logs for the error page's
            # own 404; a failed request fails through the responses, which say which
            page.on(
                "console",
                lambda msg, out=problems: msg.type == "error" and not msg.text.startswith("Failed to load resource")
                and out.append(f"console: {msg.text}"),
            )  # fmt: skip
            page.on(
                "response",
                lambda r, out=problems: r.status >= 400 and r.url != base + MISSING
                and out.append(f"{r.status}: {r.url}"),
            )  # fmt: skip
            for name, url in public:
                _check_page(page, base, url, width, asked_screens, name)
                if name == "leaderboard":
                    assert page.locator("#leaderboard tbody tr").count() == 4
                    assert page.inner_text("#leaderboard tbody tr:last-child td.name") == HOSTILE  # shown as text
                if name == "entrant-alice":
                    assert page.locator("#ratings polyline.line").count() == 1
                if name == "api":
                    assert page.locator(".swagger-ui").count() == 1  # the OpenAPI page ran under the CSP
                if name == "game":
                    assert page.is_hidden("#rp-stderr")  # the public sees no one's stderr
                if name == "error":
                    assert "nobody-by-this-name" in page.inner_text("main")
            sign_in(page, base, own_ladder.tokens[HOSTILE])
            for name, url in author:
                _check_page(page, base, url, width, asked_screens, name)
                if name == "author-version":
                    assert HOSTILE_STDERR in page.inner_text("#stderr")  # as text
                    assert page.locator("#fault-table tbody tr").count() >= 1
                if name == "author-game":
                    page.click("#rp-next")  # from the deal to the first round's discard
                    assert "thinking about my discard" in page.inner_text("#rp-stderr")
                    for _ in range(step + 1):  # to the step that shows its first move
                        page.click("#rp-next")
                    assert "thinking about turn 1" in page.inner_text("#rp-stderr")
                    assert "while choosing this move" in page.inner_text("#rp-stderr")
                    assert page.locator("#rp-history li.has-stderr").count() == 1
                    if asked_screens is not None:
                        page.screenshot(path=asked_screens / f"web-author-game-stderr-{width}.png", full_page=True)
            page.click("#signout")
            sign_in(page, base, own_ladder.admin)
            for name, url in organiser:
                _check_page(page, base, url, width, asked_screens, name)
        finally:
            context.close()
        assert problems == [], f"at {width} px"


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
