"""Entrant names and bots.toml manifests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from referee.runner import parse_bot_spec
from referee.tournament import ManifestError, load_manifest, unique_names, with_unique_names


def test_unique_names_keep_the_first_and_number_the_rest() -> None:
    assert unique_names(["greedy", "random", "greedy", "greedy"]) == ["greedy", "random", "greedy-2", "greedy-3"]
    # A suffixed name that is already taken is skipped.
    assert unique_names(["a", "a-2", "a"]) == ["a", "a-2", "a-3"]
    assert unique_names([]) == []


def test_bot_files_named_by_stem_and_deduplicated(tmp_path: Path) -> None:
    for folder in ("x", "y"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "greedy.py").write_text("")
    specs = with_unique_names([parse_bot_spec(str(tmp_path / f / "greedy.py")) for f in ("x", "y")])
    assert [s.name for s in specs] == ["greedy", "greedy-2"]
    assert specs[1].cwd == tmp_path / "y"


def test_manifest_entries(tmp_path: Path) -> None:
    (tmp_path / "alpha").mkdir()
    (tmp_path / "alpha" / "bot.py").write_text("")
    (tmp_path / "beta.py").write_text("")
    (tmp_path / "bots.toml").write_text(
        """
[[bot]]
name = "first"
command = "python3 bot.py --fast"
cwd = "alpha"
env = { LEVEL = "3" }

[[bot]]
command = ["python3", "beta.py"]

[[bot]]
command = "beta.py"
"""
    )
    a, b, c = load_manifest(tmp_path / "bots.toml")
    assert a.name == "first" and a.cwd == tmp_path / "alpha" and dict(a.env) == {"LEVEL": "3"}
    assert a.argv[1:] == (str(tmp_path / "alpha" / "bot.py"), "--fast")
    assert b.name == "beta" and b.cwd == tmp_path and b.argv[1:] == (str(tmp_path / "beta.py"),)
    assert c.name == "beta" and c.argv == (sys.executable, str(tmp_path / "beta.py"))
    assert [s.name for s in with_unique_names([a, b, c])] == ["first", "beta", "beta-2"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[[bot]]\ncommand = "python3 x.py"\nenv = "A=1"\n', "bot 1: env must be a table of strings"),
        ('[[bot]]\ncommand = "python3 x.py"\n[[bot]]\nname = "b"\n', "bot 2 (b): command is missing"),
        ("[[bot]]\ncommand = []\n", "bot 1: command is empty"),
        ('[[bot]]\ncommand = "python3 \'x.py"\n', "bot 1: command cannot be split"),
        ('[[bot]]\nname = "a/b"\ncommand = "python3 x.py"\n', "name must be a non-empty string without '/'"),
        ("bot = 3\n", "no entrants"),
    ],
)
def test_manifest_errors_name_entrant_and_field(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "x.py").write_text("")
    path = tmp_path / "bots.toml"
    path.write_text(text)
    with pytest.raises(ManifestError) as info:
        load_manifest(path)
    assert message in str(info.value)
    assert str(path) in str(info.value) and "\n" not in str(info.value)
