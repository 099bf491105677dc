"""``referee ladder serve``'s one process (the scheduler, its gate and lanes, and the web server in one trio
nursery) in a real browser: an author signs in, uploads a bot, watches it pass the gate and its placement and take
its place on the leaderboard, which then updates itself while the ladder plays.

The entrants are the ladder tests' in-process fakes (a bot file names its strength; games are draws of scores), so
the scheduler, the gate's flow, the matchmaker, the store and the web are all real and the test takes seconds.
"""

from __future__ import annotations

import os
import time
from functools import partial
from pathlib import Path
from typing import Any

from referee.ladder import Ladder
from referee.ladder.serve import ServeOptions
from referee.web import WebSettings, serve_with_web
from tests.ladder.fakes import Fakes, bot_text
from tests.web.conftest import InThread


def until(check: Any, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "the page did not change in time"
        time.sleep(0.1)


def test_an_author_watches_a_real_serve_place_its_bot(browser: Any, tmp_path: Path) -> None:
    made, _ = Ladder.init(tmp_path / "ladder")
    made.layout.config.write_text("[matchmaking]\nplacement_blocks = 3\n[serve]\njobs = 2\n", encoding="utf-8")
    tokens = {}
    for i, name in enumerate(["ann", "bob", "cat"]):
        _, tokens[name] = made.add_entrant(name)
        source = tmp_path / f"{name}.py"
        source.write_text(bot_text(strength=i * 3.0), encoding="utf-8")
        made.submit(name, source)
    _, tokens["dan"] = made.add_entrant("dan")
    made.close()
    fakes = Fakes(delay=0.02)  # a game takes a little while, so the leaderboard moves while the page is open
    options = ServeOptions(announce=lambda line: None, poll=0.05, play=fakes.play, factory=fakes.factory,
                           check=fakes.check, seed=3)  # fmt: skip
    serve = partial(serve_with_web, tmp_path / "ladder", options, "127.0.0.1:0", settings=WebSettings(poll_seconds=0.5))
    bot = tmp_path / "dan-bot.py"
    bot.write_text(bot_text(strength=12.0), encoding="utf-8")  # the strongest of the field
    screens = Path(os.environ.get("REFEREE_SCREENS", tmp_path))
    with InThread(serve) as server:
        base = server.url
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        page = context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.goto(f"{base}/signin")
        page.fill("#token", tokens["dan"])
        page.click("#signin-submit")
        page.wait_for_url(f"{base}/me")
        page.goto(f"{base}/submit")
        page.set_input_files("#file", str(bot))
        page.click("#submit-button")
        page.wait_for_url(f"{base}/entrants/dan/versions/1")
        # the page follows it (reloading at each new state) through the gate and the placement to its rank
        until(lambda: page.inner_text("#version-state").strip() == "ranked", timeout=60)
        assert "Passed" in page.inner_text("#gate-result")
        page.screenshot(path=screens / "web-serve-version-ranked.png", full_page=True)
        board = context.new_page()
        board.goto(f"{base}/")
        board.evaluate("window.stillTheSamePage = true")
        row = "#leaderboard tr[data-key='dan#1']"
        # the leaderboard is recomputed off the request path: the new rank shows within a poll or two, no reload
        until(lambda: board.locator(row).count() == 1, timeout=60)
        blocks = int(board.inner_text(f"{row} td[data-f='blocks']"))
        until(lambda: int(board.inner_text(f"{row} td[data-f='blocks']")) > blocks)
        assert board.evaluate("window.stillTheSamePage") is True
        until(lambda: board.inner_text("#leaderboard tbody tr:first-child td.name") == "dan", timeout=60)
        board.screenshot(path=screens / "web-serve-leaderboard.png", full_page=True)
        context.close()
        assert errors == []
