"""Entrant names and bots.toml manifests."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from referee.runner import parse_bot_spec
from referee.runner.sandbox import entrant_paths
from referee.tournament import ManifestError, load_manifest, name_entrants, unique_names, with_unique_names


def test_unique_names_keep_the_first_and_number_the_rest() -> None:
    assert unique_names(["greedy", "random", "greedy", "greedy"]) == ["greedy", "random", "greedy-2", "greedy-3"]
    # A suffixed name that is already taken is skipped.
    assert unique_names(["a", "a-2", "a"]) == ["a", "a-2", "a-3"]
    assert unique_names([]) == []


def test_bot_files_named_by_stem_and_colliding_stems_by_folder(tmp_path: Path) -> None:
    for folder in ("x", "y"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "greedy.py").write_text("")
    (tmp_path / "random_bot.py").write_text("")
    files = [tmp_path / "x" / "greedy.py", tmp_path / "y" / "greedy.py", tmp_path / "random_bot.py"]
    specs, notes = name_entrants([parse_bot_spec(str(f)) for f in files])
    assert [s.name for s in specs] == ["x", "y", "random_bot"]
    assert specs[1].cwd == tmp_path / "y"
    assert notes == ["2 entrants are called 'greedy' (their file's name); each takes its folder's name instead: x, y"]


def test_contest_layout_names_each_entrant_after_its_folder(tmp_path: Path) -> None:
    """``referee run bots/*/bot.py``: every file is bot.py, so the folders name the entrants."""
    people = ["carol", "alice", "bob"]
    for person in people:
        (tmp_path / "bots" / person).mkdir(parents=True)
        (tmp_path / "bots" / person / "bot.py").write_text("")
    specs, notes = name_entrants([parse_bot_spec(str(tmp_path / "bots" / p / "bot.py")) for p in people])
    assert [s.name for s in specs] == people
    assert len(notes) == 1 and "3 entrants are called 'bot'" in notes[0] and notes[0].endswith("carol, alice, bob")


def test_colliding_names_that_folders_cannot_tell_apart_are_numbered(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b" / "a").mkdir(parents=True)
    (tmp_path / "a" / "bot.py").write_text("")
    (tmp_path / "b" / "a" / "bot.py").write_text("")
    (tmp_path / "same.py").write_text("")
    # The same bot twice: numbered, without a word.
    twice = [parse_bot_spec(str(tmp_path / "same.py"))] * 2
    specs, notes = name_entrants(twice)
    assert [s.name for s in specs] == ["same", "same-2"] and notes == []
    # Both folders are called 'a': numbered too, and said so.
    specs, notes = name_entrants(
        [parse_bot_spec(str(tmp_path / "a" / "bot.py")), parse_bot_spec(str(tmp_path / "b" / "a" / "bot.py"))]
    )
    assert [s.name for s in specs] == ["bot", "bot-2"]
    assert notes == [
        "2 entrants are called 'bot' and their folders' names cannot tell them apart (alike, or another entrant's); "
        "they are numbered bot, bot-2, ... (give each a name in a bots.toml manifest)"
    ]
    # A folder's name that another entrant already has: numbered, not two entrants of one name.
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "bot.py").write_text("")
    (tmp_path / "c.py").write_text("")
    specs, _ = name_entrants(
        [
            parse_bot_spec(str(tmp_path / "a" / "bot.py")),
            parse_bot_spec(str(tmp_path / "c" / "bot.py")),
            parse_bot_spec(str(tmp_path / "c.py")),
        ]
    )
    assert [s.name for s in specs] == ["bot", "bot-2", "c"]


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


def test_a_bot_file_with_arguments_runs_with_the_referees_own_python(tmp_path: Path) -> None:
    """``command = "greedy.py --noise 0.2"`` runs the file as a lone ``greedy.py`` would (this Python, whose
    packages hold the SDK; a copy of the sample bots outside a checkout finds it there), with its arguments."""
    (tmp_path / "bots").mkdir()
    (tmp_path / "bots" / "greedy.py").write_text("")
    (tmp_path / "bots.toml").write_text(
        '[[bot]]\nname = "g"\ncommand = "greedy.py --noise 0.2"\ncwd = "bots"\n'
        '[[bot]]\ncommand = "bots/greedy.py --noise 1"\n'
    )
    a, b = load_manifest(tmp_path / "bots.toml")
    assert a.argv == (sys.executable, str(tmp_path / "bots" / "greedy.py"), "--noise", "0.2")
    assert a.name == "g" and a.cwd == tmp_path / "bots"
    assert b.argv == (sys.executable, str(tmp_path / "bots" / "greedy.py"), "--noise", "1")
    assert b.name == "greedy" and b.cwd == tmp_path / "bots"


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


def test_a_command_word_too_long_for_a_file_name_is_no_file(tmp_path: Path) -> None:
    """A word over the system's 255 bytes for a file name (an inline program, say) is looked up as a file and found
    to be none: the lookup's ENAMETOOLONG ended ``referee run`` in a traceback."""
    (tmp_path / "x.py").write_text("")
    long = "z" * 300
    (tmp_path / "bots.toml").write_text(
        f'[[bot]]\nname = "a"\ncommand = ["python3", "x.py", "./{long}"]\n'
        f'[[bot]]\nname = "b"\ncommand = ["python3", "-c", "{long}"]\n'
    )
    a, b = load_manifest(tmp_path / "bots.toml")
    assert a.argv[-1] == f"./{long}" and b.argv[-1] == long and b.cwd == tmp_path
    assert str(tmp_path / "x.py") in entrant_paths([a, b])
    spec = parse_bot_spec(f"python3 {long}")
    assert spec.argv[-1] == long


def test_a_bot_file_name_longer_than_a_manifest_name_may_be_is_cut(tmp_path: Path) -> None:
    """A bot file of a 200-character name: the entrant's name (and so its stderr log's file name) is cut to
    NAME_MAX characters, said in a note; two names that agree up to the cut are numbered apart."""
    from referee.tournament.entrants import NAME_MAX

    long = ["x" * 200 + "a", "x" * 200 + "b"]
    for stem in long:
        (tmp_path / f"{stem}.py").write_text("")
    specs, notes = name_entrants([parse_bot_spec(str(tmp_path / f"{stem}.py")) for stem in long])
    assert [s.name for s in specs] == ["x" * NAME_MAX, "x" * NAME_MAX + "-2"]
    assert len(notes) == 2 and all(f"longer than {NAME_MAX} characters" in n for n in notes)


def _helper(home: Path) -> Path:
    """An executable outside the contest, in a ``bin`` folder of a home folder that holds a secret."""
    (home / "bin").mkdir(parents=True)
    (home / "deal-secret.txt").write_text("the organiser's secret\n")
    helper = home / "bin" / "helper"
    helper.write_text("#!/bin/sh\nexec ls -R ..\n")
    helper.chmod(0o755)
    return helper


@pytest.mark.parametrize("form", ["list", "string", "relative"])
def test_a_command_outside_the_contest_runs_only_if_it_is_a_system_program(tmp_path: Path, form: str) -> None:
    """``command = ["<home>/bin/helper"]``: the sandbox would show the program's folder and, for a ``bin`` folder,
    the one above it: the whole home folder with what the organiser keeps there. Refused in one line; a system
    program (``/bin/sh``, the referee's own Python) is not."""
    helper = _helper(tmp_path / "home")
    contest = tmp_path / "contest"
    (contest / "mine").mkdir(parents=True)
    (contest / "mine" / "bot.sh").write_text("")
    command = {
        "list": f'["{helper}"]',
        "string": f'"{helper} bot.sh"',
        "relative": '"../../home/bin/helper"',
    }[form]
    (contest / "bots.toml").write_text(f'[[bot]]\nname = "m"\ncommand = {command}\ncwd = "mine"\n')
    with pytest.raises(ManifestError) as refused:
        load_manifest(contest / "bots.toml")
    message = str(refused.value)
    assert "\n" not in message and f"program {helper} is neither in the entrant's folder" in message
    (contest / "other").mkdir()
    (contest / "bots.toml").write_text(
        '[[bot]]\nname = "sh"\ncommand = "/bin/sh bot.sh"\ncwd = "mine"\n'
        f'[[bot]]\nname = "py"\ncommand = ["{sys.executable}", "-c", "pass"]\ncwd = "other"\n'
    )
    assert [s.name for s in load_manifest(contest / "bots.toml")] == ["sh", "py"]


def test_a_cwd_in_another_entrants_folder_is_refused(tmp_path: Path) -> None:
    """An entrant whose folder is another's (named directly, through a symbolic link in its own folder, or a folder
    inside it) would see that entrant's other files: refused in one line naming both."""
    (tmp_path / "alice").mkdir()
    (tmp_path / "alice" / "bot.py").write_text("")
    (tmp_path / "alice" / "strategy").mkdir()
    (tmp_path / "mallory").mkdir()
    (tmp_path / "mallory" / "peek").symlink_to(tmp_path / "alice")
    alice = '[[bot]]\nname = "alice"\ncommand = "bot.py"\ncwd = "alice"\n'
    for cwd in ("alice", "mallory/peek", "alice/strategy", "mallory/peek/strategy"):
        (tmp_path / "bots.toml").write_text(
            alice + f'[[bot]]\nname = "mallory"\ncommand = ["python3", "-c", "print(1)"]\ncwd = "{cwd}"\n'
        )
        with pytest.raises(ManifestError) as refused:
            load_manifest(tmp_path / "bots.toml")
        message = str(refused.value)
        assert "\n" not in message and "bot 2 (mallory): its folder" in message
        assert "the folder of bot 1 (alice), so it would see that entrant's files" in message


def test_entrants_running_their_own_files_may_share_a_folder(tmp_path: Path) -> None:
    """One-file entrants beside each other (each runs a file of its own there: the sandbox covers each one's files
    from the others), copies of one bot with different arguments (examples/race), and a folder bot kept in a
    subfolder of the one-file entrants' folder are no entrant's folder taken by another."""
    bots = tmp_path / "bots"
    (bots / "folderbot").mkdir(parents=True)
    for name in ("a.py", "b.py", "greedy.py", "folderbot/bot.py"):
        (bots / name).write_text("")
    (tmp_path / "bots.toml").write_text(
        '[[bot]]\ncommand = "bots/a.py"\n[[bot]]\ncommand = "bots/b.py"\n'
        '[[bot]]\nname = "g1"\ncommand = "greedy.py --noise 0.1"\ncwd = "bots"\n'
        '[[bot]]\nname = "g2"\ncommand = "greedy.py --noise 0.2"\ncwd = "bots"\n'
        '[[bot]]\nname = "folderbot"\ncommand = "bot.py"\ncwd = "bots/folderbot"\n'
    )
    assert [s.name for s in load_manifest(tmp_path / "bots.toml")] == ["a", "b", "g1", "g2", "folderbot"]
