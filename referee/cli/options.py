"""Options shared by several commands: resource limits of bots (``--limit``) and ruleset files (``--rules``)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

if TYPE_CHECKING:
    from referee.engine import Ruleset

F = TypeVar("F", bound=Callable[..., Any])

# The two tables below are spelled out so that the options (and ``--help``) need no import of the runner; a
# test checks them against ``referee.runner.Limits`` and ``referee.runner.config.SandboxMode``.
#: ``--limit`` names → ``Limits`` fields (``memory`` is the address-space limit).
LIMIT_NAMES = {
    name: name for name in ("address_space", "cpu_seconds", "processes", "open_files", "file_size", "tmp_size")
} | {"memory": "address_space"}
#: ``--sandbox`` values (``SandboxMode``).
SANDBOX_MODES = ("auto", "bwrap", "none")
_SIZE = re.compile(r"^(\d+)\s*([kmg]i?b?|b)?$", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "k": 1024, "m": 1024**2, "g": 1024**3}


def sandbox_option(*, stored: bool = False) -> Callable[[F], F]:
    """Add ``--sandbox auto|bwrap|none``. ``stored``: no default value, so a resumed tournament keeps its own
    (a new one takes auto)."""
    return click.option(
        "--sandbox",
        type=click.Choice(SANDBOX_MODES),
        default=None if stored else "auto",
        show_default=not stored,
        help="Run bots inside bubblewrap (auto: when installed) or with rlimits and process groups only."
        + ("  [default: auto]" if stored else ""),
    )


def clock_option(*, stored: bool = False) -> Callable[[F], F]:
    """Add ``--clock wall|cpu``. ``stored``: no default value, so a resumed tournament keeps its own."""
    return click.option(
        "--clock",
        type=click.Choice(("wall", "cpu")),
        default=None if stored else "wall",
        show_default=not stored,
        help="Charge a bot the wall time of each reply, or the CPU time its processes used for it (cpu: a loaded "
        "machine costs it nothing; the reply may take up to 3x its time of wall clock)."
        + ("  [default: wall]" if stored else ""),
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
        "end in K, M or G) or 'none'. Defaults: memory=8G, cpu_seconds=86400, processes=256, open_files=256, "
        "file_size=64M, tmp_size=256M.",
    )(f)


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
        return Ruleset.from_dict(data)
    except RefereeError as exc:
        raise click.ClickException(f"ruleset file {path}: {exc}") from None


def read_json_file(path: Path, what: str) -> Any:
    """The JSON content of ``path``; ``what`` names the file in the one-line ``click.ClickException`` raised
    for an unreadable file or bad JSON."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise click.ClickException(f"cannot read {what} {path}: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise click.ClickException(f"{what} {path} is not JSON: {exc}") from None
