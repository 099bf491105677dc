"""Options shared by several commands: how bots run (``referee.settings.BotSettings``, whose defaults they show)
and ruleset files (``--rules``)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import fields
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from referee.settings import BotSettings, ClockMode, Limits, SandboxMode

if TYPE_CHECKING:
    from referee.engine import Ruleset

F = TypeVar("F", bound=Callable[..., Any])

#: ``--limit`` names → ``Limits`` fields (``memory`` is the address-space limit).
LIMIT_NAMES = {f.name: f.name for f in fields(Limits)} | {"memory": "address_space"}
#: ``--sandbox`` values.
SANDBOX_MODES = tuple(m.value for m in SandboxMode)
_SIZE = re.compile(r"^(\d+)\s*([kmg]i?b?|b)?$", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "k": 1024, "m": 1024**2, "g": 1024**3}


def _default(value: object, stored: bool) -> dict[str, Any]:
    """The keywords of an option whose default is ``value`` (from ``BotSettings``): ``stored``, no default value
    (None), so that a resumed tournament keeps its own, and the default is said in the help."""
    if stored:
        return {"default": None, "show_default": False}
    return {"default": value, "show_default": True}


def _said(value: object, stored: bool) -> str:
    return f"  [default: {value}]" if stored else ""


def move_time_option(*, stored: bool = False) -> Callable[[F], F]:
    """Add ``--move-time SECONDS``. ``stored``: no default value (see ``sandbox_option``)."""
    default = BotSettings.move_time
    return click.option(
        "--move-time", type=float, **_default(default, stored), help="Seconds per reply." + _said(default, stored)
    )


def startup_time_option(*, stored: bool = False) -> Callable[[F], F]:
    """Add ``--startup-time SECONDS``. ``stored``: no default value (see ``sandbox_option``)."""
    default = BotSettings.startup_time
    return click.option(
        "--startup-time",
        type=float,
        **_default(default, stored),
        help="Seconds a bot has to answer hello." + _said(default, stored),
    )


def time_bank_option(f: F) -> F:
    """Add ``--time-bank SECONDS`` (no bank unless given)."""
    return click.option(
        "--time-bank", type=float, default=None, help="Extra seconds per game a bot may spend beyond --move-time."
    )(f)


def sandbox_option(*, stored: bool = False) -> Callable[[F], F]:
    """Add ``--sandbox auto|bwrap|none`` (a ``SandboxMode``). ``stored``: no default value, so a resumed
    tournament keeps its own (a new one takes auto)."""
    default = BotSettings.sandbox
    return click.option(
        "--sandbox",
        type=click.Choice(SANDBOX_MODES),
        callback=lambda ctx, param, value: None if value is None else SandboxMode(value),
        **_default(default.value, stored),
        help="Run bots inside bubblewrap (auto: when installed) or with rlimits and process groups only."
        + _said(default, stored),
    )


def clock_option(*, stored: bool = False) -> Callable[[F], F]:
    """Add ``--clock wall|cpu`` (a ``ClockMode``). ``stored``: no default value, so a resumed tournament keeps
    its own."""
    default = BotSettings.clock
    return click.option(
        "--clock",
        type=click.Choice(tuple(m.value for m in ClockMode)),
        callback=lambda ctx, param, value: None if value is None else ClockMode(value),
        **_default(default.value, stored),
        help="Charge a bot the wall time of each reply, or the CPU time its processes used for it (cpu: a loaded "
        "machine costs it nothing; the reply may take up to 3x its time of wall clock)." + _said(default, stored),
    )


def limit_option(f: F) -> F:
    """Add a repeatable ``--limit NAME=VALUE`` option (parsed into a dict of ``Limits`` fields)."""
    names = ", ".join(sorted(LIMIT_NAMES))
    return click.option(
        "--limit",
        "limits",
        multiple=True,
        metavar="NAME=VALUE",
        callback=_parse_limits,
        help=f"A resource limit of each bot process; repeatable. NAME: {names}. VALUE: a number (sizes may "
        f"end in K, M or G) or 'none'. Defaults: {_limit_defaults()}.",
    )(f)


def _limit_defaults() -> str:
    """``Limits``' defaults as ``--limit`` takes them: memory=8G, cpu_seconds=86400, ..."""
    said = []
    for f in fields(Limits):
        value = f.default
        if isinstance(value, int) and value % _UNITS["m"] == 0:
            value = f"{value // _UNITS['g']}G" if value % _UNITS["g"] == 0 else f"{value // _UNITS['m']}M"
        said.append(f"{'memory' if f.name == 'address_space' else f.name}={value}")
    return ", ".join(said)


def _parse_limits(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> dict[str, int | None]:
    out: dict[str, int | None] = {}
    for text in values:
        name, sep, value = text.partition("=")
        key = LIMIT_NAMES.get(name.strip().lower().replace("-", "_"))
        if not sep or key is None:
            raise click.BadParameter(
                f"{text!r}: expected NAME=VALUE with NAME one of {', '.join(sorted(LIMIT_NAMES))}", param=param
            )
        value = value.strip()
        if value.lower() in ("none", "unlimited"):
            out[key] = None
            continue
        match = _SIZE.match(value)
        if match is None or int(match.group(1)) < 1:
            raise click.BadParameter(f"{text!r}: the value must be a positive number (or 'none')", param=param)
        unit = (match.group(2) or "").lower()[:1]
        out[key] = int(match.group(1)) * _UNITS[unit]
    return out


def results_folder_options(what: str, fresh: str) -> Callable[[F], F]:
    """Add ``--out/-o FOLDER`` and ``--resume FOLDER``: the results folder of a ``what`` (new ones go to
    ``fresh/<time>``)."""

    def add(f: F) -> F:
        f = click.option(
            "--resume", type=click.Path(path_type=Path, file_okay=False), help=f"Continue the {what} in this folder."
        )(f)
        return click.option(
            "--out",
            "-o",
            type=click.Path(path_type=Path, file_okay=False),
            help=f"Results folder; an existing {what} there is continued.  [default: {fresh}/<time>]",
        )(f)

    return add


def rules_option(f: F) -> F:
    """Add ``--rules FILE``: ruleset options as a JSON object file."""
    return click.option(
        "--rules",
        "rules_file",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help='Ruleset options as a JSON object file, e.g. {"chip_floor": true} (default: the standard ruleset; '
        "see RULES.md).",
    )(f)


#: The most rounds a ruleset file may ask for.
MAX_ROUNDS = 1000


def load_ruleset(path: Path | None) -> Ruleset:
    """The ruleset in the JSON file at ``path`` (the standard one for None).

    Raises ``click.ClickException`` with one line for an unreadable file, bad JSON or a bad option.
    """
    from referee.engine import RefereeError, Ruleset

    if path is None:
        return Ruleset()
    data = read_json_file(path, "ruleset file")
    if not isinstance(data, dict):
        raise click.ClickException(f"ruleset file {path} must hold a JSON object of options")
    try:
        ruleset = Ruleset.from_dict(data)
    except RefereeError as exc:
        raise click.ClickException(f"ruleset file {path}: {exc}") from None
    if ruleset.rounds > MAX_ROUNDS:
        # Every round of a game is dealt before it starts: a billion rounds took gigabytes before the first move.
        raise click.ClickException(
            f"ruleset file {path}: ruleset option rounds ({ruleset.rounds}) is more than the referee plays in a "
            f"game (at most {MAX_ROUNDS:,})"
        )
    return ruleset


#: The largest JSON file read (a ruleset is a few hundred bytes).
JSON_FILE_MAX = 1024 * 1024


def read_json_file(path: Path, what: str) -> Any:
    """The JSON content of ``path``; ``what`` names the file in the one-line ``click.ClickException`` raised
    for a missing or unreadable file, one that is not a regular file (a FIFO, ``/dev/zero``) or is larger than
    ``JSON_FILE_MAX``, bad JSON or JSON nested too deeply."""
    from referee.runner.input_file import InputFileError, nested_too_deeply, read_input

    try:
        return json.loads(read_input(path, what, JSON_FILE_MAX).decode("utf-8"))
    except InputFileError as exc:
        raise click.ClickException(str(exc)) from None
    except RecursionError:
        raise click.ClickException(nested_too_deeply(what, path)) from None
    except ValueError as exc:  # JSONDecodeError, bad UTF-8, an integer of over 4,300 digits
        raise click.ClickException(f"{what} {path} is not JSON: {exc}") from None


#: ``--logs`` values (``referee.runner.logfile.LogLevel``; a test checks they agree).
LOG_LEVELS = ("full", "compact", "none")


def logs_option(f: F) -> F:
    """Add ``--logs full|compact|none``: how much of each game its log keeps (a run's own choice, not stored: a
    resumed run may choose again)."""
    return click.option(
        "--logs",
        type=click.Choice(LOG_LEVELS),
        default="full",
        show_default=True,
        help="Game logs, compressed (games/<id>.jsonl.zst, about 6 kB a game; zstdcat reads them): full keeps every "
        "message and reply, compact only the moves, faults and results (replay and verify against the engine, "
        "about a fifth of the size), none no log files (the report still replays every game).",
    )(f)
