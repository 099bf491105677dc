"""BOT arguments and runner options: what runs how, and one-line refusals."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from referee.runner import BotSpec, BotSpecError, ConfigError, Limits, RunnerConfig, parse_bot_spec
from tests.toolchains import NEEDS_NODE


def test_python_file_runs_with_this_python(tmp_path: Path) -> None:
    bot = tmp_path / "greedy.py"
    bot.write_text("")
    spec = parse_bot_spec(str(bot))
    assert spec.argv == (sys.executable, str(bot))
    assert spec.name == "greedy" and spec.cwd == tmp_path


@NEEDS_NODE
def test_js_file_runs_with_node(tmp_path: Path) -> None:
    bot = tmp_path / "bot.js"
    bot.write_text("")
    spec = parse_bot_spec(str(bot), name="jsbot")
    assert Path(spec.argv[0]).name == "node" and spec.argv[1] == str(bot) and spec.name == "jsbot"


def test_executable_runs_directly_and_plain_file_is_refused(tmp_path: Path) -> None:
    bot = tmp_path / "mybot"
    bot.write_text("#!/bin/sh\n")
    with pytest.raises(BotSpecError, match=r"neither \.py, \.js nor executable"):
        parse_bot_spec(str(bot))
    os.chmod(bot, 0o755)
    assert parse_bot_spec(str(bot)).argv == (str(bot),)


def test_command_line_is_split_like_a_shell(tmp_path: Path) -> None:
    script = tmp_path / "my bot.py"
    script.write_text("")
    spec = parse_bot_spec(f"python3 -u '{script}' --level 'very hard'")
    assert Path(spec.argv[0]).name.startswith("python3")
    assert spec.argv[1:] == ("-u", str(script), "--level", "very hard")
    assert spec.cwd == tmp_path and spec.name == "my bot"


def test_missing_things_are_one_clear_line(tmp_path: Path) -> None:
    with pytest.raises(BotSpecError, match="not found: give the path of a bot file"):
        parse_bot_spec(str(tmp_path / "nothing.py"))
    with pytest.raises(BotSpecError, match="is a folder"):
        parse_bot_spec(str(tmp_path))
    with pytest.raises(BotSpecError, match="program 'no-such-program-xyz' not found"):
        parse_bot_spec("no-such-program-xyz --flag")
    with pytest.raises(BotSpecError, match="empty BOT"):
        parse_bot_spec("  ")


def test_specs_are_hashable_values(tmp_path: Path) -> None:
    bot = tmp_path / "a.py"
    bot.write_text("")
    assert len({parse_bot_spec(str(bot)), parse_bot_spec(str(bot))}) == 1


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"move_time": 0}, "move-time must be a positive number"),
        ({"startup_time": -1}, "startup-time must be a positive number"),
        ({"time_bank": -0.5}, "time-bank must be zero or more"),
        ({"sandbox": "docker"}, "sandbox must be auto, bwrap or none"),
        ({"stderr_cap": -1}, "stderr cap must be zero or more"),
    ],
)
def test_config_refuses_impossible_values(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        RunnerConfig(**kwargs)  # type: ignore[arg-type]


def test_limits_refuse_non_positive_values() -> None:
    with pytest.raises(ConfigError, match="limit processes must be a positive integer"):
        Limits(processes=0)
    assert Limits(address_space=None).address_space is None


def test_auto_without_bwrap_says_once_that_bots_run_bare(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from referee.runner import sandbox

    monkeypatch.setattr(sandbox, "bwrap_path", lambda: None)
    monkeypatch.setattr(sandbox, "_notice_given", False)
    assert sandbox.resolve_mode(RunnerConfig(sandbox="auto")) == "none"
    assert sandbox.resolve_mode(RunnerConfig(sandbox="auto")) == "none"
    err = capsys.readouterr().err
    assert err.count("bubblewrap (bwrap) not found") == 1
    assert "bots run with resource limits and process groups only" in err
    with pytest.raises(BotSpecError, match="needs bubblewrap"):
        sandbox.resolve_mode(RunnerConfig(sandbox="bwrap"))
    assert sandbox.resolve_mode(RunnerConfig(sandbox="none")) == "none"


def test_a_bwrap_that_cannot_sandbox_is_refused_or_skipped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bwrap that fails (no user namespaces in a container): auto falls back with a notice, bwrap refuses."""
    from referee.runner import sandbox

    fake = tmp_path / "bwrap"
    fake.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr(sandbox, "bwrap_path", lambda: str(fake))
    monkeypatch.setattr(sandbox, "_notice_given", False)
    assert sandbox.resolve_mode(RunnerConfig(sandbox="auto")) == "none"
    assert "not usable here: bwrap: No permissions to create new namespace" in capsys.readouterr().err
    with pytest.raises(BotSpecError, match="cannot make a sandbox here"):
        sandbox.resolve_mode(RunnerConfig(sandbox="bwrap"))


def test_a_bwrap_that_cannot_load_the_seccomp_filter_runs_without_it_or_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """bwrap works but cannot load the filter (a kernel without seccomp): auto keeps bubblewrap, says once that
    bots may signal each other through file locks, and starts bots without the filter; bwrap refuses."""
    from referee.runner import sandbox

    fake = tmp_path / "bwrap"
    fake.write_text(
        "#!/bin/sh\ncase \"$*\" in *--seccomp*) echo 'bwrap: prctl(PR_SET_SECCOMP): Invalid argument' >&2; exit 1;;"
        " esac\nexit 0\n"
    )
    fake.chmod(0o755)
    monkeypatch.setattr(sandbox, "bwrap_path", lambda: str(fake))
    monkeypatch.setattr(sandbox, "_filter_notice_given", False)
    assert sandbox.resolve_mode(RunnerConfig(sandbox="auto")) == "bwrap"
    assert sandbox.resolve_mode(RunnerConfig(sandbox="auto")) == "bwrap"
    err = capsys.readouterr().err
    assert err.count("the seccomp filter cannot be used here (bwrap: prctl(PR_SET_SECCOMP): Invalid argument)") == 1
    assert not sandbox.seccomp_usable()
    with pytest.raises(BotSpecError, match="seccomp filter that closes file locks between bots cannot be used"):
        sandbox.resolve_mode(RunnerConfig(sandbox="bwrap"))


def test_a_bot_whose_folder_would_be_the_root_is_refused_in_one_line() -> None:
    """A command line without a script runs in the current folder: started from /, the sandbox would show the
    bot the whole machine."""
    from referee.runner.sandbox import check_hidden

    spec = BotSpec("rooted", ("/bin/true",), Path("/"))
    with pytest.raises(BotSpecError, match="rooted's folder would be / and show it the whole machine") as info:
        check_hidden(spec, ())
    assert "\n" not in str(info.value)
