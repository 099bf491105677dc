"""The documents keep their promises: nothing refers to files outside the repository, and the line lengths
PROTOCOL.md states are the ones the code computes and enforces."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from protocol import MAX_SENT_LINE, longest_line
from referee.engine import STANDARD

ROOT = Path(__file__).resolve().parents[2]
#: Names of the project's background notes, which live outside the repository (spelled in pieces so that this
#: file does not match itself).
OUTSIDE = ["rulings" + ".md", "protocol" + "-v1", "architecture" + ".md", "../" + "shared", "/work/" + "shared"]


def tracked_text_files() -> list[Path]:
    done = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=False)
    if done.returncode != 0:
        pytest.skip("not a git checkout")
    out = []
    for name in done.stdout.decode().split("\0"):
        path = ROOT / name
        if name and path.is_file() and path.suffix not in {".png", ".jpg", ".ico", ".sqlite", ".jar"}:
            out.append(path)
    return out


def test_nothing_refers_to_files_outside_the_repository() -> None:
    found = []
    for path in tracked_text_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            for name in OUTSIDE:
                if name in line:
                    found.append(f"{path.relative_to(ROOT)}:{number}: {name}")
    assert found == [], "use RULES.md and PROTOCOL.md (and their sections) instead:\n" + "\n".join(found)


def test_protocol_states_the_line_limit_the_referee_enforces() -> None:
    text = " ".join((ROOT / "PROTOCOL.md").read_text(encoding="utf-8").split())
    assert f"No line the referee sends is longer than {MAX_SENT_LINE:,} bytes" in text
    standard = [longest_line(STANDARD, ["x" * 40] * seats, "g" * 32) for seats in (4, 3, 2)]
    assert f"no line is longer than **{standard[0]:,} bytes** (four seats; {standard[1]:,} with three, " in text
    assert f"{standard[2]:,} with two)" in text


def test_readme_explains_fractional_wins() -> None:
    text = " ".join((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert "a first place shared by k players" in text and "1/k of a win" in text
