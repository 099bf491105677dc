"""Bots on node and the JVM run under the default limits (address space, processes) in both sandbox modes."""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from referee.runner import parse_bot_spec
from tests.toolchains import NEEDS_NODE

from .helpers import BOTS, MODES, assert_verified, bot, config, new_mark, processes_with, run_games

SAMPLE_JS = Path(__file__).resolve().parents[2] / "sample_bots" / "js_bot.js"


@pytest.mark.parametrize("mode", MODES)
@NEEDS_NODE
@pytest.mark.skipif(shutil.which("java") is None, reason="java absent")
def test_node_and_jvm_bots_play_under_default_limits(tmp_path: Path, mode: str) -> None:
    mark = new_mark()
    env = {"REFEREE_TEST_MARK": mark}
    java = replace(parse_bot_spec(f"java {BOTS / 'JavaBot.java'}"), env=env)
    js = replace(parse_bot_spec(str(SAMPLE_JS)), env=env)
    specs = [java, js, bot("honest", mark)]
    # The default limits (8 GiB address space, 256 processes); a generous start-up for the JVM's compile.
    (result,), players = run_games(specs, config(mode, startup_time=30.0), tmp_path, seeds=[3])
    assert result.faults == ()
    assert players[0].hello is not None and players[0].hello.name == "java"
    assert_verified(result)
    assert processes_with(mark) == []
