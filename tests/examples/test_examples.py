"""The examples stay true: the templates pass `referee check`, the contest layout runs a tournament, and the
GitHub workflow's own scripts check submitted bots and run the nightly tournament."""

from __future__ import annotations

import itertools
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner

from referee.cli import main
from tests.toolchains import NEEDS_NODE  # the JavaScript template and the contest's bot.js

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
BIN = Path(sys.executable).parent


def test_every_example_folder_has_a_readme() -> None:
    for folder in (EXAMPLES, EXAMPLES / "contest", EXAMPLES / "templates"):
        text = (folder / "README.md").read_text(encoding="utf-8")
        assert len(text.split()) > 40, folder


@pytest.mark.parametrize("template", ["python_bot.py", pytest.param("js_bot.js", marks=NEEDS_NODE)])
def test_template_passes_referee_check(template: str) -> None:
    args = ["check", str(EXAMPLES / "templates" / template), "--games", "6", "--move-time", "1.0", "--json"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)  # stderr may say once that bubblewrap is missing
    assert report["passed"] and len(report["games"]) == 7


@NEEDS_NODE
@pytest.mark.parametrize("rules", ["{}", '{"discard": 0}'])
def test_templates_play_each_other_without_passing_to_the_turn_limit(tmp_path: Path, rules: str) -> None:
    """Two copies of a template that passed whenever every play cost more would pass to each other until the
    turn limit (a score in the hundreds); the templates stop passing once the table is stalled. With a
    ruleset that discards nothing, every deal still asks for (an empty) discard."""
    (tmp_path / "rules.json").write_text(rules)
    bots = [str(EXAMPLES / "templates" / t) for t in ("python_bot.py", "js_bot.js", "python_bot.py", "js_bot.js")]
    for seed in (4, 5):
        args = ["play", *bots, "--seed", str(seed), "--rules", str(tmp_path / "rules.json"), "--json"]
        result = CliRunner().invoke(main, [*args, "--log", str(tmp_path / f"g{seed}.jsonl")])
        assert result.exit_code == 0, result.output
        game = json.loads(result.stdout)
        assert game["faults"] == [] and max(game["scores"]) < 100, game


@NEEDS_NODE
def test_contest_layout_runs_a_tiny_tournament(tmp_path: Path) -> None:
    out = tmp_path / "results"
    args = ["run", "--manifest", str(EXAMPLES / "contest" / "bots.toml"), "--games", "1", "--seed", "3"]
    result = CliRunner().invoke(main, [*args, "--move-time", "1.0", "--jobs", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    standings = json.loads((out / "standings.json").read_text(encoding="utf-8"))
    assert standings["games"] == 2
    assert {row["name"] for row in standings["entrants"]} == {"steady", "sprinter"}
    assert all(not row["forfeits"] for row in standings["entrants"]), "the example bots never fault"


# ------------------------------------------------------------------------------------------------ workflow


def workflow() -> dict:  # type: ignore[type-arg]
    return yaml.safe_load((EXAMPLES / "github-workflow.yml").read_text(encoding="utf-8"))


def step(job: str, name: str) -> str:
    return next(s["run"] for s in workflow()["jobs"][job]["steps"] if s.get("name") == name)


def run_step(script: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    full = {**os.environ, **workflow()["env"], "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}", **env}
    return subprocess.run(["bash", "-e", "-c", script], cwd=cwd, env=full, capture_output=True, text=True, timeout=300)


def test_workflow_triggers_and_jobs() -> None:
    wf = workflow()
    triggers = wf[True] if True in wf else wf["on"]  # YAML 1.1 reads the key `on` as true
    assert {"pull_request", "schedule", "workflow_dispatch"} <= set(triggers)
    assert set(wf["jobs"]) == {"check", "nightly"}
    assert "referee check" in step("check", "Check each submitted bot")
    assert "referee run --manifest bots.toml" in step("nightly", "Tournament")


@pytest.fixture()
def contest(tmp_path: Path) -> Path:
    copy = tmp_path / "contest"
    shutil.copytree(EXAMPLES / "contest", copy)
    return copy


@NEEDS_NODE
def test_workflow_checks_submitted_bots(contest: Path) -> None:
    (contest / "submitted.txt").write_text("steady\nsprinter\nremoved-bot\n", encoding="utf-8")
    done = run_step(step("check", "Check each submitted bot"), contest, CHECK_GAMES="3", MOVE_TIME="1.0")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "removed-bot: removed, nothing to check" in done.stdout
    assert {p.name for p in (contest / "reports").glob("*.xml")} == {"steady.xml", "sprinter.xml"}


def test_workflow_fails_a_broken_submission(contest: Path) -> None:
    broken = contest / "bots" / "broken"
    broken.mkdir()
    (broken / "bot.py").write_text("print('hello there')\n", encoding="utf-8")
    (contest / "bots" / "empty").mkdir()
    (contest / "submitted.txt").write_text("broken\nempty\n", encoding="utf-8")
    done = run_step(step("check", "Check each submitted bot"), contest, CHECK_GAMES="3", MOVE_TIME="1.0")
    assert done.returncode == 1
    assert "FAIL  handshake" in done.stdout
    assert "::error::bots/empty has no bot.py" in done.stdout
    assert (contest / "reports" / "broken.xml").is_file()


@NEEDS_NODE
def test_workflow_nightly_tournament(contest: Path) -> None:
    done = run_step(step("nightly", "Tournament"), contest, NIGHTLY_GAMES="1", MOVE_TIME="1.0")
    assert done.returncode == 0, done.stdout + done.stderr
    assert (contest / "results" / "standings.json").is_file()


def test_race_example_makes_a_field_of_known_order_that_plays(tmp_path: Path) -> None:
    """examples/race/make_field.py: 40 entrants by default (noise 0, 0.15, 0.3, then 0.4 to 1.0 evenly), a copy of
    the sample bots inside the manifest's folder, and bots that start from that copy (no forfeit in a real race)."""
    script = EXAMPLES / "race" / "make_field.py"
    made = subprocess.run([sys.executable, script, tmp_path / "f40"], capture_output=True, text=True, timeout=60)
    assert made.returncode == 0, made.stderr
    from referee.tournament import load_manifest

    specs = load_manifest(tmp_path / "f40" / "bots.toml")
    noise = [float(s.argv[-1]) for s in specs]
    assert len(specs) == 40 and noise[:4] == [0.0, 0.15, 0.3, 0.4] and noise[-1] == 1.0
    assert all(abs(b - a - 0.6 / 36) < 1e-3 for a, b in itertools.pairwise(noise[3:]))
    assert [s.name for s in specs[:3]] == ["greedy-0", "greedy-0.15", "greedy-0.3"]
    assert all(s.cwd == tmp_path / "f40" / "sample_bots" for s in specs)

    bad = subprocess.run([sys.executable, script, tmp_path / "x", "--entrants", "3"], capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.strip().count("\n") == 0 and "at least 4" in bad.stderr

    field = tmp_path / "f6"
    assert subprocess.run([sys.executable, script, field, "--entrants", "6"], timeout=60).returncode == 0
    args = ["run", "--manifest", str(field / "bots.toml"), "--format", "race", "--top", "1", "--max-games", "100"]
    args += ["--seed", "2", "--jobs", "2", "--move-time", "5", "--out", str(field / "r")]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    standings = json.loads((field / "r" / "standings.json").read_text(encoding="utf-8"))
    assert 0 < standings["games"] == standings["race"]["games"] <= 100, "at least one round played"
    assert all(e["forfeits"] == {} for e in standings["entrants"])


def test_the_examples_readme_lists_every_template() -> None:
    """examples/README.md names every bot template and starter kit in templates/ (issue 27: it listed two)."""
    text = (EXAMPLES / "README.md").read_text(encoding="utf-8")
    templates = [p.name for p in (EXAMPLES / "templates").iterdir() if p.name != "README.md"]
    assert len(templates) >= 6
    assert [t for t in templates if f"`{t}`" not in text and f"`{t}/`" not in text] == []
