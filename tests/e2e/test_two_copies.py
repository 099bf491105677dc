"""Two copies of one deterministic sample bot end level, whatever order they are listed in (issue 24).

Before the seat orders of ``referee/tournament/seating.py`` every deal was played in the rotations of the listing
order, so the copy listed second always acted right after the other. Real processes of sample_bots/greedy.py (two
copies, ``a`` and ``b``) with heuristic and random_bot, listed both ways, in each format: the copies' matchpoints
intervals overlap, the standings never separate them, and their paired score difference's interval holds 0.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

SAMPLE_BOTS = Path(__file__).resolve().parents[2] / "sample_bots"

FORMATS = {
    "round-robin": ["--games", "4"],
    "balanced": ["--format", "balanced", "--tables-per-entrant", "6"],
}


def _copies(folder: Path) -> dict[str, Path]:
    folder.mkdir()
    files = {"a": "greedy.py", "b": "greedy.py", "h": "heuristic.py", "r": "random_bot.py"}
    for name, source in files.items():
        shutil.copy(SAMPLE_BOTS / source, folder / f"{name}.py")
    return {name: folder / f"{name}.py" for name in files}


def _run(bots: list[Path], out: Path, options: list[str]) -> dict[str, Any]:
    command = [sys.executable, "-m", "referee", "run", *map(str, bots), "-k", "3", "--seed", "7", "--jobs", "2"]
    command += ["--sandbox", "none", "--move-time", "5", "--out", str(out), *options]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    data: dict[str, Any] = json.loads((out / "standings.json").read_text())
    return data


def _level(data: dict[str, Any]) -> None:
    entrants = {e["name"]: e for e in data["entrants"]}
    (a_low, a_high), (b_low, b_high) = entrants["a"]["matchpoints_ci95"], entrants["b"]["matchpoints_ci95"]
    assert a_low <= b_high and b_low <= a_high, "the copies' matchpoint intervals overlap"
    names = [e["name"] for e in data["entrants"]]
    first, second = sorted((names.index("a"), names.index("b")))
    if second == first + 1:
        assert not data["entrants"][first]["separated_from_next"], "the copies are never separated"
    paired = data["head_to_head_score_diff"]["a"]["b"]
    assert paired["deals"] >= 2
    low, high = paired["score_diff_ci95"]
    assert low <= 0 <= high, "their paired score difference is level within its interval"


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_two_copies_are_level_in_both_listing_orders(tmp_path: Path, fmt: str) -> None:
    bots = _copies(tmp_path / "bots")
    listings = [[bots["a"], bots["b"], bots["h"], bots["r"]], [bots["b"], bots["h"], bots["a"], bots["r"]]]
    for i, listing in enumerate(listings):
        _level(_run(listing, tmp_path / f"out{i}", FORMATS[fmt]))
