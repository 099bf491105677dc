"""A bot's stderr log, marked with what it was asked (``RunnerConfig.stderr_marks``): each part of it read back under
the game, seat, round and move it was written for, the cap of the log kept, a silent bot's log left empty."""

from __future__ import annotations

import sys
from pathlib import Path

import trio

from referee.runner import BotSpec, RunnerConfig
from referee.runner.game import play_game
from referee.runner.gamelog import read_records
from referee.runner.logrecords import ActionEvent, RoundEndEvent
from referee.runner.player import Player
from referee.runner.stderr_marks import game_segments

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "tests" / "bots"


def _player(name: str, tmp_path: Path, config: RunnerConfig) -> Player:
    spec = BotSpec(name, (sys.executable, str(BOTS / f"{name}.py")), BOTS)
    return Player(spec, config, tmp_path / "bots" / f"{name}.log")


def _play(tmp_path: Path, config: RunnerConfig, games: int) -> list[Path]:
    players = [_player("thinker", tmp_path, config), _player("honest", tmp_path, config)]
    logs = [tmp_path / f"g{i}.jsonl" for i in range(games)]

    async def main() -> None:
        try:
            for i, log in enumerate(logs):
                await play_game(players, game_id=f"g{i}", seed=100 + i, log_path=log)
        finally:
            for p in players:
                await p.aclose()

    trio.run(main)
    return logs


def test_each_move_s_stderr_is_read_back_beside_that_move(tmp_path: Path) -> None:
    logs = _play(tmp_path, RunnerConfig(sandbox="none", stderr_marks=True), games=2)
    data = (tmp_path / "bots" / "thinker.log").read_bytes()
    for i, log in enumerate(logs):
        _, events = read_records(log, wire=False)
        # where each of the thinker's moves is: (round, events of the round before it), in the order played
        moves, before = [], 0
        for e in events:
            if isinstance(e, ActionEvent):
                if e.seat == 0:
                    moves.append((e.round, before))
                before += len(e.entries)
            elif isinstance(e, RoundEndEvent):
                before = 0
        segments = game_segments(data, f"g{i}")
        turns = [s for s in segments if s.at == "turn"]
        assert [(s.round, s.step) for s in turns] == moves
        assert [s.text for s in turns] == [f"thinking about turn {n}\n" for n in range(1, len(moves) + 1)]
        assert {s.seat for s in segments} == {0}
        rounds = {r for r, _ in moves}
        assert [(s.round, s.text) for s in segments if s.at == "deal"] == [(r, "choosing a discard\n") for r in rounds]
    assert not (tmp_path / "bots" / "honest.log").exists() or not (tmp_path / "bots" / "honest.log").read_bytes()


def test_without_marks_the_log_is_the_bots_own_bytes(tmp_path: Path) -> None:
    _play(tmp_path, RunnerConfig(sandbox="none"), games=1)
    text = (tmp_path / "bots" / "thinker.log").read_text()
    assert "[referee]" not in text and text.startswith("choosing a discard\nthinking about turn 1\n")


def test_the_marks_count_in_the_cap(tmp_path: Path) -> None:
    cap = 400
    _play(tmp_path, RunnerConfig(sandbox="none", stderr_marks=True, stderr_cap=cap), games=2)
    data = (tmp_path / "bots" / "thinker.log").read_bytes()
    assert cap < len(data) <= cap + 200 and data.endswith(b"the rest was dropped]\n")
    assert game_segments(data, "g0")[0].text == "choosing a discard\n"
