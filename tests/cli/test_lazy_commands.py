"""The commands are loaded lazily: ``referee --help`` and ``referee COMMAND --help`` import no engine, runner,
pydantic model or report (that is what keeps them fast), and the constants the light command modules spell out
agree with the modules they stand in for."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import fields

import click
import pytest

from protocol.schema import MESSAGES
from referee.check import DEFAULT_GAMES
from referee.cli import app, check_cmd, options, protocol_cmd
from referee.runner import Limits
from referee.runner.config import SandboxMode

#: What ``--help`` may load of the packages below: the root of the errors (``referee.settings`` defines its
#: ``ConfigError`` on it; the engine's lazy package and its errors module import nothing else: 0.6 ms), the
#: tournament's option declarations and its formats' registry (``referee run --help`` shows them), and the race's
#: progress record the race format names (a dataclass), which import nothing heavy. The last one is a package: its
#: modules are light too.
LIGHT = (
    "referee.engine",
    "referee.engine.errors",
    "referee.tournament",
    "referee.tournament.options",
    "referee.tournament.formats.race_status",
    "referee.tournament.formats",
)

HEAVY = (
    "pydantic",
    "trio",
    "rich",
    "protocol",
    "referee.engine",
    "referee.runner",
    "referee.tournament",
    "referee.check",
    "referee.report",
)

PROBE = """
import sys
from referee.cli import main
try:
    main(sys.argv[1:], prog_name="referee")
except SystemExit as exc:
    assert exc.code == 0, exc.code
light = {LIGHT!r}
heavy = sorted(
    m for m in sys.modules
    if (m.split(".")[0] in {HEAVY_ROOTS} or m.startswith({HEAVY!r}))
    and not (m in light or m.startswith(light[-1] + "."))
)
print(" ".join(heavy), file=sys.stderr)
"""


def _imported_by(*args: str) -> list[str]:
    roots = {m for m in HEAVY if "." not in m}
    code = PROBE.replace("{HEAVY_ROOTS}", repr(roots)).replace("{HEAVY!r}", repr(HEAVY))
    code = code.replace("{LIGHT!r}", repr(LIGHT))
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60, check=True)
    assert "Usage: referee" in done.stdout
    return done.stderr.split()


@pytest.mark.parametrize("command", [[], *([name] for name in app.COMMANDS), ["protocol", "schema"]])
def test_help_imports_nothing_heavy(command: list[str]) -> None:
    assert _imported_by(*command, "--help") == []


def test_every_listed_command_loads_under_its_own_name() -> None:
    ctx = click.Context(app.main)
    assert app.main.list_commands(ctx) == sorted(app.COMMANDS)
    for name in app.COMMANDS:
        command = app.main.get_command(ctx, name)
        assert isinstance(command, click.Command) and command.name == name
    assert app.main.get_command(ctx, "no-such-command") is None


def test_the_spelled_out_constants_match_their_sources() -> None:
    assert set(options.LIMIT_NAMES) - {"memory"} == {f.name for f in fields(Limits)}
    assert set(options.LIMIT_NAMES.values()) == {f.name for f in fields(Limits)}
    assert tuple(SandboxMode) == options.SANDBOX_MODES
    assert check_cmd.DEFAULT_GAMES == DEFAULT_GAMES
    assert tuple(MESSAGES) == protocol_cmd.MESSAGE_NAMES
