"""``referee ladder`` from the shell, and ladder.toml: defaults written once, every bad key one line."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli import main
from referee.ladder import ConfigFileError, LadderConfig, default_toml, load_config


def test_the_written_ladder_toml_holds_every_default() -> None:
    assert LadderConfig.model_validate(tomllib.loads(default_toml())) == LadderConfig()


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[serve]\njob = 3\n", "serve.job: unknown key"),
        ("[games]\ntable_sizes = [5]\n", "each size is 2 to 4"),
        ("[games]\ntable_sizes = [2, 3]\ntable_weights = [1]\n", "one weight per table size"),
        ("[rules]\nhand_size = 20\n", "too large for 4 players"),
        ('[limits]\nmemory = "lots"\n', "not a size"),
        ("[matchmaking]\nwide_share = 2\n", "wide_share"),
        ("not toml [", "is not TOML"),
    ],
)
def test_bad_settings_are_one_line_naming_the_key(tmp_path: Path, text: str, words: str) -> None:
    path = tmp_path / "ladder.toml"
    path.write_text(text)
    with pytest.raises(ConfigFileError) as err:
        load_config(path)
    assert words in str(err.value) and "\n" not in str(err.value) and str(path) in str(err.value)


def test_init_add_submit_status_from_the_shell(tmp_path: Path) -> None:
    runner = CliRunner()
    lad = tmp_path / "lad"
    out = runner.invoke(main, ["ladder", "init", str(lad)])
    assert out.exit_code == 0 and "admin) token, shown once: lt-admin-" in out.output
    out = runner.invoke(main, ["ladder", "add", str(lad), "alice"])
    assert out.exit_code == 0 and "token, shown once: lt-1-" in out.output
    bot = tmp_path / "bot.py"
    bot.write_text("print('hi')\n")
    out = runner.invoke(main, ["ladder", "submit", str(lad), "alice", str(bot)])
    assert out.exit_code == 0 and "alice#1 submitted" in out.output
    out = runner.invoke(main, ["ladder", "status", str(lad), "--json"])
    status = json.loads(out.output)
    assert status["gate"][0]["key"] == "alice#1" and status["serving"] is None
    out = runner.invoke(main, ["ladder", "status", str(lad)])
    assert out.exit_code == 0 and "at the gate: alice#1 (submitted)" in out.output


def test_refusals_are_one_line_and_status_2(tmp_path: Path) -> None:
    runner = CliRunner()
    lad = tmp_path / "lad"
    runner.invoke(main, ["ladder", "init", str(lad)])
    cases = [
        (["ladder", "init", str(lad)], "holds a ladder already"),
        (["ladder", "status", str(tmp_path)], "not a ladder folder"),
        (["ladder", "submit", str(lad), "nobody", str(tmp_path)], "'nobody': add it with referee ladder"),
        (["ladder", "add", str(lad), "a/b"], "entrant name"),
        (["ladder", "token", str(lad)], "give an entrant NAME or --admin"),
    ]
    for args, words in cases:
        out = runner.invoke(main, args)
        assert out.exit_code == 2, out.output
        lines = out.output.strip().splitlines()
        assert len(lines) == 1 and words in lines[0] and lines[0].startswith("referee ladder "), out.output
