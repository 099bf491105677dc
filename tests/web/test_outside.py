"""Attacks from outside, as a hostile participant or client would make them with the docs in hand: a deal read while
it is still played, a renewed token used again, sign-in floods, form posts from other sites, numbers too large,
bodies sent slowly, names that are not Latin-1, exports in parallel. Each is refused with a clear status and one
line, and nothing stored changes."""

from __future__ import annotations

import random
import socket
import threading
import time
from urllib.parse import quote

from fastapi.testclient import TestClient

from referee.ladder import BlockKind, Ladder
from referee.web import WebSettings
from tests.web.conftest import bearer, count_token_checks
from tests.web.ladderdata import Built, commit_simulated
from tests.web.test_hostile import GREEDY, member, stored, tar_gz

#: A seed no other block of the test ladder has (it would give every hand of the deal).
SEED = 8_106_224_019_517_803_113


def test_a_deal_in_play_is_never_shown(own_ladder: Built, make_client) -> None:
    with Ladder.open(own_ladder.root) as ladder:
        store = ladder.store
        epoch = store.epochs()[0].id
        vids = [own_ladder.versions[n] for n in ("alice", "bob", "carol")]
        playing = store.create_block(epoch, BlockKind.RANKED, vids, lambda _: SEED)
        voided = store.create_block(epoch, BlockKind.RANKED, vids, lambda _: SEED + 1)
        store.void_block(voided.id, "the referee stopped")  # played again later, from the same deal
        done = commit_simulated(store, epoch, vids, random.Random(1))
    client: TestClient = make_client(own_ladder.root)
    for url in (
        "/api/blocks", f"/api/blocks/{playing.id}", f"/api/blocks/{voided.id}", "/blocks", f"/blocks/{playing.id}",
        f"/blocks/{voided.id}", "/entrants/alice", "/api/blocks?entrant=alice&version=1", "/api/export.jsonl",
    ):  # fmt: skip
        r = client.get(url)
        assert r.status_code == 200, url
        assert str(SEED) not in r.text and str(SEED + 1) not in r.text, url
    listed = {b["id"]: b for b in client.get("/api/blocks").json()}
    assert listed[playing.id]["seed"] is None and listed[voided.id]["seed"] is None
    assert listed[done]["seed"] is not None  # a finished block's deal is public, as its game logs are
    assert "deal seed shown once the block is done" in client.get(f"/blocks/{playing.id}").text


def test_a_renewed_token_stops_working_at_once(own_ladder: Built, make_client) -> None:
    client: TestClient = make_client(own_ladder.root)
    old, admin = own_ladder.tokens["bob"], own_ladder.admin
    assert client.get("/api/me", headers=bearer(old)).json()["name"] == "bob"
    assert client.get("/api/me", headers=bearer(admin)).json()["admin"] is True
    client.cookies.set("referee_token", old)
    assert 'id="signin-link"' not in client.get("/").text
    # the organiser renews both from a shell (another process: its own Ladder)
    with Ladder.open(own_ladder.root) as shell:
        new = shell.new_entrant_token("bob")
        new_admin = shell.new_admin_token()
    assert client.get("/api/me", headers=bearer(old)).status_code == 401
    assert client.get("/api/me", headers=bearer(admin)).status_code == 401
    assert 'id="signin-link"' in client.get("/").text  # the old cookie no longer signs in
    client.cookies.clear()
    assert client.get("/api/me", headers=bearer(new)).json()["name"] == "bob"
    assert client.get("/api/me", headers=bearer(new_admin)).json()["admin"] is True


def test_sign_in_floods_cost_few_token_checks(own_ladder: Built, make_client) -> None:
    client: TestClient = make_client(own_ladder.root, WebSettings(rate=40))
    checked = count_token_checks(client)
    codes = [client.post("/signin", data={"token": f"lt-1-{i:043d}"}).status_code for i in range(8)]
    assert codes[:4] == [401] * 4 and set(codes[4:]) == {429}, codes
    assert len(checked) == 4  # a tenth of the rate, as for Bearer tokens: each costs a scrypt
    refused = client.post("/signin", data={"token": "lt-1-" + "9" * 43})
    assert "too many requests" in refused.text and int(refused.headers["retry-after"]) >= 1


def test_forms_from_other_sites_are_refused(own_ladder: Built, make_client) -> None:
    client: TestClient = make_client(own_ladder.root)
    client.cookies.set("referee_token", own_ladder.tokens["alice"])
    before = stored(own_ladder.root)
    for headers in (
        {"Origin": "null"},  # a sandboxed frame on another site
        {"Origin": "http://evil.example"},
        {"Sec-Fetch-Site": "cross-site"},
        {"Sec-Fetch-Site": "same-site"},  # a sibling subdomain
    ):
        r = client.post("/submit", headers=headers, files={"file": ("csrf.py", GREEDY + b"# csrf\n")})
        assert r.status_code == 403, headers
        assert "may not change anything here" in r.text
        assert client.post("/signout", headers=headers).status_code == 403
    assert stored(own_ladder.root) == before
    # the site's own form (a browser says same-origin) still works
    r = client.post(
        "/submit", headers={"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"},
        files={"file": ("mine.py", GREEDY + b"# mine\n")}, follow_redirects=False,
    )  # fmt: skip
    assert r.status_code == 303, r.text


def test_numbers_too_large_are_422(client: TestClient) -> None:
    huge = "9" * 30
    for url in (
        f"/api/blocks?before={huge}", f"/api/blocks/{huge}", f"/blocks/{huge}", f"/blocks?before={huge}",
        f"/api/entrants/alice/versions/{huge}", f"/api/blocks?entrant=alice&version={huge}",
    ):  # fmt: skip
        r = client.get(url)
        assert r.status_code == 422, (url, r.status_code, r.text[:200])
        assert "less than or equal to 9223372036854775807" in r.text, url


def test_a_name_outside_latin_1_submits(own_ladder: Built, make_client) -> None:
    with Ladder.open(own_ladder.root) as ladder:
        _, token = ladder.add_entrant("Łukasz 名")
    client: TestClient = make_client(own_ladder.root)
    r = client.post("/api/versions", headers=bearer(token), files={"file": ("bot.py", GREEDY)})
    assert r.status_code == 201, r.text
    assert r.headers["location"] == f"/api/entrants/{quote('Łukasz 名', safe='')}/versions/1"
    assert client.get(r.headers["location"]).json()["key"] == "Łukasz 名#1"
    client.cookies.set("referee_token", token)
    page = client.post("/submit", files={"file": ("bot2.py", GREEDY + b"# 2\n")}, follow_redirects=False)
    assert page.status_code == 303 and page.headers["location"].endswith("/versions/2")


def test_an_archive_of_a_folders_contents_is_taken(own_ladder: Built, make_client) -> None:
    # what ``tar -czf bot.tar.gz .`` writes: the folder itself first, as "./"
    archive = tar_gz(
        [(member("./", b"5"), None), (member("./bot.toml"), b'command = "python main.py"\n'),
         (member("./main.py"), GREEDY + b"# dot\n")]
    )  # fmt: skip
    client: TestClient = make_client(own_ladder.root)
    alice = bearer(own_ladder.tokens["alice"])
    r = client.post("/api/versions", headers=alice, files={"file": ("bot.tar.gz", archive)})
    assert r.status_code == 201, r.text
    assert r.json()["command"] == ["python", "main.py"]


def _post_slowly(url: str, path: str, declared: int, wait: float) -> bytes:
    """Send a small form's headers and the start of its body, then nothing: the server's answer."""
    host, port = url.removeprefix("http://").split(":")
    head = (
        f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\nContent-Type: application/x-www-form-urlencoded\r\n"
        f"Content-Length: {declared}\r\n\r\ntoken="
    ).encode()
    with socket.create_connection((host, int(port)), timeout=wait + 20) as s:
        s.sendall(head)
        started = time.monotonic()
        answer = b""
        while time.monotonic() - started < wait + 15:
            chunk = s.recv(65536)
            if not chunk:
                break
            answer += chunk
            if b"\r\n\r\n" in answer and answer.rstrip().endswith((b"}", b"s")):
                break
    return answer


def test_a_small_body_sent_slowly_is_cut(own_ladder: Built, live_server) -> None:
    server = live_server(upload_idle=0.5, upload_total=1.5)
    answer = _post_slowly(server.url, "/signin", 500, 1.0)
    assert answer.startswith(b"HTTP/1.1 408"), answer[:200]
    assert b"request body too slow on /signin" in answer


def test_exports_at_once_are_capped(own_ladder: Built, live_server, monkeypatch) -> None:
    import httpx2

    from referee.web import views

    go_on, real = threading.Event(), views.export_lines

    def slow_export(ladder):  # the export of a large ladder: it takes a while
        yield '{"game": "first"}\n'
        go_on.wait(30)
        yield from real(ladder)

    monkeypatch.setattr(views, "export_lines", slow_export)
    server = live_server()
    url = f"{server.url}/api/export.jsonl"
    with httpx2.Client(timeout=30) as one, httpx2.Client(timeout=30) as other:
        with one.stream("GET", url) as first:
            assert first.status_code == 200
            again = other.get(url)  # the same caller (its address) while its export runs
            assert again.status_code == 429 and "yours is still being sent" in again.json()["error"]
            assert int(again.headers["retry-after"]) >= 1
            go_on.set()
            lines = list(first.iter_lines())
            assert lines[0] == '{"game": "first"}' and len(lines) > 1
        deadline = time.monotonic() + 10  # the server releases the slot just after the last byte is sent
        while server.app.state.web.exports.held() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert other.get(url).status_code == 200  # the slot is free once it ended
    deadline = time.monotonic() + 10
    while server.app.state.web.exports.held() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.app.state.web.exports.held() == 0
