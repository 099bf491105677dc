"""A game whose log is huge (every reply of two padded bots at the protocol's longest line, 65,536 bytes) is logged
whole: the log is held in memory and written in pieces as it grows, and the file on disk has every line, in order,
each reply byte for byte, and re-verifies through the engine."""

from __future__ import annotations

import json
from pathlib import Path

import trio

from protocol import MAX_LINE
from referee.runner import read_log
from referee.runner.gamelog import HOLD

from .helpers import assert_verified, bot, config, new_mark, play_games, processes_with


def test_a_game_of_longest_replies_is_logged_whole(tmp_path: Path) -> None:
    mark = new_mark()
    specs = [bot("padded", mark, PADDED_LINE=str(MAX_LINE)) for _ in range(2)]
    (result,), _ = trio.run(lambda: play_games(specs, config("none"), tmp_path, seeds=[3]))
    assert result.faults == ()
    assert_verified(result)
    assert processes_with(mark) == []
    assert result.log_path is not None
    events = read_log(result.log_path)
    assert result.log_path.stat().st_size > 8 * HOLD  # far more than the writer holds before it writes
    kinds = [e["event"] for e in events]
    assert kinds[0] == "game" and kinds[-1] == "result" and kinds.count("result") == 1
    requests = [e for e in events if e["event"] == "send" and e["msg"]["type"] in ("hello", "deal", "turn")]
    replies = [e for e in events if e["event"] == "recv"]
    # Each request is answered once, by a line of exactly MAX_LINE bytes kept whole; hellos are not logged here.
    assert len(replies) == len([r for r in requests if r["msg"]["type"] != "hello"])
    assert all(len(r["line"].encode()) == MAX_LINE for r in replies)
    assert all(json.loads(r["line"])["type"] in ("discard", "play", "pass", "drop") for r in replies)
    # The order of the lines is the order of the game: each reply comes after a request to its seat (the deals of a
    # round go out to every seat before the first discard comes back), and each request is answered before the next.
    waiting = [False, False]
    for e in events:
        if e["event"] == "send" and e["msg"]["type"] in ("deal", "turn"):
            assert not waiting[e["seat"]]
            waiting[e["seat"]] = True
        elif e["event"] == "recv":
            assert waiting[e["seat"]]
            waiting[e["seat"]] = False
    assert waiting == [False, False]
