"""The pages as a reader without JavaScript gets them: server-rendered from the ladder, every name and every line
of bot output escaped, the security headers on every response, and an author's own parts on its own pages only."""

from __future__ import annotations

import re
from urllib.parse import quote

from fastapi.testclient import TestClient

from referee.web.headers import CONTENT_SECURITY_POLICY
from tests.web.conftest import bearer
from tests.web.ladderdata import HOSTILE, HOSTILE_STDERR, Built

ESCAPED = "&lt;img src=x onerror=&#34;alert(1)&#34;&gt;&amp;amp;"


def pages(built: Built) -> list[str]:
    name = quote(HOSTILE, safe="")
    return [
        "/", f"/entrants/{name}", f"/entrants/{name}/versions/1", "/entrants/alice", "/blocks",
        f"/blocks/{built.real_block}", f"/games/{built.faulted_game}", "/epochs", "/signin", "/api/docs",
    ]  # fmt: skip


def test_every_page_reads_without_script_and_escapes_names(client: TestClient, built: Built) -> None:
    for url in pages(built):
        for headers in ({}, bearer(built.tokens[HOSTILE])):
            r = client.get(url, headers=headers)
            assert r.status_code == 200, url
            assert HOSTILE not in r.text, url  # never as markup
            # no inline script anywhere: every <script> has a src or is data
            for tag in re.findall(r"<script[^>]*>", r.text):
                assert "src=" in tag or 'type="application/json"' in tag, (url, tag)
            assert " style=" not in r.text and "<style" not in r.text, url
    text = client.get("/").text
    assert ESCAPED in text


def test_leaderboard_page_shows_the_standing(client: TestClient, built: Built) -> None:
    board = client.get("/api/leaderboard").json()
    text = client.get("/").text
    rows = re.findall(r'<tr data-key="([^"]+)">', text)
    assert rows[: len(board["ranked"])] == [
        r["key"].replace('"', "&#34;").replace("<", "&lt;").replace(">", "&gt;").replace("&amp;", "&amp;amp;")
        for r in board["ranked"]
    ]
    first = board["ranked"][0]
    assert f'data-f="matchpoints">{first["matchpoints"]:.3f}<' in text
    for row in board["ranked"]:  # a rank interval of one place is that place ("3", not "3–3")
        low, high = row["rank_interval"]
        shown = f'data-f="rank_interval">{low}</td>' if low == high else f'data-f="rank_interval">{low}–{high}</td>'
        assert shown in text, row
    assert f"{board['blocks']} blocks · {board['games']} games" in text


def test_entrant_page_has_versions_chart_head_to_head_and_blocks(client: TestClient, built: Built) -> None:
    text = client.get("/entrants/alice").text
    assert 'data-version="1"' in text
    assert text.count('<polyline class="line"') == 1  # one version, one rating line
    assert "blocks played" in text
    h2h = client.get("/entrants/alice").text.split('id="h2h-table"')[1].split("</table>")[0]
    assert "bob#1" in h2h and "carol#1" in h2h
    recent = client.get("/api/blocks", params={"entrant": "alice", "version": 1, "limit": 20}).json()
    shown = text.split('id="recent-blocks"')[1].split("</table>")[0]
    assert re.findall(r'data-block="(\d+)"', shown) == [str(b["id"]) for b in recent]
    carol = client.get("/entrants/carol").text
    assert "crashed in 3 of 24" not in carol  # the failed gate's reasons are carol's
    mine = client.get("/entrants/carol", headers=bearer(built.tokens["carol"])).text
    assert "crashed in 3 of 24 check games" in mine


def test_version_page_private_sections(client: TestClient, built: Built) -> None:
    url = f"/entrants/{quote(HOSTILE, safe='')}/versions/1"
    public = client.get(url).text
    assert 'id="stderr"' not in public and 'id="faults"' not in public and "illegal_move" in public
    for token in (built.tokens["alice"], built.tokens["bob"]):
        assert 'id="stderr"' not in client.get(url, headers=bearer(token)).text
    own = client.get(url, headers=bearer(built.tokens[HOSTILE])).text
    assert "&lt;script&gt;alert(&#39;stderr&#39;)&lt;/script&gt;" in own and HOSTILE_STDERR not in own
    assert 'id="fault-table"' in own and "illegal_move" in own


def test_game_page_loads_the_reports_viewer(client: TestClient, built: Built) -> None:
    text = client.get(f"/games/{built.faulted_game}").text
    assert '<script src="/static/viewer/replay.js">' in text and 'id="rp-table"' in text
    from referee.report import VIEWER_SCRIPT

    assert client.get("/static/viewer/replay.js").text == VIEWER_SCRIPT.read_text(encoding="utf-8")


def test_security_headers_on_every_kind_of_response(client: TestClient, built: Built) -> None:
    for url in ("/", "/api/leaderboard", "/static/web.css", "/nowhere", "/api/nowhere", "/api/me"):
        r = client.get(url)
        assert r.headers["content-security-policy"] == CONTENT_SECURITY_POLICY, url
        assert "script-src 'self'" in CONTENT_SECURITY_POLICY and "unsafe-inline" not in CONTENT_SECURITY_POLICY
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["x-frame-options"] == "DENY"
    assert client.get("/").headers["cache-control"] == "no-store"
    assert client.get("/static/web.css").headers["cache-control"].startswith("public")


def test_sign_in_sets_a_strict_http_only_cookie_and_signs_out(client: TestClient, built: Built) -> None:
    bad = client.post("/signin", data={"token": "lt-1-" + "x" * 43})
    assert bad.status_code == 401 and "That token is not valid" in bad.text
    assert "set-cookie" not in bad.headers
    r = client.post("/signin", data={"token": built.tokens["bob"]}, follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/me"
    cookie = r.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=strict" in cookie and "Path=/" in cookie
    page = client.get("/me")
    assert 'id="whoami">bob<' in page.text and "bob#1" in page.text
    # another site's form cannot post here
    assert client.post("/signout", headers={"Origin": "https://evil.example"}).status_code == 403
    out = client.post("/signout", follow_redirects=False)
    assert out.status_code == 303 and 'referee_token=""' in out.headers["set-cookie"]


def test_error_pages_are_one_line(client: TestClient) -> None:
    r = client.get("/entrants/nobody")
    assert r.status_code == 404
    assert "no entrant named &#39;nobody&#39;" in r.text and "Traceback" not in r.text
    assert "referee ladder add" not in r.text  # the organiser's command is the organiser's (the CLI says it)
    r = client.get("/blocks/notanumber")
    assert r.status_code == 422 and 'id="error-message">path.block_id:' in r.text


def test_a_rank_interval_of_one_place_shows_the_place() -> None:
    """ "3", not "3–3"; a wider interval keeps both ends."""
    from referee.web.templating import make_templates

    row = {"key": "a#1", "entrant": "a", "version": 1, "matchpoints": 0.5, "matchpoints_ci95": [0.4, 0.6],
           "live_mu": 25.0, "live_sigma": 1.0, "blocks": 9, "opponents": 3, "games": 27, "forfeits": 0,
           "separated_from_next": False, "submitted_at": "2026-12-01T00:00:00Z"}  # fmt: skip
    board = {"ranked": [row | {"place": 3, "rank_interval": [3, 3]}, row | {"place": 4, "rank_interval": [4, 6]}]}
    html = str(make_templates().env.get_template("_board.html").module.ranked_table(board))
    assert 'data-f="rank_interval">3</td>' in html and 'data-f="rank_interval">4–6</td>' in html


def test_a_failed_versions_page_says_where_to_look(client: TestClient, built: Built) -> None:
    """carol#2 failed its gate: no ranked game, so no 'none' and 'No faults.' as if it had played cleanly; no build
    command, so no 'None.' under Build output; its gate's stderr files are labelled as the gate's."""
    from referee.ladder import Ladder

    with Ladder.open(built.root) as ladder:
        gate = ladder.layout.gate_dir(ladder.version("carol", 2).id)
    gate.mkdir(parents=True, exist_ok=True)
    (gate / "bot-stderr-0.log").write_text("Traceback: the gate's game 0\n", encoding="utf-8")
    page = client.get("/entrants/carol/versions/2", headers=bearer(built.tokens["carol"])).text
    assert "No faults." not in page and "it failed its gate (see above)" in page
    assert "none: it has not played a ranked game (its gate failed)" in page
    assert "No build command: nothing to build." in page and "None." not in page
    assert "gate: bot-stderr-0.log" in page and "Traceback: the gate&#39;s game 0" in page
    # the entrant's page neither: its row's faults cell says it never played, not "none"
    entrant = client.get("/entrants/carol").text
    row = entrant[entrant.index('<tr data-version="2">') :].split("</tr>")[0]
    assert '<td class="faults"><span class="hint">no ranked game (gate failed)</span></td>' in row


def test_a_long_stderr_is_shown_from_a_lines_start(tmp_path) -> None:
    from referee.web.views import STDERR_TAIL, _tail

    log = tmp_path / "bot.log"
    lines = [f"line {i:06d} " + "x" * 50 for i in range(3 * STDERR_TAIL // 60)]
    log.write_text("\n".join(lines) + "\n", encoding="utf-8")
    shown = _tail(log, "ranked play")
    assert shown.truncated and shown.size == log.stat().st_size
    assert shown.text.startswith("line ") and shown.text.endswith(lines[-1] + "\n")
    assert shown.text.splitlines()[0] in lines  # a whole line, not the end of one


def test_an_entrant_page_follows_the_version_that_plays(client: TestClient, built: Built) -> None:
    """carol's newest version (#2) failed its gate; the page's head-to-head and recent blocks are those of #1,
    which plays, not 'No blocks yet'."""
    from referee.ladder import Ladder
    from referee.web import views

    with Ladder.open(built.root) as ladder:
        assert ladder.version("carol", 1).blocks > 0
        assert views.followed_version(ladder, "carol") == 1
    page = client.get("/entrants/carol").text
    h2h = page.split('id="h2h-table"')[1].split("</table>")[0]
    assert "No blocks yet" not in h2h and "data-opponent=" in h2h


def test_the_rating_chart_spans_the_whole_history() -> None:
    """A version with 1,184 blocks and a newer one after it: the x axis reaches 1,184 + 50 blocks and the newer
    line starts where it came in (the axis stopped at 300 when lines were thinned before they were placed)."""
    from referee.web.charts import rating_chart

    old = [(b, 25.0 + b / 100, 2.0) for b in range(1, 1185)]
    new = [(b, 30.0, 1.5) for b in range(1185, 1235)]
    svg = str(rating_chart("eve", {1: old, 2: new}))
    x_tick = r'class="tick" x="[^"]+" y="[^"]+" text-anchor="middle">([\d,.]+)<'
    ticks = [float(t.replace(",", "")) for t in re.findall(x_tick, svg)]
    assert max(ticks) >= 1000, ticks


def test_the_organisers_page_lists_voided_blocks_and_why(own_ladder: Built) -> None:
    from referee.ladder import BlockKind, Ladder
    from tests.web.conftest import open_client

    with Ladder.open(own_ladder.root) as ladder:
        played = ladder.store.block(own_ladder.real_block)
        block = ladder.store.create_block(played.epoch_id, BlockKind.RANKED, played.seats, lambda _: 7)
        ladder.store.void_block(block.id, "worker tcp://10.0.0.7:40123 lost at 17:40:12 UTC while it played <b>")
    client, ladder = open_client(own_ladder.root)
    with client:
        page = client.get("/me", headers=bearer(own_ladder.admin)).text
        author = client.get("/me", headers=bearer(own_ladder.tokens["bob"])).text
    ladder.close()
    voids = page.split('id="voids"')[1]
    assert f'<a href="/blocks/{block.id}">{block.id}</a></td><td>1</td>' in voids
    assert "lost at 17:40:12 UTC while it played &lt;b&gt;" in voids
    assert 'id="voids"' not in author  # the organiser's alone


def test_me_warns_an_author_none_of_whose_versions_plays(own_ladder: Built) -> None:
    """A newcomer retired their newest version and /me still said "active" with nothing playing."""
    from referee.ladder import Ladder
    from tests.web.conftest import open_client

    client, ladder = open_client(own_ladder.root)
    with client:
        before = client.get("/me", headers=bearer(own_ladder.tokens["bob"])).text
        ladder.retire("bob", 1)
        after = client.get("/me", headers=bearer(own_ladder.tokens["bob"])).text
    ladder.close()
    assert 'id="none-playing"' not in before
    assert 'id="none-playing"' in after and "Make active" in after
    with Ladder.open(own_ladder.root) as check:
        assert check.version("bob", 1).state.value == "retired"
