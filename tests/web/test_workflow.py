"""examples/ladder-submit-workflow.yml: its submit step, run as the workflow runs it, against a running server."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import yaml

from referee.ladder import Ladder
from tests.web.ladderdata import ROOT, Built

WORKFLOW = ROOT / "examples" / "ladder-submit-workflow.yml"


def submit_step() -> tuple[dict[str, str], str]:
    wf = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    triggers = wf[True] if True in wf else wf["on"]  # YAML 1.1 reads the key `on` as true
    assert triggers["push"]["branches"] == ["main"]
    step = next(s for s in wf["jobs"]["submit"]["steps"] if s.get("name") == "Submit to the ladder")
    return wf["env"], step["run"]


def test_the_workflow_submits_the_bot_folder(own_ladder: Built, live_server, tmp_path: Path) -> None:
    server = live_server()
    env, script = submit_step()
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / "bot.toml").write_text('command = "python bot.py"\n', encoding="utf-8")
    (repo / "bot.py").write_bytes((ROOT / "sample_bots" / "greedy.py").read_bytes() + b"\n# merged\n")
    (repo / ".git").mkdir()  # left out of the archive
    (repo / ".git" / "HEAD").write_text("ref: refs/heads/main\n", encoding="utf-8")
    bin_dir = Path(sys.executable).parent
    full = {
        **os.environ, **env, "WAIT": "1", "LADDER_URL": server.url, "LADDER_TOKEN": own_ladder.tokens["carol"],
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
    }  # fmt: skip
    done = subprocess.run(["bash", "-e", "-c", script], cwd=repo, env=full, capture_output=True, text=True, timeout=120)
    # nothing plays the gate here, so the wait runs out: the job fails, after the submission went through
    assert done.returncode == 2, done.stdout + done.stderr
    assert done.stdout.strip() == f"carol#3 submitted to {server.url}: submitted"
    assert "carol#3 is still submitted after 1 s" in done.stderr
    with Ladder.open(own_ladder.root) as ladder:
        v = ladder.version("carol", 3)
        assert v.command == ("python", "bot.py") and v.files == 2
