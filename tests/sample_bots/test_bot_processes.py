"""Each sample bot as a real process: a short scripted exchange, valid replies, a clean exit on bye."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from protocol import DiscardReply, Expect, HelloReply, PlayReply, encode, parse_reply, reply_to_action, turn_message
from referee.engine import STANDARD as RULES
from referee.engine import Discard, Hand, Observation, apply, legal_actions_for, new_game, observation_for

BOTS = Path(__file__).resolve().parents[2] / "sample_bots"
PYTHON_BOTS = ["random_bot.py", "greedy.py", "heuristic.py", "montecarlo.py"]
ALL_BOTS = [*PYTHON_BOTS, "js_bot.js"]
NAMES = {"random_bot.py": "random", "greedy.py": "greedy", "heuristic.py": "heuristic", "montecarlo.py": "montecarlo"}


def command(bot: str) -> list[str]:
    if bot.endswith(".js"):
        node = shutil.which("node")
        if node is None:
            pytest.skip("node is not installed")
        return [node, str(BOTS / bot)]
    return [sys.executable, str(BOTS / bot)]


def first_turn() -> tuple[Hand, Observation]:
    """Seat 0's dealt hand and its first turn after the opening in a real 2-player game (highest cards discarded)."""
    state = new_game(2, seed=11)
    hand = state.hands[0]
    for seat in (0, 1):
        state = apply(state, Discard(seat, tuple(state.hands[seat][-3:])))
    while state.to_move != 0:
        state = apply(state, legal_actions_for(observation_for(state, state.to_move), RULES)[0])
    return hand, observation_for(state, 0)


def script() -> list[bytes]:
    """Lines for seat 0: hello, game_start, deal, a message of an unknown type, a turn, bye."""
    hand, obs = first_turn()
    return [
        b'{"type":"hello","protocol":1}\n',
        b'{"type":"game_start","game":"g1","seat":0,"players":["a","b"],"rules":'
        + json.dumps(RULES.to_dict()).encode()
        + b',"time":{"move_ms":400},"future_field":1}\n',
        b'{"type":"deal","game":"g1","round":1,"hand":' + json.dumps(list(hand)).encode() + b',"discard":3}\n',
        b'{"type":"something_new"}\n',
        encode(turn_message("g1", obs, names=["a", "b"])),
        b'{"type":"bye"}\n',
    ]


@pytest.mark.parametrize("bot", ALL_BOTS)
def test_scripted_exchange(bot: str, tmp_path: Path) -> None:
    proc = subprocess.run(command(bot), input=b"".join(script()), capture_output=True, cwd=tmp_path, timeout=60)
    assert proc.returncode == 0, proc.stderr.decode()
    replies = proc.stdout.splitlines(keepends=True)
    assert len(replies) == 3, proc.stdout
    hello = parse_reply(replies[0], Expect.HELLO)
    assert isinstance(hello, HelloReply)
    if bot in NAMES:
        assert hello.name == NAMES[bot]
    discard = parse_reply(replies[1], Expect.DISCARD)
    assert isinstance(discard, DiscardReply)
    state = new_game(2, seed=11)
    apply(state, Discard(0, tuple(sorted(discard.cards))))  # raises IllegalMove if the discard is not legal
    turn = parse_reply(replies[2], Expect.TURN)
    _, obs = first_turn()
    assert reply_to_action(turn) in legal_actions_for(obs, RULES)  # type: ignore[arg-type]
    assert b"Traceback" not in proc.stderr


@pytest.mark.parametrize("bot", ALL_BOTS)
def test_end_of_input_without_bye_is_a_clean_exit(bot: str, tmp_path: Path) -> None:
    proc = subprocess.run(
        command(bot), input=b'{"type":"hello","protocol":1}\n', capture_output=True, cwd=tmp_path, timeout=60
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert isinstance(parse_reply(proc.stdout, Expect.HELLO), HelloReply)


def test_opening_turn_plays_the_one(tmp_path: Path) -> None:
    turn = {
        "type": "turn", "game": "g1", "round": 1, "seat": 0, "hand": [1, 5, 6], "last": None, "forced": False,
        "players": [
            {"name": "a", "cards": 3, "penalty": 0, "bonus": 3, "status": "playing"},
            {"name": "b", "cards": 12, "penalty": 0, "bonus": 3, "status": "playing"},
        ],
        "history": [],
    }  # fmt: skip
    for bot in ALL_BOTS:
        proc = subprocess.run(
            command(bot), input=json.dumps(turn).encode() + b"\n", capture_output=True, cwd=tmp_path, timeout=60
        )
        assert parse_reply(proc.stdout, Expect.TURN) == PlayReply(value=1, count=1, bonus=0), bot


@pytest.mark.parametrize("bot", PYTHON_BOTS)
def test_runs_from_a_checkout_without_the_project_installed(bot: str, tmp_path: Path) -> None:
    """With site processing off (no editable install on the path), the bot finds the SDK beside itself."""
    site = sysconfig.get_paths()["purelib"]
    env = {**os.environ, "PYTHONPATH": site}
    proc = subprocess.run(
        [sys.executable, "-S", str(BOTS / bot)],
        input=b'{"type":"hello","protocol":1}\n{"type":"bye"}\n',
        capture_output=True,
        cwd=tmp_path,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr.decode()
    assert isinstance(parse_reply(proc.stdout, Expect.HELLO), HelloReply)
