"""A version's page and its API show the state it is really in: a ranked version of a suspended entrant does not
play, and says so."""

from __future__ import annotations

from pathlib import Path

from referee.ladder import Ladder, VersionState
from tests.web.conftest import open_client


def test_a_version_of_a_suspended_entrant_shows_suspended(tmp_path: Path) -> None:
    made, _ = Ladder.init(tmp_path / "lad")
    with made as ladder:
        ladder.add_entrant("bob")
        (tmp_path / "bot.py").write_text("print('hello')\n")
        v = ladder.submit("bob", tmp_path / "bot.py")
        ladder.store.set_version_state(v.id, VersionState.RANKED)
        ladder.suspend("bob", "under review")
    client, opened = open_client(tmp_path / "lad")
    try:
        with client:
            page = client.get("/entrants/bob/versions/1")
            assert page.status_code == 200
            assert '<span id="version-state"><span class="state state-suspended">suspended</span>' in page.text
            assert client.get("/api/entrants/bob/versions/1").json()["state"] == "suspended"
            opened.reinstate("bob")
            assert client.get("/api/entrants/bob/versions/1").json()["state"] == "ranked"  # lifted: it plays again
    finally:
        opened.close()
