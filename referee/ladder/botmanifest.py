"""``bot.toml``: how a submitted folder or archive says what to run, and how a stored version's command is started.

    command = "python bot.py"        # or a list of words; run in the version's folder
    build = "make"                   # optional: run once, in the sandbox, without network, before the gate

A command's first word is a system program on the ladder machine's PATH (``python``/``python3`` is the referee's
own Python, which has the bot SDK; ``node``, ``java``... found under the system folders, ``sandbox.SYSTEM_PATHS``)
or a path inside the bot's folder (``./bot``, ``bin/bot``). Nothing else is accepted: no absolute paths, no ``..``,
no NUL, no program found on PATH outside the system folders (``~/.local/bin/tool``: the sandbox would have to show
the folder it lies in), and no path of the folder that leads out of it (a link a build made: ``check_program``).
A lone file submitted without a bot.toml gets the command of its kind (``python bot.py``, ``node bot.js``,
``./bot`` for an executable).
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from referee.ladder.errors import IntakeError
from referee.runner import BotSpec
from referee.runner.safe_text import visible
from referee.runner.sandbox import is_system_program

__all__ = [
    "MANIFEST_NAME",
    "BotManifest",
    "check_program",
    "command_for_file",
    "parse_manifest",
    "resolve_words",
    "version_spec",
]

MANIFEST_NAME = "bot.toml"
#: The largest bot.toml read.
MANIFEST_MAX = 64 * 1024
_KEYS = ("command", "build")
_PYTHONS = frozenset({"python", "python3"})
_WORDS_MAX = 64
_WORD_MAX = 1024
#: Words only a shell reads (an operator): a command or build written for a shell, which runs neither.
_SHELL_WORDS = frozenset({"&&", "||", "|", ";", "&", ">", ">>", "<", "<<", "2>", "2>&1", "&>"})


@dataclass(frozen=True, slots=True)
class BotManifest:
    """What a version runs (``command``) and how it is built first (``build``, or None), as words."""

    command: tuple[str, ...]
    build: tuple[str, ...] | None = None


def _words(value: object, key: str, where: str) -> tuple[str, ...]:
    if isinstance(value, str):
        try:
            words = shlex.split(value)
        except ValueError as exc:
            raise IntakeError(f"{where}: {key} cannot be split into words: {exc}") from None
    elif isinstance(value, list) and all(isinstance(w, str) for w in value):
        words = list(value)
    else:
        raise IntakeError(f'{where}: {key} must be a string or a list of strings, e.g. {key} = "python bot.py"')
    if not words:
        raise IntakeError(f"{where}: {key} is empty")
    if len(words) > _WORDS_MAX or any(len(w) > _WORD_MAX for w in words):
        raise IntakeError(f"{where}: {key} is too long (at most {_WORDS_MAX} words of {_WORD_MAX} characters)")
    for w in words:
        if "\0" in w or not w.isprintable():
            raise IntakeError(f"{where}: {key} holds an unprintable character in {visible(w)!r}")
    _no_shell(words, key, where)
    return tuple(words)


def _no_shell(words: list[str], key: str, where: str) -> None:
    """Refuse a line written for a shell (a ``VAR=value`` first word, an operator word): neither command nor build
    is run by one, and the refusal says so rather than that no program ``VAR=value`` is installed."""
    name, eq, _ = words[0].partition("=")
    operator = next((w for w in words if w in _SHELL_WORDS or (len(w) > 1 and w.endswith(";"))), None)
    if eq and name.isidentifier():
        found = f"starts with the variable setting {visible(words[0])!r}"
    elif operator is not None:
        found = f"holds {visible(operator)!r}, which only a shell reads"
    else:
        return
    raise IntakeError(
        f"{where}: {key} {found}; {key} is not run by a shell: put the line in a script in the folder and name it "
        f'({key} = "sh build.sh")'
    )


def _program(words: tuple[str, ...], key: str, where: str) -> None:
    """Refuse a first word that is neither a program name nor a relative path inside the folder."""
    program = words[0]
    path = PurePosixPath(program)
    if path.is_absolute() or ".." in path.parts:
        raise IntakeError(
            f"{where}: {key} program {visible(program)!r} must be a program name (python3, node) or a path inside "
            "the bot's folder (./bot)"
        )
    if "/" not in program and program not in _PYTHONS:
        found = shutil.which(program)
        if found is None:
            raise IntakeError(
                f"{where}: {key} program {visible(program)!r} is not installed on the ladder's machine; use a path "
                "inside the bot's folder (./bot) for a program of your own"
            )
        if not is_system_program(Path(found)):
            raise IntakeError(_not_system(where, key, program))


def _not_system(where: str, key: str, program: str) -> str:
    """The refusal of a program outside the bot's folder and the system folders (its host path is not said)."""
    return (
        f"{where}: {key} program {visible(program)!r} is not a system program of the ladder's machine (only "
        "programs under /usr, /bin and the like, and the referee's Python, run from outside a bot's folder); use a "
        "path inside the bot's folder (./bot) for a program of your own"
    )


def check_program(words: tuple[str, ...], folder: Path, where: str, key: str = "command") -> None:
    """Raise ``IntakeError`` (one line naming ``where``) when the program ``words`` start, as ``resolve_words``
    finds it in ``folder``, is neither a file inside ``folder`` (links followed: a link a build made may lead out)
    nor a system program: a version runs only its own files and the system's programs."""
    program = words[0]
    first = Path(resolve_words(words, folder)[0])
    if "/" not in program:
        if program not in _PYTHONS and not is_system_program(first):
            raise IntakeError(_not_system(where, key, program))
        return
    real = Path(os.path.realpath(first))
    home = Path(os.path.realpath(folder))
    if home not in real.parents or not real.is_file():
        raise IntakeError(f"{where}: {key} program {visible(program)!r} is not a file inside the bot's folder")


def parse_manifest(data: bytes, where: str = MANIFEST_NAME) -> BotManifest:
    """The manifest in ``data`` (a bot.toml). Raises ``IntakeError`` naming ``where`` and the field."""
    if len(data) > MANIFEST_MAX:
        raise IntakeError(f"{where}: larger than {MANIFEST_MAX // 1024} KiB")
    try:
        table = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise IntakeError(f"{where} is not TOML: {exc}") from None
    for key in table:
        if key not in _KEYS:
            raise IntakeError(f"{where}: unknown field {visible(key)!r} (fields: {', '.join(_KEYS)})")
    if "command" not in table:
        raise IntakeError(f'{where}: command is missing, e.g. command = "python bot.py"')
    command = _words(table["command"], "command", where)
    _program(command, "command", where)
    build = None
    if "build" in table:
        build = _words(table["build"], "build", where)
        _program(build, "build", where)
    return BotManifest(command, build)


def command_for_file(name: str, executable: bool) -> BotManifest:
    """The command of a lone bot file named ``name``: by its suffix, else run directly when executable. Raises
    ``IntakeError`` for a file that is none of these."""
    suffix = PurePosixPath(name).suffix
    if suffix == ".py":
        return BotManifest(("python", name))
    if suffix in (".js", ".mjs", ".cjs"):
        node = shutil.which("node")
        if node is None or not is_system_program(Path(node)):
            raise IntakeError(f"{visible(name)}: a JavaScript bot needs node, which the ladder's machine lacks")
        return BotManifest(("node", name))
    if executable:
        return BotManifest((f"./{name}",))
    raise IntakeError(
        f"{visible(name)}: neither .py, .js nor executable; submit a folder or archive with a bot.toml naming its "
        "command"
    )


def resolve_words(words: tuple[str, ...], folder: Path) -> tuple[str, ...]:
    """``words`` as the runner starts them in ``folder``: ``python`` is this Python, a name is looked up on PATH,
    a path is made absolute inside the folder."""
    program = words[0]
    if program in _PYTHONS:
        first = sys.executable
    elif "/" in program:
        first = str(folder / program)
    else:
        first = shutil.which(program) or program
    return (first, *words[1:])


#: Where the sandbox shows a version its own folder: nothing a bot prints (a traceback, its working folder) names
#: the organiser's path of it.
SHOWN_AT = "/bot"


def version_spec(name: str, manifest: BotManifest, folder: Path) -> BotSpec:
    """The runner's ``BotSpec`` of a stored version: its command resolved, run in (and shown only) ``folder``,
    which the sandbox shows at ``SHOWN_AT``."""
    return BotSpec(name, resolve_words(manifest.command, folder), folder, shown_at=SHOWN_AT)
