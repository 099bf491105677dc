"""Bad options, entrants and manifests: one clear line on stderr, exit code 2, nothing played."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import referee


def one_line_error(result: object, *needles: str) -> str:
    assert result.returncode == 2, (result.returncode, result.stdout, result.stderr)  # type: ignore[attr-defined]
    lines = result.stderr.strip().splitlines()  # type: ignore[attr-defined]
    assert len(lines) == 1, result.stderr  # type: ignore[attr-defined]
    assert lines[0].startswith("referee run: error: ") or lines[0].startswith("referee standings: error: ")
    assert "Traceback" not in result.stderr  # type: ignore[attr-defined]
    for n in needles:
        assert n in lines[0], lines[0]
    return lines[0]


@pytest.mark.parametrize(
    ("args", "needles"),
    [
        ([], ["no entrants"]),
        (["alpha"], ["at least 2 entrants, got 1"]),
        (["alpha", "beta", "gamma", "-k", "4"], ["table size 4 is larger than the number of entrants (3)"]),
        (["alpha", "beta", "-k", "1"], ["table size must be 2 to 4, got 1"]),
        (["alpha", "beta", "--games", "0"], ["at least 1, got 0"]),
        (["alpha", "beta", "--jobs", "0"], ["--jobs must be at least 1"]),
        (["alpha", "beta", "--move-time", "0"], ["move-time must be a positive number"]),
        (["alpha", "beta", "--move-time", "0.0004"], ["move-time must be at least 0.001 seconds", "0.0004"]),
        (["alpha", "nothere"], ["nothere", "not found"]),
    ],
)
def test_bad_options(tmp_path: Path, bot_dir: Path, args: list[str], needles: list[str]) -> None:
    argv = [str(bot_dir / f"{a}.py") if a in ("alpha", "beta", "gamma") else a for a in args]
    argv = [str(bot_dir / "nothere.py") if a == "nothere" else a for a in argv]
    one_line_error(referee("run", *argv, "--out", tmp_path / "out"), *needles)
    assert not (tmp_path / "out").exists(), "nothing is created for a run that cannot start"


@pytest.mark.parametrize(
    ("manifest", "needles"),
    [
        ('[[bot]]\nname = "a"\n', ["bot 1 (a)", "command is missing"]),
        ('[[bot]]\ncommand = "python3 alpha.py"\ncolour = "red"\n', ["bot 1", "unknown field 'colour'"]),
        ('[[bot]]\ncommand = "python3 alpha.py"\nenv = { X = 1 }\n', ["bot 1", "env must be a table of strings"]),
        ("[[bot]]\ncommand = 5\n", ["bot 1", "command must be a string or a list of strings"]),
        ('[[bot]]\ncommand = "python3 alpha.py"\ncwd = "nowhere"\n', ["bot 1", "is not a folder"]),
        ('[[bot]]\ncommand = "python3 alpha.py"\ncwd = "/"\n', ["bot 1", "cwd / is outside the manifest's folder"]),
        ('[[bot]]\ncommand = "python3 alpha.py"\ncwd = ".."\n', ["bot 1", "is outside the manifest's folder"]),
        ('[[bot]]\ncommand = "python3 /etc/passwd"\n', ["bot 1", "its folder /etc (where its script is) is outside"]),
        ('[[bot]]\ncommand = "no-such-program-xyz alpha.py"\n', ["bot 1", "'no-such-program-xyz' not found"]),
        ('[[bot]\ncommand = "x"\n', ["not valid TOML"]),
        ('title = "x"\n', ["unknown top-level key 'title'"]),
        ("", ["no entrants"]),
        ('[[bot]]\nname = ""\ncommand = "python3 alpha.py"\n', ["name must be a non-empty string"]),
        # Names an entrant chooses: a NUL (it names the stderr files: the run used to end in a traceback), escape
        # codes (shown as escapes, never acted on by the terminal), too long, spaces around, another's name.
        ('[[bot]]\nname = "a\\u0000b"\ncommand = "python3 alpha.py"\n', ["bot 1 (a\\x00b)", "printable characters"]),
        (
            '[[bot]]\nname = "e\\u001b]0;owned\\u0007"\ncommand = "python3 alpha.py"\n',
            ["bot 1 (e\\x1b]0;owned\\x07)", "no control or format character"],
        ),
        ('[[bot]]\nname = "%s"\ncommand = "python3 alpha.py"\n' % ("n" * 49), ["at most 48 printable characters"]),
        ('[[bot]]\nname = " a"\ncommand = "python3 alpha.py"\n', ["no space at either end"]),
        (
            '[[bot]]\nname = "a"\ncommand = "python3 alpha.py"\n[[bot]]\nname = "a"\ncommand = "python3 beta.py"\n',
            ["bot 2 (a): bot 1 has the name already"],
        ),
    ],
)
def test_bad_manifest(tmp_path: Path, bot_dir: Path, manifest: str, needles: list[str]) -> None:
    path = bot_dir / "bots.toml"
    path.write_text(manifest)
    one_line_error(referee("run", "--manifest", path, "--out", tmp_path / "out"), "bots.toml", *needles)


def test_missing_manifest(tmp_path: Path) -> None:
    one_line_error(referee("run", "--manifest", tmp_path / "none.toml"), "none.toml not found")


def test_resume_errors(tmp_path: Path, bot_dir: Path) -> None:
    one_line_error(referee("run", "--resume", tmp_path), "no tournament there")
    one_line_error(referee("standings", tmp_path), "holds no tournament")
    a, b = bot_dir / "alpha.py", bot_dir / "beta.py"
    out = tmp_path / "t"
    done = referee("run", a, b, "--seed", "5", "--out", out, "--move-time", "0.5", "--sandbox", "none")
    assert done.returncode == 0, done.stderr
    one_line_error(referee("run", a, b, "--seed", "6", "--out", out), "--seed was 5; now 6", "another --out")
    one_line_error(referee("run", a, bot_dir / "gamma.py", "--resume", out), "entrants were alpha, beta")
    one_line_error(referee("run", "--resume", out, "--out", tmp_path / "other"), "either --out or --resume")
    # The same options (or none) continue it: nothing left to play.
    again = referee("run", "--resume", out)
    assert again.returncode == 0 and "2/2 games already played" in again.stdout
