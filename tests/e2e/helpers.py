"""Helpers of the end-to-end tests: real bot files from tests/bots, both sandbox modes, leftover checks."""

from __future__ import annotations

import os
import shutil
import uuid
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
import trio

from referee.runner import BotSpec, GameResult, Limits, Player, RunnerConfig, parse_bot_spec, play_game, read_log
from referee.runner.limits import make_cgroup, remove_cgroup
from referee.runner.verify import verify_log

BOTS = Path(__file__).resolve().parents[1] / "bots"
HAVE_BWRAP = shutil.which("bwrap") is not None
MODES = [
    pytest.param("none", id="none"),
    pytest.param(
        "bwrap", id="bwrap", marks=[pytest.mark.sandbox, pytest.mark.skipif(not HAVE_BWRAP, reason="bwrap absent")]
    ),
]


def pids_enforced(mode: str) -> bool:
    """True when the process limit holds here: a pids cgroup can be made, or (not root) inside bwrap."""
    probe = make_cgroup(Limits())
    if probe is not None:
        remove_cgroup(probe)
        return True
    return os.geteuid() != 0 and mode == "bwrap"


def bot(name: str, mark: str, **env: str) -> BotSpec:
    """The test bot ``tests/bots/<name>.py``, tagged with ``mark`` in its environment (to find its processes)."""
    spec = parse_bot_spec(str(BOTS / f"{name}.py"))
    return replace(spec, env={"REFEREE_TEST_MARK": mark, **env})


def new_mark() -> str:
    return f"refereetest-{uuid.uuid4().hex}"


def processes_with(mark: str) -> list[int]:
    """Every process on the machine whose environment holds ``mark`` (found by scanning /proc)."""
    needle = f"REFEREE_TEST_MARK={mark}".encode()
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as f:
                if needle in f.read():
                    found.append(int(entry))
        except OSError:
            continue
    return found


def config(mode: str, **overrides: object) -> RunnerConfig:
    """Test settings: a generous move time (a loaded CI machine must not turn honest moves into timeouts); tests
    of timeouts set a short one for the misbehaving seat only."""
    base: dict[str, object] = {"move_time": 5.0, "startup_time": 10.0, "sandbox": mode, "grace": 0.3}
    base.update(overrides)
    return RunnerConfig(**base)  # type: ignore[arg-type]


async def play_games(
    specs: Sequence[BotSpec], cfg: RunnerConfig | Sequence[RunnerConfig], folder: Path, *, seeds: Sequence[int] = (1,)
) -> tuple[list[GameResult], list[Player]]:
    """Play one game per seed with the same players (processes reused), then close every player.

    ``cfg`` is one config for every seat or one per seat."""
    cfgs = [cfg] * len(specs) if isinstance(cfg, RunnerConfig) else list(cfg)
    players = [Player(s, cfgs[i], folder / f"seat{i}.{s.name}.stderr.log") for i, s in enumerate(specs)]
    results = []
    try:
        for n, seed in enumerate(seeds):
            results.append(await play_game(players, game_id=f"g{n}", seed=seed, log_path=folder / f"g{n}.jsonl"))
    finally:
        for p in players:
            await p.aclose()
    return results, players


def run_games(
    specs: Sequence[BotSpec], cfg: RunnerConfig | Sequence[RunnerConfig], folder: Path, *, seeds: Sequence[int] = (1,)
) -> tuple[list[GameResult], list[Player]]:
    return trio.run(lambda: play_games(specs, cfg, folder, seeds=seeds))


def assert_verified(result: GameResult) -> None:
    assert result.log_path is not None
    verdict = verify_log(read_log(result.log_path))
    assert verdict.ok, verdict.message
