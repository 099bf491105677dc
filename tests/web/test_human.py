"""The human seat's routes in-process (FastAPI's test client on trio), against real sample-bot versions run as
ranked play runs them: who may start a game, the bounds on games at once, the secret that keeps a game to its
person, forms from another origin refused, a whole game played from the listed moves, and no other seat's cards in
anything the person's browser is sent while the game is played."""

from __future__ import annotations

import html
import json
import os
import re
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from referee.report import read_game_log
from referee.runner import Player
from referee.web import WebSettings
from tests.web.conftest import open_client
from tests.web.ladderdata import Built

_AT = re.compile(r'name="at" value="(\d+)"')
_MOVE = re.compile(r'data-move="([^"]+)"')
_HAND = re.compile(r'<span id="hand" class="hand">(.*?)</span></p>', re.S)
#: A game's moves come quicker than a person's (the rate limit counts each page and each post).
FAST = WebSettings(rate=6000, burst=600)
_CARD = re.compile(r'<span class="card">(\d+)</span>')


def configure(root: Path, **values: Any) -> None:
    """Set keys of ``[human]`` in the ladder's ``ladder.toml``."""
    path = root / "ladder.toml"
    text = path.read_text(encoding="utf-8")
    for key, value in values.items():
        shown = str(value).lower() if isinstance(value, bool) else str(value)
        text, n = re.subn(rf"(?m)^{key} = \S+", f"{key} = {shown}", text)
        assert n == 1, key
    path.write_text(text, encoding="utf-8")


def sign_in(client: TestClient, token: str) -> None:
    client.cookies.set("referee_token", token)


def start(client: TestClient, *opponents: str) -> Any:
    return client.post("/play", data={"opponent": list(opponents)}, follow_redirects=False)


def play_out(client: TestClient, game_url: str, seen: list[str], limit: int = 400) -> str:
    """Play the game at ``game_url`` to its end from its pages: the first listed (cheapest) play at each turn (else
    drop), the highest cards at each discard; every page and answer is appended to ``seen``. The last page's text."""
    page = client.get(game_url)
    for _ in range(limit):
        seen.append(page.text)
        if 'id="human-summary"' in page.text:
            return page.text
        at = _AT.search(page.text)
        if at is None:  # the bots are playing: the page reloads itself
            page = client.get(game_url)
            continue
        if 'id="discard-form"' in page.text:
            hand = [int(c) for c in _CARD.findall(_HAND.search(page.text).group(1))]  # type: ignore[union-attr]
            need = int(re.search(r"Discard (\d+) cards", page.text).group(1))  # type: ignore[union-attr]
            data: dict[str, Any] = {"at": at.group(1), "card": sorted(c for c in hand if c != 1)[-need:]}
        else:
            moves = [html.unescape(m) for m in _MOVE.findall(page.text)]
            data = {"at": at.group(1), "move": next((m for m in moves if m[0].isdigit()), "drop")}
        answer = client.post(f"{game_url}/move", data=data, follow_redirects=False)
        seen.append(answer.text)
        assert answer.status_code == 303, answer.text
        page = client.get(game_url)
    raise AssertionError(f"the game did not end: {page.text[-3000:]}")


def asked(client: TestClient, url: str) -> str:
    """The game's page once the person is asked something (the bots have started)."""
    deadline = time.monotonic() + 30
    while True:
        page = client.get(url)
        if _AT.search(page.text) is not None:
            return page.text
        assert time.monotonic() < deadline, page.text
        time.sleep(0.02)


def test_a_person_plays_a_whole_game_and_sees_no_other_hand(own_ladder: Built, make_client: Any) -> None:
    client = make_client(own_ladder.root, FAST)
    sign_in(client, own_ladder.tokens["bob"])
    page = client.get("/play")
    assert page.status_code == 200 and 'id="play-form"' in page.text
    started = start(client, "alice#1", "carol#1")
    assert started.status_code == 303, started.text
    url = started.headers["location"]
    game_id = url.rsplit("/", 1)[1]
    seen: list[str] = []
    # while it is played, no one else sees it, not even the organiser, and its replay is nobody's
    secret = client.app.state.web.humans.live[game_id].secret  # type: ignore[attr-defined]
    for token in (None, own_ladder.tokens["alice"], own_ladder.admin):
        client.cookies.clear()
        if token:
            sign_in(client, token)
        refused = client.get(url)
        assert refused.status_code == 403 and "played by someone else" in refused.text
        assert client.post(f"{url}/move", data={"at": "1", "move": "pass"}).status_code == 403
        assert client.post(f"{url}/leave").status_code == 403
        assert client.get(f"/api/play/{game_id}/replay").status_code == 404
        seen.append(refused.text)
    client.cookies.clear()
    sign_in(client, own_ladder.tokens["bob"])
    client.cookies.set("referee_seat", secret, path=url)
    assert client.get(f"/api/play/{game_id}/replay").status_code == 404  # the person's own too: it holds every hand
    last = play_out(client, url, seen)
    assert "over" in last and "bob (human)" in last
    # once over, it is anyone's to replay, marked unranked
    client.cookies.clear()
    replay = client.get(f"/api/play/{game_id}/replay").json()
    assert replay["names"] == ["bob (human)", "alice#1", "carol#1"]
    assert "unranked" in client.get(url).text
    assert game_id in client.get("/play").text
    # nothing the person was sent while it was played holds another seat's hand, or the deal's seed
    logged = read_game_log(own_ladder.root / "games" / "human" / f"{game_id}.jsonl")
    assert logged.seed is not None
    for round_deal in logged.deal:
        for hand in round_deal[1:]:
            cards = sorted(hand)
            shown = [
                "".join(f'<span class="card">{c}</span> ' for c in cards),
                " ".join(map(str, cards)),
                json.dumps(cards),
                json.dumps(cards, separators=(",", ":")),
            ]
            for text in seen:
                assert not any(s in text for s in shown)
    assert not any(str(logged.seed) in text for text in seen)
    # the standing knows nothing of it
    assert game_id not in client.get("/api/leaderboard").text


def test_who_may_play_and_how_many_at_once(own_ladder: Built, make_client: Any) -> None:
    client = make_client(own_ladder.root)
    refused = start(client, "alice#1")
    assert refused.status_code == 401 and "sign in to play" in refused.text
    assert "sign in to play" in client.get("/play").text
    sign_in(client, own_ladder.tokens["bob"])
    assert start(client, "nobody#1").status_code == 409
    five = start(client, "alice#1", "alice#1", "alice#1", "alice#1")
    assert five.status_code == 409 and "opponents" in five.text
    games = client.app.state.web.humans  # type: ignore[attr-defined]
    made: list[Player] = []
    games.factory = lambda *args: made.append(Player(*args)) or made[-1]
    first = start(client, "alice#1")
    assert first.status_code == 303
    url = first.headers["location"]
    asked(client, url)
    pids = [p.pid for p in made]
    assert len(pids) == 1 and pids[0] is not None
    # the bot runs as ranked play runs it: the ladder's sandbox, limits and move time, the ladder's files hidden
    # (the human games' logs among them), in its version's folder
    config, ladder = made[0].config, client.app.state.web.ladder.ladder  # type: ignore[attr-defined]
    settings = ladder.config.bot_settings()
    assert (config.sandbox, config.limits, config.move_time) == (settings.sandbox, settings.limits, settings.move_time)
    assert str(ladder.layout.games) in config.hidden and str(ladder.layout.db) in config.hidden
    assert made[0].spec.cwd == ladder.version_folder(ladder.version("alice", 1))
    secret = games.live[url.rsplit("/", 1)[1]].secret
    again = start(client, "carol#1")
    assert again.status_code == 429 and "at most 1 at once" in again.text
    client.cookies.clear()
    sign_in(client, own_ladder.tokens["carol"])
    assert start(client, "alice#1").status_code == 303
    client.cookies.clear()
    sign_in(client, own_ladder.tokens["alice"])
    full = start(client, "bob#1")
    assert full.status_code == 503 and "at once" in full.text and full.headers["retry-after"] == "60"
    # leaving ends the game at once: its bots are ended and a seat is free again
    client.cookies.clear()
    sign_in(client, own_ladder.tokens["bob"])
    client.cookies.set("referee_seat", secret, path=url)
    assert client.post(f"{url}/leave", follow_redirects=False).status_code == 303
    assert url.rsplit("/", 1)[1] not in games.live
    for pid in pids:
        with pytest.raises(ProcessLookupError):
            os.kill(pid, 0)  # the bot's process is gone
    assert "abandoned: the person left the game" in client.get(url).text
    client.cookies.clear()
    sign_in(client, own_ladder.tokens["alice"])
    assert start(client, "bob#1").status_code == 303


def test_signed_out_people_play_when_the_organiser_allows_it(own_ladder: Built, make_client: Any) -> None:
    configure(own_ladder.root, anyone=True, idle=1)
    client = make_client(own_ladder.root)
    started = start(client, "alice#1")
    assert started.status_code == 303
    url = started.headers["location"]
    page = client.get(url)
    assert "guest (human)" in page.text
    # no move for idle seconds: the game is abandoned, its bots ended
    games = client.app.state.web.humans  # type: ignore[attr-defined]
    game = games.live[url.rsplit("/", 1)[1]]
    deadline = time.monotonic() + 20
    while not game.ended.is_set():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert "abandoned: no move for 1 s" in client.get(url).text


def test_a_form_from_another_origin_is_refused(own_ladder: Built, make_client: Any) -> None:
    client = make_client(own_ladder.root)
    sign_in(client, own_ladder.tokens["bob"])
    forged = client.post(
        "/play",
        data={"opponent": ["alice#1"]},
        headers={"Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"},
    )
    assert forged.status_code == 403
    assert not client.app.state.web.humans.live  # type: ignore[attr-defined]


def test_a_wrong_move_is_explained_and_the_question_stays_open(own_ladder: Built, make_client: Any) -> None:
    client = make_client(own_ladder.root)
    sign_in(client, own_ladder.tokens["bob"])
    url = start(client, "alice#1").headers["location"]
    at = _AT.search(asked(client, url)).group(1)  # type: ignore[union-attr]
    wrong = client.post(f"{url}/move", data={"at": at, "card": ["1", "2", "3"]})
    assert wrong.status_code == 422 and "the 1 may not be discarded" in wrong.text
    stale = client.post(f"{url}/move", data={"at": str(int(at) + 5), "move": "pass"})
    assert stale.status_code == 422 and "no longer open" in stale.text
    hand = [int(c) for c in _CARD.findall(_HAND.search(wrong.text).group(1))]  # type: ignore[union-attr]
    discard = sorted(c for c in hand if c != 1)[-3:]
    assert client.post(f"{url}/move", data={"at": at, "card": discard}, follow_redirects=False).status_code == 303
    page = asked(client, url)
    at = _AT.search(page).group(1)  # type: ignore[union-attr]
    # at a turn: a typed move that is not legal gets the engine's reason; the short list and every legal move
    typed = client.post(f"{url}/move", data={"at": at, "typed": "9x1+9"})  # 9 bonus chips: 3 are dealt
    assert typed.status_code == 422 and "9x1+9 is not legal: " in typed.text
    unreadable = client.post(f"{url}/move", data={"at": at, "typed": "seven"})
    assert unreadable.status_code == 422 and "cannot read 'seven'" in html.unescape(unreadable.text)
    every = _MOVE.findall(client.get(f"{url}?every=true").text)
    assert set(_MOVE.findall(page)) <= set(every)
    assert client.post(f"{url}/move", data={"at": at, "typed": every[-1]}, follow_redirects=False).status_code == 303
    client.post(f"{url}/leave")


def test_a_stopping_server_abandons_its_games_and_ends_their_bots(own_ladder: Built) -> None:
    client, ladder = open_client(own_ladder.root)
    try:
        with client:
            sign_in(client, own_ladder.tokens["bob"])
            games = client.app.state.web.humans  # type: ignore[attr-defined]
            made: list[Player] = []
            games.factory = lambda *args: made.append(Player(*args)) or made[-1]
            url = start(client, "alice#1", "carol#1").headers["location"]
            asked(client, url)
            pids = [p.pid for p in made]
        # the app's lifespan is over: the game was abandoned, its bots ended, its summary kept
        for pid in pids:
            assert pid is not None
            with pytest.raises(ProcessLookupError):
                os.kill(pid, 0)
        summary = json.loads((own_ladder.root / "games" / "human" / f"{url.rsplit('/', 1)[1]}.json").read_text())
        assert (summary["state"], summary["reason"]) == ("abandoned", "the server stopped")
    finally:
        ladder.close()
