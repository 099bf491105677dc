"""The ladder's final on the site: ``/final`` and ``/api/final`` show its standings with their intervals, its verdict
against the ladder, its deals and its games; its report is a download; the epochs it closed show their secrets; a
``serve`` started after it plays no more blocks."""

from __future__ import annotations

import io
from contextlib import redirect_stdout
from pathlib import Path

import pytest
import trio

from referee.cli.ladder_final import FinalRequest, close_for_final, play_final
from referee.ladder import Ladder
from referee.ladder.serve import ServeOptions, serve
from referee.tournament import LocalExecutor
from tests.ladder.fakes import Fakes, bot_text, serve_blocks

NAMES = ("ann", "bob", "cat", "dan")


@pytest.fixture(scope="module")
def ladder_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A served ladder of four fake versions (table sizes 3 and 4) before its final."""
    root = tmp_path_factory.mktemp("final") / "lad"
    made, _ = Ladder.init(root)
    made.layout.config.write_text(
        '[games]\ntable_sizes = [3, 4]\ntable_weights = [1, 1]\nsandbox = "none"\n[matchmaking]\nplacement_blocks = 2\n'
    )
    for i, name in enumerate(NAMES):
        made.add_entrant(name)
        source = root.parent / f"{name}.py"
        source.write_text(bot_text(strength=10.0 * i))
        made.submit(name, source)
    made.close()
    serve_blocks(root, Fakes(), 40)
    return root


def _play_final(root: Path) -> None:
    fakes = Fakes()
    request = FinalRequest("race", None, 2, 120, None, {"top": 1})
    with Ladder.open(root) as ladder:
        closed = close_for_final(ladder, request)
    with redirect_stdout(io.StringIO()):
        play_final(closed, request, LocalExecutor(2, play=fakes.play, factory=fakes.factory))


def test_before_its_final_the_page_says_so_and_the_api_is_404(make_client, ladder_root: Path) -> None:
    client = make_client(ladder_root)
    page = client.get("/final")
    assert page.status_code == 200 and "No final yet" in page.text
    assert client.get("/api/final").status_code == 404
    assert "no final has been played" in client.get("/api/final").json()["error"]
    assert "The contest ends with" in client.get("/").text  # the leaderboard links to it


def test_the_final_is_on_the_site(make_client, ladder_root: Path, tmp_path: Path) -> None:
    root = tmp_path / "lad"
    import shutil

    shutil.copytree(ladder_root, root)
    _play_final(root)
    client = make_client(root)

    body = client.get("/api/final").json()
    assert body["format"] == "race" and body["table_sizes"] == "3:1,4:1" and 0 < body["games"] <= 120
    assert {r["name"] for r in body["rows"]} == {f"{n}#1" for n in NAMES}
    assert [r["place"] for r in body["rows"]] == [1, 2, 3, 4]
    first = body["rows"][0]
    lo, hi = first["matchpoints_ci95"]
    assert lo <= first["matchpoints"] <= hi and first["race_bounds"] is not None  # every figure with its interval
    assert all(r["ladder_rank_interval"] for r in body["rows"])
    assert body["verdict"][0].startswith(("ladder final: settled: ", "ladder final: not settled: "))
    assert "the ladder's official standing" in body["verdict"][-1]
    assert body["secret"] and len(body["commitment"]) == 64  # the final's own secret, revealed once it ended

    assert "The contest ended with" in client.get("/").text  # the leaderboard no longer speaks of it as to come
    page = client.get("/final").text
    for n in NAMES:
        assert f'href="/entrants/{n}/versions/1"' in page
    assert body["verdict"][-1].removeprefix("ladder final: ").replace("'", "&#39;") in page
    games = client.get("/api/final/games").json()
    assert 0 < len(games) <= 100 and games[0]["id"] == "g000001" and len(games[0]["names"]) in (3, 4)
    game = client.get(f"/final/games/{games[0]['id']}")
    assert game.status_code == 200 and f"/api/final/games/{games[0]['id']}/replay" in game.text
    no_replay = client.get(f"/api/final/games/{games[0]['id']}/replay")  # the fakes keep none
    assert no_replay.status_code == 404 and "has no replay" in no_replay.json()["error"]
    assert client.get("/final/games/g999999").status_code == 404
    assert client.get("/final/games/" + "x" * 200).status_code == 422
    assert client.get("/api/final/games", params={"start": -1}).status_code == 422

    report = client.get("/final/report.html")
    assert report.status_code == 200 and "attachment" in report.headers["content-disposition"]
    assert "<html" in report.text.lower()

    epochs = client.get("/api/epochs").json()
    assert epochs and all(e["secret"] and e["closed_at"] for e in epochs)  # the final closed the ladder's play
    assert "revealed when it closes" not in client.get("/epochs").text

    lines: list[str] = []

    async def serve_again() -> None:  # the ladder's play ended with its final
        options = ServeOptions(announce=lines.append, poll=0.01, play=Fakes().play, factory=Fakes().factory)
        async with trio.open_nursery() as nursery:
            await nursery.start(serve, root, options)
            await trio.sleep(0.5)
            nursery.cancel_scope.cancel()

    with Ladder.open(root) as ladder:
        blocks = ladder.store.block_count()
    trio.run(serve_again)
    with Ladder.open(root) as ladder:
        assert ladder.store.block_count() == blocks and ladder.store.open_epoch_now() is None
    assert any("the ladder's final was played" in line and "no more blocks" in line for line in lines), lines
