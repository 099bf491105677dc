"""Cross-site request forgery from a sibling site: a page on another origin of the same site (a sibling subdomain;
here another port of 127.0.0.1, which browsers count as the same site and send the SameSite=Strict cookie to) must
not submit a version, sign out or sign in with the victim's cookie, through the API or the forms. Scripts that hold
a Bearer token (``referee ladder submit --server``) and the site's own pages keep working."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import httpx2
import pytest

from tests.web.conftest import bearer
from tests.web.ladderdata import Built
from tests.web.test_hostile import GREEDY, stored

ELSEWHERE = (
    {"Origin": "null"},  # a sandboxed frame, or a redirect from elsewhere
    {"Origin": "http://evil.example"},
    {"Sec-Fetch-Site": "cross-site"},
    {"Sec-Fetch-Site": "same-site", "Origin": "http://sibling.example"},  # a sibling subdomain, as chromium sends it
    {"Sec-Fetch-Site": "same-site"},
)


def test_cookie_posts_from_another_origin_are_refused_and_bearer_scripts_are_not(
    own_ladder: Built, live_server
) -> None:
    server = live_server()
    before = stored(own_ladder.root)
    cookie = {"referee_token": own_ladder.tokens["alice"]}
    with httpx2.Client(base_url=server.url, cookies=cookie, timeout=30) as browser:
        for headers in ELSEWHERE:
            r = browser.post("/api/versions", headers=headers, files={"file": ("csrf.py", GREEDY + b"# csrf\n")})
            assert r.status_code == 403, (headers, r.text)
            assert "may not change anything here" in r.json()["error"] and r.json()["status"] == 403
            r = browser.post("/submit", headers=headers, files={"file": ("csrf.py", GREEDY + b"# csrf\n")})
            assert r.status_code == 403 and "may not change anything here" in r.text, headers
            assert browser.post("/signout", headers=headers).status_code == 403
            # nor may another origin sign the browser in as someone else (login CSRF)
            r = browser.post("/signin", headers=headers, data={"token": own_ladder.tokens["bob"]})
            assert r.status_code == 403 and "set-cookie" not in r.headers
        assert stored(own_ladder.root) == before
        # the site's own page posts with its own origin
        own = {"Origin": server.url, "Sec-Fetch-Site": "same-origin"}
        r = browser.post("/api/versions", headers=own, files={"file": ("mine.py", GREEDY + b"# mine\n")})
        assert r.status_code == 201, r.text
    # a script with the token in Authorization, whatever else it sends: its token says who it is, not a cookie
    with httpx2.Client(base_url=server.url, timeout=30) as script:
        r = script.post(
            "/api/versions", headers=bearer(own_ladder.tokens["alice"]), files={"file": ("ci.py", GREEDY + b"# ci\n")}
        )
        assert r.status_code == 201, r.text


class _Attacker(BaseHTTPRequestHandler):
    """The sibling site: one page that, once opened, posts a bot to the ladder with the visitor's cookie (a fetch
    without CORS, as a hostile page would: multipart needs no preflight; the browser sends it, then hides the
    answer from the page) and then submits a sign-out form."""

    ladder = ""

    def do_GET(self) -> None:
        page = f"""<!doctype html><html><body>
<form id="out" method="post" action="{self.ladder}/signout"><button>go</button></form>
<script>
const form = new FormData();
form.append("file", new Blob(["import sys\\n# from the sibling site\\n"]), "csrf.py");
fetch("{self.ladder}/api/versions", {{method: "POST", body: form, mode: "no-cors", credentials: "include"}})
  .finally(() => document.getElementById("out").submit());
</script></body></html>""".encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(page)))
        self.end_headers()
        self.wfile.write(page)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def attacker() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Attacker)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def test_a_sibling_sites_page_cannot_post_with_the_cookie_in_chromium(
    browser: Any, own_ladder: Built, live_server, attacker: ThreadingHTTPServer
) -> None:
    server = live_server()
    _Attacker.ladder = server.url
    context = browser.new_context()
    try:
        page = context.new_page()
        page.goto(f"{server.url}/signin")
        page.fill("#token", own_ladder.tokens["alice"])
        page.click("#signin-submit")
        page.wait_for_url(f"{server.url}/me")
        before = stored(own_ladder.root)
        sent: list[tuple[str, str | None]] = []
        page.on(
            "request",
            lambda r: r.url.startswith(server.url) and "/static/" not in r.url
            and sent.append((r.url.removeprefix(server.url), r.header_value("cookie"))),
        )  # fmt: skip
        page.goto(f"http://127.0.0.1:{attacker.server_address[1]}/")
        page.wait_for_url(f"{server.url}/signout")
        page.wait_for_load_state()
        # chromium sent both, the form with the cookie (the same site: the fetch's cookie is added below what the
        # page's events show), and the ladder refused both
        assert [url for url, _ in sent] == ["/api/versions", "/signout"], sent
        assert "referee_token=" in (sent[1][1] or ""), sent
        assert stored(own_ladder.root) == before  # no version from the sibling
        assert "may not change anything here" in page.inner_text("body")
        # still signed in: the sign-out from the sibling did not happen
        page.goto(f"{server.url}/me")
        assert page.url == f"{server.url}/me"
    finally:
        context.close()
