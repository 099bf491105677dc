"""The organiser's page (``/admin``) and its actions, an author's rollback from the web and the API, and an author's
notices on ``/me``: who may do what, and a form posted from another origin changes nothing."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from referee.cli.app import main
from referee.ladder import EntrantState, Ladder, VersionState
from referee.ladder.gate import Gatekeeper
from referee.ladder.notices import NoticeKind, notices_of
from tests.web.conftest import bearer, open_client
from tests.web.ladderdata import HOSTILE, ROOT, Built

#: What the site's own pages send with a form (``origin.SameOrigin``).
OWN = {"Origin": "http://testserver", "Sec-Fetch-Site": "same-origin"}


def replace_alice(root: Path) -> None:
    """alice#2 passes its gate and is admitted as the gate admits one: alice#1 is retired, "replaced by version 2"."""
    with Ladder.open(root) as ladder:
        v2 = ladder.submit("alice", ROOT / "sample_bots" / "heuristic.py")
        ladder.store.start_gate(v2.id)
        ladder.store.finish_gate(v2.id, passed=True, reasons=[], report=None, build_log=None)
        ladder.store.move_version(v2.id, VersionState.GATING)
        Gatekeeper(ladder, lambda line: None, lambda: None)._admit(ladder.store.version(v2.id))  # type: ignore[arg-type]
        assert ladder.version("alice", 1).reason == "replaced by version 2"


def test_the_organisers_page_shows_what_needs_an_eye(own_ladder: Built) -> None:
    with Ladder.open(own_ladder.root) as ladder:
        waiting = ladder.submit("bob", ROOT / "sample_bots" / "greedy.py")
    client, ladder = open_client(own_ladder.root)
    with client:
        page = client.get("/admin", headers=bearer(own_ladder.admin))
        me = client.get("/me", headers=bearer(own_ladder.admin))
    ladder.close()
    assert page.status_code == 200 and me.status_code == 200 and 'id="gate-queue"' in me.text
    html = page.text
    queue = html.split('id="gate-queue"')[1].split("</section>")[0]
    assert f"bob#{waiting.number}" in queue and "submitted" in queue
    troubled = html.split('id="troubled"')[1].split("</section>")[0]
    assert "carol#2" in troubled and "crashed in 3 of 24 check games" in troubled
    # the hostile entrant forfeited in the real block: a count over blocks, with markup shown as text
    faults = html.split('id="entrant-faults"')[1].split("</table>")[0]
    row = next(r for r in faults.split("<tr>") if "&lt;img" in r)
    found = re.search(r"(\d+) of (\d+) blocks", row)
    assert found and int(found[1]) >= 1 and int(found[2]) > int(found[1]), row
    assert HOSTILE not in html  # never as markup
    resources = html.split('id="resource-table"')[1].split("</table>")[0]
    assert re.search(r"ladder folder</th><td>[\d.]+ (KiB|MiB) in \d+ files", resources), resources
    assert re.search(r"this web server \(pid \d+\)</th><td>[\d.]+ MiB resident, peak [\d.]+ MiB", resources)
    assert "<td>not running</td>" in resources
    assert 'id="admin-epochs"' in html and 'id="lost-workers"' in html


def test_only_the_organiser_opens_it_or_acts_and_never_from_another_origin(own_ladder: Built) -> None:
    client, ladder = open_client(own_ladder.root)
    with client:
        assert client.get("/admin", headers=bearer(own_ladder.tokens["bob"])).status_code == 403
        assert client.get("/admin", follow_redirects=False).headers["location"] == "/signin"
        for path, data in [("/admin/suspend", {"name": "bob"}), ("/admin/lift", {"name": "bob"}),
                           ("/admin/retire", {"name": "bob", "version": "1"})]:  # fmt: skip
            r = client.post(path, data=data, headers={**OWN, **bearer(own_ladder.tokens["bob"])})
            assert r.status_code == 403 and "only the organiser" in r.text, path
            assert client.post(path, data=data, headers=OWN).status_code == 401
            # the organiser's cookie, on a form from a sibling site: refused before it is read
            client.cookies.set("referee_token", own_ladder.admin)
            r = client.post(path, data=data, headers={"Sec-Fetch-Site": "same-site", "Origin": "http://evil.test"})
            assert r.status_code == 403 and "may not change anything here" in r.text
            client.cookies.clear()
        assert ladder.entrant("bob").state == EntrantState.ACTIVE and ladder.version("bob", 1).active


def test_suspend_lift_and_retire_from_the_page_as_the_shell_commands_do(own_ladder: Built) -> None:
    client, ladder = open_client(own_ladder.root)
    admin = {**OWN, **bearer(own_ladder.admin)}
    with client:
        r = client.post("/admin/suspend", data={"name": "bob", "reason": "<b>cheating</b>?"}, headers=admin,
                        follow_redirects=False)  # fmt: skip
        assert r.status_code == 303 and r.headers["location"] == "/admin"
        assert ladder.entrant("bob").state == EntrantState.SUSPENDED
        # bob is told, on its /me (as text)
        mine = client.get("/me", headers=bearer(own_ladder.tokens["bob"])).text.split('id="notices"')[1]
        assert "bob suspended by the organiser: &lt;b&gt;cheating&lt;/b&gt;?" in mine
        assert [n.kind for n in notices_of(ladder.store, ladder.entrant("bob").id)] == [NoticeKind.ENTRANT_SUSPENDED]
        told = client.get("/api/me/notices", headers=bearer(own_ladder.tokens["bob"])).json()
        assert [(n["kind"], n["version"], n["page"]) for n in told] == [("entrant suspended", None, "/entrants/bob")]
        assert client.get("/api/me/notices", headers=bearer(own_ladder.tokens["alice"])).json() == []
        assert len(client.get("/api/me/notices", headers=bearer(own_ladder.admin)).json()) == 1  # everyone's
        assert client.get("/api/me/notices").status_code == 401
        again = client.post("/admin/suspend", data={"name": "bob"}, headers=admin)
        assert again.status_code == 409 and "bob is suspended already" in again.text
        assert client.post("/admin/lift", data={"name": "bob"}, headers=admin).status_code == 200  # after the 303
        assert ladder.entrant("bob").state == EntrantState.ACTIVE
        client.post("/admin/retire", data={"name": "bob", "version": "1"}, headers=admin)
        assert ladder.version("bob", 1).state == VersionState.RETIRED
        r = client.post("/admin/retire", data={"name": "carol"}, headers=admin)
        assert r.status_code == 422 and "for good: tick the box" in r.text
        assert ladder.entrant("carol").state == EntrantState.ACTIVE
        client.post("/admin/retire", data={"name": "carol", "sure": "yes"}, headers=admin)
        assert ladder.entrant("carol").state == EntrantState.RETIRED
        r = client.post("/admin/suspend", data={"name": "nobody"}, headers=admin)
        assert r.status_code == 404 and "no entrant named &#39;nobody&#39;" in r.text
        r = client.post("/admin/suspend", data={"name": "x" * 49}, headers=admin)
        assert r.status_code == 422
    ladder.close()


def test_an_author_rolls_back_from_the_web_and_the_api(own_ladder: Built) -> None:
    replace_alice(own_ladder.root)
    client, ladder = open_client(own_ladder.root)
    alice, bob = bearer(own_ladder.tokens["alice"]), bearer(own_ladder.tokens["bob"])
    with client:
        page = client.get("/entrants/alice/versions/1", headers=alice).text
        assert 'id="activate-form"' in page and 'action="/entrants/alice/versions/1/activate"' in page
        assert 'id="activate-form"' not in client.get("/entrants/alice/versions/1", headers=bob).text
        assert 'id="activate-form"' not in client.get("/entrants/alice/versions/2", headers=alice).text  # active
        r = client.post("/api/entrants/alice/versions/1/activate", headers=bob)
        assert r.status_code == 403
        assert r.json()["error"] == "only alice and the organiser may choose alice's active version"
        assert client.post("/api/entrants/alice/versions/1/activate").status_code == 401
        r = client.post("/entrants/alice/versions/1/activate", headers={**OWN, **alice}, follow_redirects=False)
        assert r.status_code == 303 and r.headers["location"] == "/entrants/alice/versions/1"
        assert ladder.version("alice", 1).state == VersionState.RANKED
        assert ladder.version("alice", 2).reason == "replaced by version 1"
        r = client.post("/api/entrants/alice/versions/2/activate", headers=alice)
        assert r.status_code == 200 and r.json()["state"] == "placement" and r.json()["key"] == "alice#2"
        r = client.post("/api/entrants/alice/versions/2/activate", headers=alice)
        assert r.status_code == 409 and r.json()["error"] == "alice#2 cannot be made active: it is active already"
        r = client.post("/api/entrants/carol/versions/2/activate", headers=bearer(own_ladder.tokens["carol"]))
        assert r.status_code == 409 and "it is failed" in r.json()["error"]
        # the same bytes as version 1 again: the refusal says how to play it again
        r = client.post("/api/versions", headers=alice,
                        files={"file": ("greedy.py", (ROOT / "sample_bots" / "greedy.py").read_bytes())})  # fmt: skip
        assert r.status_code == 409 and "make it active: the button on its page" in r.json()["error"], r.text
    ladder.close()


def test_the_activate_command_through_the_api(own_ladder: Built, live_server: Any, tmp_path: Path) -> None:
    replace_alice(own_ladder.root)
    server = live_server()
    token = tmp_path / "alice.token"
    token.write_text(own_ladder.tokens["alice"] + "\n")
    runner = CliRunner()
    args = ["ladder", "activate", "--server", server.url, "--token-file", str(token)]
    done = runner.invoke(main, [*args, "alice", "1"])
    assert done.exit_code == 0 and done.output.strip() == f"alice#1 is ranked again on {server.url}", done.output
    again = runner.invoke(main, [*args, "alice", "1"])
    assert again.exit_code == 2
    assert "the server refused it (409): alice#1 cannot be made active: it is active already" in again.output
    other = runner.invoke(main, [*args, "bob", "1"])
    assert other.exit_code == 2 and "(403): only bob and the organiser may choose" in other.output


def test_the_organisers_actions_in_the_api(own_ladder: Built) -> None:
    client, ladder = open_client(own_ladder.root)
    admin, bob = bearer(own_ladder.admin), bearer(own_ladder.tokens["bob"])
    with client:
        r = client.post("/api/entrants/bob/suspend", json={"reason": "looking into its logs"}, headers=admin)
        assert r.status_code == 200 and r.json()["state"] == "suspended", r.text
        assert r.json()["reason"] == "looking into its logs"  # the organiser sees why
        assert ladder.entrant("bob").state == EntrantState.SUSPENDED
        r = client.post("/api/entrants/bob/suspend", json={}, headers=admin)
        assert r.status_code == 409 and r.json()["error"] == "bob is suspended already"
        # an entrant's own token, no token, another site's page with the organiser's cookie: nothing changes
        r = client.post("/api/entrants/bob/lift", headers=bob)
        assert r.status_code == 403 and r.json()["error"] == "only the organiser's token may lift a suspension"
        assert client.post("/api/entrants/bob/lift").status_code == 401
        client.cookies.set("referee_token", own_ladder.admin)
        foreign = {"Origin": "http://127.0.0.1:9", "Sec-Fetch-Site": "same-site"}
        assert client.post("/api/entrants/bob/lift", headers=foreign).status_code == 403
        client.cookies.clear()
        assert ladder.entrant("bob").state == EntrantState.SUSPENDED
        r = client.post("/api/entrants/bob/lift", headers=admin)
        assert r.status_code == 200 and r.json()["state"] == "active"
        r = client.post("/api/entrants/bob/versions/1/retire", headers=admin)
        assert r.status_code == 200 and r.json()["state"] == "retired" and r.json()["key"] == "bob#1"
        r = client.post("/api/entrants/carol/retire", json={}, headers=admin)
        said = 'retiring the entrant carol is for good: send {"for_good": true} to do it'
        assert r.status_code == 422 and r.json()["error"] == said
        assert ladder.entrant("carol").state == EntrantState.ACTIVE
        r = client.post("/api/entrants/carol/retire", json={"for_good": True}, headers=admin)
        assert r.status_code == 200 and r.json()["state"] == "retired"
        assert {v["state"] for v in r.json()["versions"]} <= {"retired", "failed"}
        r = client.post("/api/entrants/nobody/suspend", json={}, headers=admin)
        assert r.status_code == 404 and r.json()["error"] == "no entrant named 'nobody'"
        assert client.post("/api/entrants/bob/suspend", json={"reason": "x" * 501}, headers=admin).status_code == 422
        spec = client.get("/api/openapi.json").json()
        assert spec["paths"]["/api/entrants/{name}/suspend"]["post"]["tags"] == ["organiser"]
    ladder.close()
