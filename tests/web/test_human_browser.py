"""A person plays whole games in a real browser (Debian's chromium via Playwright) against sample-bot versions of a
served ladder, run as ranked play runs them: at 1,280 px signed in, at 390 px (a phone) as a signed-out guest the
organiser lets in; the discards are ticked, the moves clicked from the listed ones (once typed), the game's replay
opens at its end. No page breaks the Content-Security-Policy, and no page script is needed to play.

Screenshots go to ``$REFEREE_SCREENS`` (default: the test's temporary folder) as web-human-*.png. The ladder's
rules are made short (one round of 8 cards) to keep the test cheap.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from tests.web.ladderdata import Built

#: One short round: a game is a dozen clicks.
SHORT_RULES = "rounds = 1\nhand_size = 8\ndiscard = 2\n"


@pytest.fixture
def short_ladder(own_ladder: Built) -> Built:
    path = own_ladder.root / "ladder.toml"
    text = path.read_text(encoding="utf-8")
    text = text.replace("[rules]", "[rules]\n" + SHORT_RULES, 1).replace("anyone = false", "anyone = true")
    path.write_text(text, encoding="utf-8")
    return own_ladder


def watched(browser: Any, width: int, problems: list[str]) -> Any:
    """A page in a context of its own at ``width`` px; page errors, console errors (a CSP violation is one) and
    404s are added to ``problems``."""
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.on("pageerror", lambda exc: problems.append(f"page error: {exc}"))
    page.on("console", lambda msg: msg.type == "error" and problems.append(f"console: {msg.text}"))
    page.on("response", lambda r: r.status >= 400 and problems.append(f"{r.status}: {r.url}"))
    return page


def submit(page: Any, button: str) -> None:
    """Click a form's ``button`` and wait for the page it leads to (the game's page again, or its end)."""
    with page.expect_navigation():
        page.click(button)


def play_game(page: Any, screens: Path, tag: str, type_one: bool) -> None:
    """From the game's page to its end: tick the highest cards at a discard, click the cheapest listed play at a
    turn (else drop); with ``type_one``, the first play is typed instead. Screenshots of the first discard, the
    first turn and the end."""
    shot: set[str] = set()
    for _ in range(200):
        page.wait_for_selector("#discard-form, #move-form, #human-summary", timeout=15000)
        if page.locator("#human-summary").count():
            break
        if page.locator("#discard-form").count():
            if "discard" not in shot:
                page.screenshot(path=screens / f"web-human-{tag}-discard.png", full_page=True)
                shot.add("discard")
            cards = [int(c) for c in page.locator("#hand .card").all_inner_texts()]
            need = int(re.search(r"Discard (\d+) cards", page.inner_text("#discard-form")).group(1))  # type: ignore[union-attr]
            for i in sorted((i for i, c in enumerate(cards) if c != 1), key=lambda i: cards[i])[-need:]:
                page.check(f"#card-{i}")  # the hand may hold a value twice: each card has a box
            submit(page, "#discard")
            continue
        if "turn" not in shot:
            page.screenshot(path=screens / f"web-human-{tag}-turn.png", full_page=True)
            shot.add("turn")
        moves = page.locator("#moves button.move")
        plays = [m for m in moves.all() if (m.get_attribute("data-move") or " ")[0].isdigit()]
        if plays and type_one:
            page.fill("#typed", plays[0].get_attribute("data-move"))
            submit(page, "#typed-submit")
            type_one = False
        elif plays:
            submit(page, f"#moves button.move[data-move='{plays[0].get_attribute('data-move')}']")
        else:
            submit(page, "#moves button.move[data-move='drop']")
    else:
        raise AssertionError(f"the game did not end: {page.inner_text('main')[:2000]}")
    page.wait_for_selector("body[data-ready='1']")  # the replay viewer shows the whole game
    page.click("#rp-last")
    assert "Game over" in page.inner_text("#rp-event")
    page.screenshot(path=screens / f"web-human-{tag}-over.png", full_page=True)
    fits(page)


def fits(page: Any) -> None:
    """The page is no wider than its screen (nothing to scroll sideways)."""
    width, screen = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width <= screen, f"the page is {width} px wide on a {screen} px screen"


def test_a_person_plays_whole_games_in_the_browser(browser: Any, live_server: Any, short_ladder: Built) -> None:
    screens = Path(os.environ.get("REFEREE_SCREENS", short_ladder.root.parent))
    server = live_server(rate=3000, burst=300)
    base = server.url
    problems: list[str] = []

    page = watched(browser, 1280, problems)
    page.goto(f"{base}/signin")
    page.fill("#token", short_ladder.tokens["bob"])
    page.click("#signin-submit")
    page.wait_for_url(f"{base}/me")
    page.click("nav a[href='/play']")
    page.screenshot(path=screens / "web-human-1280-start.png", full_page=True)
    page.select_option("#opponent-1", "alice#1")
    page.select_option("#opponent-2", "carol#1")
    page.click("#play-start")
    play_game(page, screens, "1280", type_one=True)
    assert page.locator("#game-seats tbody tr").count() == 3
    assert "bob (human)" in page.inner_text("#game-seats")

    phone = watched(browser, 390, problems)
    phone.goto(f"{base}/play")
    phone.select_option("#opponent-1", "bob#1")
    phone.click("#play-start")
    play_game(phone, screens, "390", type_one=False)
    assert "guest (human)" in phone.inner_text("#game-seats")
    phone.goto(f"{base}/play")
    assert phone.locator("#human-table tbody tr").count() == 2
    phone.screenshot(path=screens / "web-human-390-list.png", full_page=True)
    fits(phone)
    assert problems == []
