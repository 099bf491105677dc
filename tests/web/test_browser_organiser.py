"""The organiser's page and an author's rollback in a real browser (chromium via Playwright), at 1,280 and 390 px:
suspend, lift and retire from the page's forms, then the author makes its replaced version active again from the
version page's button; no page breaks the Content-Security-Policy (``open_page`` fails on any violation), and no
page is wider than the window. Screenshots go to ``$REFEREE_SCREENS`` as web-organiser-*.png and web-rollback-*.png.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from referee.ladder import EntrantState, Ladder, VersionState
from tests.web.ladderdata import Built
from tests.web.test_browser import open_page, screens, sign_in  # noqa: F401 (fixtures)
from tests.web.test_organiser import replace_alice


def _fits(page: Any) -> bool:
    return bool(page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth + 1"))


def test_the_organiser_acts_and_an_author_rolls_back_at_both_widths(
    open_page: Any,  # noqa: F811
    live_server: Any,
    own_ladder: Built,
    screens: Path,  # noqa: F811
) -> None:
    replace_alice(own_ladder.root)
    base = live_server().url
    for width, retire, back_to in ((1280, "carol", 1), (390, "bob", 2)):
        page = open_page(f"{base}/")
        page.set_viewport_size({"width": width, "height": 900})
        sign_in(page, base, own_ladder.admin)
        page.goto(f"{base}/admin")
        assert page.locator("#gate-queue").count() == 1 and _fits(page), width
        page.screenshot(path=screens / f"web-organiser-{width}.png", full_page=True)
        bob = page.locator('tr[data-entrant="bob"]')
        bob.locator("input[name=reason]").fill(f"checking its logs ({width})")
        bob.locator("button.suspend").click()
        page.wait_for_url(f"{base}/admin")
        assert "suspended" in page.locator('tr[data-entrant="bob"]').inner_text()
        with Ladder.open(own_ladder.root) as ladder:
            assert ladder.entrant("bob").state == EntrantState.SUSPENDED
        page.locator('tr[data-entrant="bob"] button.lift').click()
        page.wait_for_url(f"{base}/admin")
        page.locator(f'tr[data-entrant="{retire}"] button.retire-version').first.click()
        page.wait_for_url(f"{base}/admin")
        page.screenshot(path=screens / f"web-organiser-acted-{width}.png", full_page=True)
        page.locator("#organiser").screenshot(path=screens / f"web-organiser-entrants-{width}.png")
        with Ladder.open(own_ladder.root) as ladder:
            assert ladder.entrant("bob").state == EntrantState.ACTIVE
            assert ladder.version(retire, 1).state == VersionState.RETIRED

        author = open_page(f"{base}/")
        author.set_viewport_size({"width": width, "height": 900})
        sign_in(author, base, own_ladder.tokens["alice"])
        author.goto(f"{base}/me")
        assert _fits(author)
        author.goto(f"{base}/entrants/alice/versions/{back_to}")
        assert _fits(author)
        author.screenshot(path=screens / f"web-rollback-{width}.png", full_page=True)
        author.click("#activate")
        author.wait_for_url(f"{base}/entrants/alice/versions/{back_to}")
        assert author.locator("#activate").count() == 0  # active now: nothing to offer
        with Ladder.open(own_ladder.root) as ladder:
            assert ladder.version("alice", back_to).active
            assert ladder.version("alice", 3 - back_to).reason == f"replaced by version {back_to}"
