"""A game's stderr beside its turns: ``serve`` plays real games of a bot that says on stderr which turn it thinks
about (tests/bots/thinker.py), and the game's replay gives its author each line with the move it was written for,
and nothing of it to another entrant or to the public."""

from __future__ import annotations

import shutil
from pathlib import Path

import trio

from referee.ladder import BlockState, Ladder, VersionState
from referee.ladder.serve import ServeOptions, serve
from referee.runner.gamelog import read_records
from referee.runner.logrecords import ActionEvent, RoundEndEvent
from referee.runner.process import _append_capped
from tests.web.conftest import bearer, open_client
from tests.web.ladderdata import ROOT

SETTINGS = """
[games]
table_sizes = [2]
table_weights = [1]
sandbox = "none"
[serve]
jobs = 1
"""


def _served(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    made, _ = Ladder.init(tmp_path / "lad")
    made.layout.config.write_text(SETTINGS)
    made.close()
    lad, tokens = tmp_path / "lad", {}
    with Ladder.open(lad) as ladder:
        for name, bot in (("ann", "thinker"), ("ben", "honest")):
            folder = tmp_path / "src" / name
            folder.mkdir(parents=True)
            shutil.copy(ROOT / "tests" / "bots" / f"{bot}.py", folder / "bot.py")
            (folder / "bot.toml").write_text('command = "python bot.py"\n')
            _, tokens[name] = ladder.add_entrant(name)
            v = ladder.submit(name, folder)
            ladder.store.set_version_state(v.id, VersionState.RANKED)  # admitted: no gate to play here

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            ladder = await nursery.start(serve, lad, ServeOptions(announce=lambda line: None, poll=0.05, seed=3))
            with trio.fail_after(60):
                while not ladder.store.blocks(states=[BlockState.DONE]):
                    await trio.sleep(0.05)
            nursery.cancel_scope.cancel()

    trio.run(main)
    return lad, tokens


def test_a_replay_shows_its_author_each_turns_stderr_and_no_one_else(tmp_path: Path) -> None:
    lad, tokens = _served(tmp_path)
    with Ladder.open(lad) as ladder:
        block = ladder.store.blocks(states=[BlockState.DONE])[0]
        game = ladder.games(block.id)[0]
        keys = [ladder.store.version(v).key for v in game.seats]
        seat = keys.index("ann#1")
        _, events = read_records(ladder.game_log(game.id), wire=False)
    moves, before = [], 0  # the thinker's moves: (round, events of the round before it)
    for e in events:
        if isinstance(e, ActionEvent):
            if e.seat == seat:
                moves.append((e.round, before))
            before += len(e.entries)
        elif isinstance(e, RoundEndEvent):
            before = 0
    client, ladder = open_client(lad)
    with client:
        url = f"/api/games/{game.id}/replay"
        mine = client.get(url, headers=bearer(tokens["ann"])).json()["stderr"]
        turns = [s for s in mine if s["at"] == "turn"]
        assert [(s["round"], s["step"]) for s in turns] == moves and moves
        assert [s["text"] for s in turns] == [f"thinking about turn {n}\n" for n in range(1, len(moves) + 1)]
        assert {s["seat"] for s in mine} == {seat}
        for headers in (bearer(tokens["ben"]), {}):  # the other entrant, the public
            body = client.get(url, headers=headers).json()
            assert body["stderr"] == [] and "thinking" not in str(body) and body["stderr_full"] == []
        # the lane's file full before the game (its bot wrote its cap earlier): the author is told why there is none
        for log in ladder.stderr_logs("ann", 1):
            log.unlink()
        with (lad / "bots" / "ann#1.0.log").open("ab", buffering=0) as f:
            _append_capped(f, b"an earlier game's lines\n" * 100, 1000)
        body = client.get(url, headers=bearer(tokens["ann"])).json()
        assert body["stderr"] == [] and body["stderr_full"] == [seat]
    ladder.close()


def test_a_seats_stderr_in_one_game_is_capped_marks_and_all(tmp_path: Path) -> None:
    """A bot that floods its log with lines that look like marks (or writes a lot under one) gets at most
    GAME_STDERR_CAP characters of a game through, counting each segment."""
    from referee.runner.stderr_marks import game_segments, mark_line
    from referee.web.game_stderr import GAME_STDERR_CAP, _capped

    forged = b"".join(mark_line("g", 0, 1, k, "turn") for k in range(20_000))
    many = _capped([s._asdict() for s in game_segments(forged, "g")])
    assert 0 < len(many) <= GAME_STDERR_CAP // 64
    long = _capped([s._asdict() for s in game_segments(mark_line("g", 0, 1, 0, "turn") + b"x" * 10**6, "g")])
    assert len(long) == 1 and len(long[0]["text"]) < GAME_STDERR_CAP + 100 and "[cut: more than" in long[0]["text"]
