"""Every sample bot plays whole games against every other through the match runner, without a fault."""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
import trio

from referee.runner import BotSpec, GameResult, Player, RunnerConfig, parse_bot_spec, play_game, read_log
from referee.runner.verify import verify_log
from tests.toolchains import HAVE_NODE

BOTS = Path(__file__).resolve().parents[2] / "sample_bots"
FILES = ["random_bot.py", "greedy.py", "heuristic.py", "montecarlo.py", "js_bot.js"]
HAVE_BWRAP = shutil.which("bwrap") is not None


def spec(file: str) -> BotSpec:
    if file.endswith(".js") and not HAVE_NODE:
        pytest.skip("node is not installed")
    s = parse_bot_spec(str(BOTS / file))
    # Quick games: the Monte Carlo bot thinks 40 ms a move (its own cap; the deadline stays generous).
    return replace(s, env={"MONTECARLO_THINK_MS": "40"}) if file == "montecarlo.py" else s


def play(files: Sequence[str], folder: Path, seeds: Sequence[int], sandbox: str = "none") -> list[GameResult]:
    cfg = RunnerConfig(move_time=2.0, startup_time=20.0, sandbox=sandbox, grace=1.0)  # type: ignore[arg-type]
    specs = [spec(f) for f in files]

    async def main() -> list[GameResult]:
        players = [Player(s, cfg, folder / f"seat{i}.{s.name}.stderr.log") for i, s in enumerate(specs)]
        try:
            return [
                await play_game(players, game_id=f"g{seed}", seed=seed, log_path=folder / f"g{seed}.jsonl")
                for seed in seeds
            ]
        finally:
            for p in players:
                await p.aclose()

    return trio.run(main)


def assert_clean(results: list[GameResult], folder: Path) -> None:
    for result in results:
        assert result.faults == (), [f"{f.seat} {f.kind}: {f.detail}" for f in result.faults]
        assert result.forfeits == ()
        assert result.log_path is not None
        verdict = verify_log(read_log(result.log_path))
        assert verdict.ok, verdict.message
    for log in folder.glob("*.stderr.log"):
        assert "Traceback" not in log.read_text(errors="replace"), log.name
        assert "[sdk]" not in log.read_text(errors="replace"), log.name  # no SDK fallback was needed


@pytest.mark.parametrize(("a", "b"), [pytest.param(a, b, id=f"{a}-{b}") for a, b in itertools.combinations(FILES, 2)])
def test_every_pair_plays_whole_games_both_ways(a: str, b: str, tmp_path: Path) -> None:
    results = play([a, b], tmp_path, seeds=[1])
    results += play([b, a], tmp_path, seeds=[2])
    assert_clean(results, tmp_path)


def test_four_at_a_table_several_games_in_one_process_each(tmp_path: Path) -> None:
    results = play(["montecarlo.py", "js_bot.js", "heuristic.py", "greedy.py"], tmp_path, seeds=[3, 4])
    results += play(["random_bot.py", "heuristic.py", "js_bot.js"], tmp_path, seeds=[5])
    assert_clean(results, tmp_path)


@pytest.mark.sandbox
@pytest.mark.skipif(not HAVE_BWRAP, reason="bwrap is not installed")
def test_sample_bots_play_inside_the_bubblewrap_sandbox(tmp_path: Path) -> None:
    results = play(["greedy.py", "js_bot.js", "montecarlo.py"], tmp_path, seeds=[6], sandbox="bwrap")
    assert_clean(results, tmp_path)
