"""The sample bots' strength knob, --noise P (the SDK's: a sample bot copied alone runs): a bad value is one line;
more noise plays weaker."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_bots"


@pytest.mark.parametrize("bot", ["greedy.py", "heuristic.py", "random_bot.py", "montecarlo.py"])
@pytest.mark.parametrize("value", ["2", "-0.1", "lots"])
def test_a_bad_noise_is_one_line(bot: str, value: str) -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "sample_bots" / bot), "--noise", value],
        input="",
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert len(done.stderr.strip().splitlines()) == 1 and "--noise" in done.stderr


def test_more_noise_plays_weaker(tmp_path: Path) -> None:
    greedy = ROOT / "sample_bots" / "greedy.py"
    clean, noisy = (f"{sys.executable} {greedy} --noise {p}" for p in (0, 1))
    out = tmp_path / "out"
    args = ["--games", "12", "--seed", "4", "--sandbox", "none", "--jobs", "2", "--out", out]
    done = subprocess.run(
        [sys.executable, "-m", "referee", "run", clean, noisy, *args], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    data = json.loads((out / "standings.json").read_text())
    rows = {e["name"]: e for e in data["entrants"]}
    assert set(rows) == {"greedy", "greedy-2"} and not any(e["forfeits"] for e in rows.values())
    assert rows["greedy"]["matchpoints"] > rows["greedy-2"]["matchpoints"], "noise 0 beats noise 1"
    assert rows["greedy"]["relative_score"] < rows["greedy-2"]["relative_score"]


@pytest.mark.parametrize("bot", ["random_bot.py", "greedy.py", "heuristic.py", "montecarlo.py"])
def test_a_sample_bot_copied_alone_runs(tmp_path: Path, bot: str) -> None:
    """Copied on its own (it needed the noise/ folder beside it and crashed at import), a sample bot answers hello:
    its --noise knob is the SDK's."""
    shutil.copy(SAMPLES / bot, tmp_path / bot)
    done = subprocess.run(
        [sys.executable, bot, "--noise", "0.1"],
        input='{"type":"hello","protocol":1}\n{"type":"bye"}\n',
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[0])["type"] == "hello"
