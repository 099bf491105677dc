"""referee verify finds the first disagreement of a tampered log; replay tells the game readably."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import trio

from referee.runner import LogError, play_game, read_log
from referee.runner.render import render_log
from referee.runner.verify import verify_log

from .scripted import ScriptedEntrant


@pytest.fixture(scope="module")
def game_log(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    path = tmp_path_factory.mktemp("log") / "g.jsonl"
    entrants = [ScriptedEntrant("ann"), ScriptedEntrant("bob"), ScriptedEntrant("cy")]
    trio.run(lambda: play_game(entrants, game_id="g", seed=21, log_path=path))
    return path.read_text().splitlines()


def _events(lines: list[str], tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "t.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return read_log(path)


def _edit(lines: list[str], event: str, change: Any, nth: int = 0) -> tuple[list[str], int]:
    out = list(lines)
    seen = 0
    for i, line in enumerate(out):
        obj = json.loads(line)
        if obj["event"] == event:
            if seen == nth:
                change(obj)
                out[i] = json.dumps(obj)
                return out, i + 1
            seen += 1
    raise AssertionError(f"no {event} #{nth}")


def test_untouched_log_verifies(game_log: list[str], tmp_path: Path) -> None:
    verdict = verify_log(_events(game_log, tmp_path))
    assert verdict.ok and verdict.actions > 0 and verdict.discards == 6


def test_changed_score_is_named(game_log: list[str], tmp_path: Path) -> None:
    def bump(obj: dict[str, Any]) -> None:
        obj["scores"][1] += 1

    lines, number = _edit(game_log, "result", bump)
    verdict = verify_log(_events(lines, tmp_path))
    assert not verdict.ok and verdict.line == number and verdict.message.startswith("scores:")


def test_changed_move_is_named(game_log: list[str], tmp_path: Path) -> None:
    def change(obj: dict[str, Any]) -> None:
        obj["action"] = {"type": "drop"}

    lines, number = _edit(game_log, "action", change, nth=3)
    verdict = verify_log(_events(lines, tmp_path))
    assert not verdict.ok and verdict.line == number and "replied" in verdict.message


def test_changed_penalty_is_named(game_log: list[str], tmp_path: Path) -> None:
    def change(obj: dict[str, Any]) -> None:
        obj["entries"][0]["penalty"] += 5

    lines, number = _edit(game_log, "action", change, nth=2)
    verdict = verify_log(_events(lines, tmp_path))
    assert not verdict.ok and verdict.line == number and "the engine records" in verdict.message


def test_deal_not_of_its_seed_is_named(game_log: list[str], tmp_path: Path) -> None:
    def change(obj: dict[str, Any]) -> None:
        obj["seed"] = 22

    lines, _ = _edit(game_log, "game", change)
    verdict = verify_log(_events(lines, tmp_path))
    assert not verdict.ok and verdict.line == 1 and "seed 22" in verdict.message


def test_truncated_log_is_incomplete(game_log: list[str], tmp_path: Path) -> None:
    verdict = verify_log(_events(game_log[: len(game_log) // 2], tmp_path))
    assert not verdict.ok and "did not finish" in verdict.message


def test_read_log_refuses_non_logs(tmp_path: Path) -> None:
    bad = tmp_path / "x.jsonl"
    bad.write_text("hello\n")
    with pytest.raises(LogError, match=r"x.jsonl:1: not JSON"):
        read_log(bad)
    bad.write_text('{"event":"send"}\n')
    with pytest.raises(LogError, match="first line is not the 'game' header"):
        read_log(bad)
    with pytest.raises(LogError, match="cannot read game log"):
        read_log(tmp_path / "missing.jsonl")


def test_replay_tells_every_move(game_log: list[str], tmp_path: Path) -> None:
    events = _events(game_log, tmp_path)
    text = list(render_log(events))
    actions = [e for e in events if e["event"] == "action"]
    turn_lines = [t for t in text if t.lstrip().startswith("turn ")]
    assert len(turn_lines) == len(actions)
    assert text[0].startswith("Game g (seed 21): 0: ann, 1: bob, 2: cy")
    assert "Round 1" in text and "Round 2" in text and "Result" in text
    result = events[-1]
    for seat in range(3):
        assert any(f"seat {seat}" in t and f"score {result['scores'][seat]:>4}" in t for t in text)


def test_referee_discards_of_a_forfeiter_are_logged_and_checked(tmp_path: Path) -> None:
    from referee.runner import BotCrashed

    def crash_on_deal(msg: dict[str, Any]) -> Any:
        return BotCrashed("the bot exited") if msg["type"] == "deal" else None

    path = tmp_path / "f.jsonl"
    entrants = [ScriptedEntrant("ann"), ScriptedEntrant("bob", crash_on_deal)]
    result = trio.run(lambda: play_game(entrants, game_id="f", seed=4, log_path=path))
    assert result.forfeits == (1,)
    lines = path.read_text().splitlines()
    by_referee = [json.loads(x) for x in lines if '"by":"referee"' in x]
    assert [e["seat"] for e in by_referee] == [1, 1]  # rounds 1 and 2
    for event, hand in zip(by_referee, (result.deal[0][1], result.deal[1][1]), strict=True):
        assert event["cards"] == sorted(c for c in hand if c != 1)[-3:]  # its three highest, never the 1
    assert verify_log(_events(lines, tmp_path)).ok
    assert any("(by the referee: forfeited)" in t for t in render_log(_events(lines, tmp_path)))

    edited = list(lines)
    i = next(n for n, x in enumerate(lines) if '"by":"referee"' in x)
    obj = json.loads(edited[i])
    obj["cards"] = [2, 3, 4]
    edited[i] = json.dumps(obj)
    verdict = verify_log(_events(edited, tmp_path))
    assert not verdict.ok and verdict.line == i + 1 and "referee discard" in verdict.message
