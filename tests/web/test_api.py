"""The JSON API, endpoint by endpoint, against a ladder with real and simulated blocks: what each returns matches
the ladder's own records, and what is an author's own is refused to everyone else."""

from __future__ import annotations

import json
from urllib.parse import quote

from fastapi.testclient import TestClient

from referee.ladder import Ladder
from tests.web.conftest import bearer
from tests.web.ladderdata import HOSTILE, HOSTILE_STDERR, Built


def test_leaderboard_is_the_ladders_official_standing(client: TestClient, built: Built) -> None:
    body = client.get("/api/leaderboard").json()
    with Ladder.open(built.root) as ladder:
        expected = ladder.leaderboard().to_dict()
    assert [r["key"] for r in body["ranked"]] == [r["key"] for r in expected["ranked"]]
    assert body["blocks"] == expected["blocks"] and body["games"] == expected["games"] > 0
    assert body["official"] == "matchpoints" and body["note"]
    for row, want in zip(body["ranked"], expected["ranked"], strict=True):
        assert row["place"] == want["place"] and row["rank_interval"] == want["rank_interval"]
        assert row["matchpoints_ci95"] == want["matchpoints_ci95"]
        assert row["live_mu"] == want["live_mu"]
        assert row["opponents"] == want["opponents"] >= 1
    assert "Bradley-Terry" in body["note"]  # one line says how the figure is made
    # the simulated strengths: alice is strongest, the hostile entrant weakest
    assert body["ranked"][0]["entrant"] == "alice"
    assert body["ranked"][-1]["entrant"] == HOSTILE


def test_entrant_and_version_hide_private_parts_from_others(client: TestClient, built: Built) -> None:
    for headers in ({}, bearer(built.tokens["bob"])):
        carol = client.get("/api/entrants/carol", headers=headers).json()
        assert [v["version"] for v in carol["versions"]] == [2, 1]
        failed = carol["versions"][0]
        assert failed["state"] == "failed"
        assert failed["reason"] is None and failed["gate"] is None and failed["command"] is None
        one = client.get("/api/entrants/carol/versions/2", headers=headers).json()
        assert one["state"] == "failed" and one["reason"] is None
    for token in (built.tokens["carol"], built.admin):
        one = client.get("/api/entrants/carol/versions/2", headers=bearer(token)).json()
        assert one["reason"] == "the gate failed: crashed in 3 of 24 check games"
        assert one["gate"]["passed"] is False and one["gate"]["reasons"] == ["crashed in 3 of 24 check games"]
        assert one["command"] == ["python", "random_bot.py"]


def test_blocks_block_and_games(client: TestClient, built: Built) -> None:
    blocks = client.get("/api/blocks", params={"limit": 5}).json()
    assert len(blocks) == 5
    assert [b["id"] for b in blocks] == sorted((b["id"] for b in blocks), reverse=True)
    older = client.get("/api/blocks", params={"limit": 5, "before": blocks[-1]["id"]}).json()
    assert older[0]["id"] < blocks[-1]["id"]
    mine = client.get("/api/blocks", params={"entrant": "alice", "version": 1, "limit": 200}).json()
    assert mine and all(any(r["key"] == "alice#1" for r in b["results"]) for b in mine)
    # an entrant alone: the blocks of any of its versions (a newcomer found the filter ignored without a version)
    bobs = client.get("/api/blocks", params={"entrant": "bob", "limit": 3}).json()
    assert len(bobs) == 3 and all(any(r["key"].startswith("bob#") for r in b["results"]) for b in bobs)
    assert [b["id"] for b in bobs] == sorted((b["id"] for b in bobs), reverse=True)
    assert client.get("/api/blocks", params={"entrant": "nosuch"}).status_code == 404
    assert client.get("/api/blocks", params={"version": 1}).status_code == 422
    block = client.get(f"/api/blocks/{built.real_block}").json()
    assert block["state"] == "done" and block["seed"] == "5"
    assert len(block["games"]) == 3
    assert {tuple(g["seats"]) for g in block["games"]} == {
        ("alice#1", "bob#1", f"{HOSTILE}#1"),
        ("bob#1", f"{HOSTILE}#1", "alice#1"),
        (f"{HOSTILE}#1", "alice#1", "bob#1"),
    }
    game = client.get(f"/api/games/{built.faulted_game}").json()
    assert game == next(g for g in block["games"] if g["id"] == built.faulted_game)
    assert any(game["forfeits"])


def test_public_log_replays_without_wire_lines_or_fault_details(client: TestClient, built: Built, tmp_path) -> None:
    text = client.get(f"/api/games/{built.faulted_game}/log").text
    events = [json.loads(line) for line in text.splitlines()]
    assert events[0]["event"] == "game"
    kinds = {e["event"] for e in events}
    assert "action" in kinds and "result" in kinds and "forfeit" in kinds
    assert not kinds & {"send", "recv", "fault"}
    result = next(e for e in events if e["event"] == "result")
    assert result["faults"] and all(f["detail"] == "" and f["line"] is None for f in result["faults"])
    assert "you hold no" not in text  # the illegal move's detail
    # anyone can replay it
    log = tmp_path / "game.jsonl"
    log.write_text(text, encoding="utf-8")
    from referee.report import encode_replay, read_game_log

    logged = read_game_log(log)
    replay = encode_replay(len(logged.names), logged.ruleset, logged.steps, deal=logged.deal)
    assert replay["s"] == result["scores"]


def test_replay_shows_fault_details_to_the_faulty_seat_only(client: TestClient, built: Built) -> None:
    anonymous = client.get(f"/api/games/{built.faulted_game}/replay").json()
    seats = anonymous["names"]
    assert sorted(seats) == sorted(["alice#1", "bob#1", f"{HOSTILE}#1"])
    assert anonymous["faults"] and all(f["detail"] == "" for f in anonymous["faults"])
    assert anonymous["replay"]["s"] == client.get(f"/api/games/{built.faulted_game}").json()["scores"]
    other = client.get(f"/api/games/{built.faulted_game}/replay", headers=bearer(built.tokens["alice"])).json()
    assert all(f["detail"] == "" for f in other["faults"])
    own = client.get(f"/api/games/{built.faulted_game}/replay", headers=bearer(built.tokens[HOSTILE])).json()
    assert own["faults"][0]["detail"]


def test_stderr_and_faults_are_the_authors_only(client: TestClient, built: Built) -> None:
    name = quote(HOSTILE, safe="")
    url = f"/api/entrants/{name}/versions/1"
    assert client.get(f"{url}/stderr").status_code == 401
    assert client.get(f"{url}/faults").status_code == 401
    for token in (built.tokens["alice"], built.tokens["bob"]):
        refused = client.get(f"{url}/stderr", headers=bearer(token))
        assert refused.status_code == 403
        assert refused.json()["error"] == f"only {HOSTILE} and the organiser may read {HOSTILE}'s logs and faults"
        assert client.get(f"{url}/faults", headers=bearer(token)).status_code == 403
    for token in (built.tokens[HOSTILE], built.admin):
        logs = client.get(f"{url}/stderr", headers=bearer(token)).json()
        assert any(HOSTILE_STDERR in f["text"] for f in logs)
        faults = client.get(f"{url}/faults", headers=bearer(token)).json()
        assert faults and faults[0]["kind"] == "illegal_move" and faults[0]["detail"]
    kinds = client.get(f"/api/entrants/{name}").json()["versions"][0]["fault_kinds"]
    assert kinds == {"illegal_move": len(client.get(f"{url}/faults", headers=bearer(built.admin)).json())}


def test_epochs_show_the_commitment_and_keep_the_open_secret(client: TestClient, built: Built) -> None:
    epochs = client.get("/api/epochs").json()
    assert len(epochs) == 1
    import hashlib

    assert epochs[0]["commitment"] == hashlib.sha256(bytes(range(32))).hexdigest()
    assert epochs[0]["closed_at"] is None and epochs[0]["secret"] is None
    assert epochs[0]["blocks"] == client.get("/api/leaderboard").json()["blocks"]


def test_export_has_every_finished_game(client: TestClient, built: Built) -> None:
    response = client.get("/api/export.jsonl")
    assert response.headers["content-type"].startswith("application/x-ndjson")
    games = [json.loads(line) for line in response.text.splitlines()]
    assert len(games) == client.get("/api/leaderboard").json()["games"]
    assert {g["game"] for g in games} >= {built.faulted_game}
    for g in games:
        assert {"game", "block", "epoch", "seed", "rotation", "seats"} <= set(g)
        assert all({"version", "score", "rank", "forfeit"} <= set(s) for s in g["seats"])


def test_me_names_the_token(client: TestClient, built: Built) -> None:
    assert client.get("/api/me", headers=bearer(built.tokens["bob"])).json() == {"name": "bob", "admin": False}
    assert client.get("/api/me", headers=bearer(built.admin)).json() == {"name": None, "admin": True}
    refused = client.get("/api/me")
    assert refused.status_code == 401 and refused.headers["www-authenticate"] == "Bearer"


def test_openapi_documents_every_endpoint(client: TestClient) -> None:
    spec = client.get("/api/openapi.json").json()
    paths = set(spec["paths"])
    assert paths >= {
        "/api/me", "/api/leaderboard", "/api/versions", "/api/entrants/{name}",
        "/api/entrants/{name}/versions/{number}", "/api/entrants/{name}/versions/{number}/faults",
        "/api/entrants/{name}/versions/{number}/stderr", "/api/blocks", "/api/blocks/{block_id}",
        "/api/games/{game_id}", "/api/games/{game_id}/log", "/api/games/{game_id}/replay", "/api/epochs",
        "/api/export.jsonl",
    }  # fmt: skip
    submit = spec["paths"]["/api/versions"]["post"]
    assert "multipart/form-data" in submit["requestBody"]["content"]
    assert "ErrorBody" in json.dumps(submit["responses"])
    # one bearer scheme, optional for every operation, so the docs page has an Authorize button
    scheme = spec["components"]["securitySchemes"]["bearer"]
    assert scheme["type"] == "http" and scheme["scheme"] == "bearer"
    assert spec["security"] == [{"bearer": []}, {}]
    page = client.get("/api/docs")
    assert page.status_code == 200 and "/static/swagger/swagger-ui-bundle.js" in page.text
    assert '<p class="docs-top">' in page.text and client.get("/static/docs.css").status_code == 200
    assert client.get("/static/swagger/swagger-ui-bundle.js").status_code == 200


def test_refusals_are_one_line(client: TestClient) -> None:
    bad = client.get("/api/blocks", params={"limit": 0})
    assert bad.status_code == 422 and bad.json()["error"].startswith("query.limit:")
    assert client.get("/api/nothing").json() == {"error": "nothing at /api/nothing", "status": 404}
    assert client.delete("/api/leaderboard").status_code == 405
    for url in ("/api/entrants/nobody", "/api/blocks/99999"):
        r = client.get(url)
        assert 400 <= r.status_code < 500 and set(r.json()) == {"error", "status"} and "\n" not in r.json()["error"]


def test_unknown_things_are_404(client: TestClient) -> None:
    for url in ("/api/entrants/nobody", "/api/entrants/alice/versions/9", "/api/blocks/99999", "/api/games/1.9"):
        r = client.get(url)
        assert r.status_code == 404, (url, r.text)


def test_submit_wait_ends_with_the_place_reached(client: TestClient, built: Built) -> None:
    """What `ladder submit --wait` prints once its version is ranked: place, rank interval, the official figure with
    its interval, and the version's page."""
    from referee.web.client import standing_line

    board = client.get("/api/leaderboard").json()
    first = board["ranked"][0]
    line = standing_line("http://ladder.example/", first["key"], board)
    low, high = first["rank_interval"]
    assert line.startswith(f"{first['key']} is ranked: place 1 of {len(board['ranked'])} (95% rank interval ")
    assert f"interval {low if low == high else f'{low}-{high}'})" in line
    assert f"expected matchpoints {first['matchpoints']:.3f} [{first['matchpoints_ci95'][0]:.3f}, " in line
    entrant, _, number = first["key"].rpartition("#")
    assert line.endswith(f": http://ladder.example/entrants/{quote(entrant, safe='')}/versions/{number}")
    missing = standing_line("http://ladder.example", "nobody#9", board)
    assert missing == "nobody#9 is ranked; not on the leaderboard yet (it is recomputed after each block): " + (
        "http://ladder.example/entrants/nobody/versions/9"
    )
