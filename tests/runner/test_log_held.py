"""The game log is held in memory and written when the game ends: a game stopped part-way (an interrupt, a cancelled
run) still leaves the log of the game so far, and a log longer than what the writer holds is written in pieces,
whole."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import trio

from protocol import AnyReply, Expect
from referee.runner import gamelog, play_game, read_log

from .scripted import ScriptedEntrant


class _StopsAtTurn(ScriptedEntrant):
    """An entrant that, at its ``turns``-th turn, tells the test (``reached``) and then never answers."""

    def __init__(self, name: str, turns: int) -> None:
        super().__init__(name)
        self.turns_left = turns
        self.reached = trio.Event()

    async def request(self, line: bytes, expect: Expect, deadline: float) -> tuple[AnyReply, bytes]:
        if expect is Expect.TURN:
            self.turns_left -= 1
            if self.turns_left == 0:
                self.reached.set()
                await trio.sleep_forever()
        return await super().request(line, expect, deadline)


def _without_times(path: Path) -> list[str]:
    """The log's lines without their times, sorted (trio runs the tasks of a round's deals in either order)."""
    events: list[dict[str, Any]] = [json.loads(line) for line in path.read_bytes().splitlines()]
    for event in events:
        for key in ("t", "ms"):
            event.pop(key, None)
    return sorted(json.dumps(event) for event in events)


def test_a_game_cancelled_part_way_leaves_its_log_so_far(tmp_path: Path) -> None:
    log = tmp_path / "stopped.jsonl"
    a, b = _StopsAtTurn("a", 3), ScriptedEntrant("b")

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(lambda: play_game([a, b], game_id="g", seed=4, log_path=log))
            await a.reached.wait()
            assert log.read_bytes() == b""  # held in memory while the game goes on
            nursery.cancel_scope.cancel()

    trio.run(main)
    events = read_log(log)
    assert [e["event"] for e in events[:3]] == ["game", "player", "player"]
    sent = [e for e in events if e["event"] == "send"]
    assert len(sent) == len(a.received) + len(b.received) + 1  # every message, and the turn never answered
    last = events[-1]
    assert last["event"] == "send" and last["seat"] == 0 and last["msg"]["type"] == "turn"
    assert not any(e["event"] == "result" for e in events)


def test_a_log_longer_than_the_writer_holds_is_written_in_pieces_and_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    whole = tmp_path / "whole.jsonl"
    trio.run(lambda: play_game([ScriptedEntrant("a"), ScriptedEntrant("b")], game_id="g", seed=9, log_path=whole))
    assert len(whole.read_bytes()) > 10_000

    pieces = tmp_path / "pieces.jsonl"
    monkeypatch.setattr(gamelog, "HOLD", 1_000)
    sizes: list[int] = []

    class _Watching(ScriptedEntrant):
        async def request(self, line: bytes, expect: Expect, deadline: float) -> tuple[AnyReply, bytes]:
            sizes.append(pieces.stat().st_size)
            return await super().request(line, expect, deadline)

    trio.run(lambda: play_game([_Watching("a"), _Watching("b")], game_id="g", seed=9, log_path=pieces))
    assert sizes[0] < 5_000 < sizes[-1]  # written while the game went on
    assert sizes == sorted(sizes)
    assert _without_times(pieces) == _without_times(whole)
