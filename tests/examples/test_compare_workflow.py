"""examples/compare-workflow.yml stays true: its Compare step, run as GitHub would, passes a pull request whose
bot is stronger than the base branch's, fails one whose bot is not, and writes the verdict to the summary."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
WORKFLOW = ROOT / "examples" / "compare-workflow.yml"
BIN = Path(sys.executable).parent


def workflow() -> dict:  # type: ignore[type-arg]
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def compare_step() -> str:
    return next(s["run"] for s in workflow()["jobs"]["compare"]["steps"] if s.get("name") == "Compare")


def test_workflow_checks_out_both_versions_and_compares_them() -> None:
    wf = workflow()
    triggers = wf[True] if True in wf else wf["on"]  # YAML 1.1 reads the key `on` as true
    assert "pull_request" in triggers
    paths = [s.get("with", {}).get("path") for s in wf["jobs"]["compare"]["steps"]]
    assert "pr" in paths and "main" in paths
    assert 'referee compare "pr/$BOT" "main/$BOT"' in compare_step()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("pr", "main", "status", "verdict"),
    [("greedy", "random_bot", 0, "stronger"), ("random_bot", "greedy", 1, "not stronger")],
)
def test_the_compare_step_passes_a_stronger_bot_and_fails_a_weaker_one(
    tmp_path: Path, pr: str, main: str, status: int, verdict: str
) -> None:
    for folder, bot in (("pr", pr), ("main", main)):
        (tmp_path / folder).mkdir()
        shutil.copy(ROOT / "sample_bots" / f"{bot}.py", tmp_path / folder / "bot.py")
    summary = tmp_path / "summary.md"
    env = {**os.environ, **workflow()["env"], "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    env |= {"TABLE_SIZE": "2", "MOVE_TIME": "0.5", "GITHUB_STEP_SUMMARY": str(summary)}
    env["COMPARE_OPTIONS"] = "--panel random_bot --sandbox none --seed 5"
    done = subprocess.run(
        ["bash", "-e", "-c", compare_step()], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == status, done.stdout + done.stderr
    assert summary.read_text().startswith(f"### referee compare: {verdict}\n")
    assert "confidence sequence [" in summary.read_text()
    assert (tmp_path / "compare-results" / "results.sqlite").is_file()
    assert "forfeit" not in done.stdout, "both versions started and played"
    if status == 1:
        assert "::error::the pull request's bot is not stronger" in done.stdout
