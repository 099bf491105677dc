"""BOT arguments: how a path or a command line becomes a program to start."""

from __future__ import annotations

import importlib.util
import os
import shlex
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from referee.runner.errors import BotSpecError


@dataclass(frozen=True)
class BotSpec:
    """A bot to start: its display ``name``, the command ``argv``, the folder ``cwd`` it runs in and extra ``env``.

    ``cwd`` is also the bot's own folder: the sandbox lets the bot read it (and nothing of other bots). ``shown_at``:
    where the sandbox shows that folder (and runs the bot), so that nothing the bot prints names the host's path of
    it (a ladder's version: ``/bot``); None: at its own path.
    """

    name: str
    argv: tuple[str, ...]
    cwd: Path
    env: Mapping[str, str] = field(default_factory=dict, hash=False)
    shown_at: str | None = None


def parse_bot_spec(spec: str, *, name: str | None = None) -> BotSpec:
    """Turn a BOT argument into a ``BotSpec``.

    A ``.py`` file runs with this Python, a ``.js`` file with ``node``, another executable file directly; an
    argument with spaces is a command line split like a shell would (its first word is looked up on PATH or
    taken as a file). The name defaults to the file's stem. Raises ``BotSpecError`` (one line) when the
    argument names nothing runnable.
    """
    text = spec.strip()
    if not text:
        raise BotSpecError("empty BOT argument: give a bot file (bot.py, bot.js, an executable) or a command line")
    path = Path(text).expanduser()
    if " " in text and not exists(path):
        try:
            words = shlex.split(text)
        except ValueError as exc:
            raise BotSpecError(f"cannot split BOT command {text!r}: {exc}") from None
        return _from_words(words, name, text)
    return _from_file(path, name, text)


def exists(path: Path) -> bool:
    """``path.exists()``, false for a path the system cannot look up (a name too long: ENAMETOOLONG, which
    ``Path.exists`` raises)."""
    try:
        return path.exists()
    except OSError:
        return False


def is_file(path: Path) -> bool:
    """``path.is_file()``, false for a path the system cannot look up (see ``exists``)."""
    try:
        return path.is_file()
    except OSError:
        return False


def _from_file(path: Path, name: str | None, text: str) -> BotSpec:
    if not exists(path):
        raise BotSpecError(f"bot {text!r} not found: give the path of a bot file or a command line in quotes")
    if path.is_dir():
        raise BotSpecError(f"bot {text!r} is a folder: give the bot's file inside it (bot.py, bot.js, an executable)")
    path = path.resolve()
    bot_name = name or path.stem
    if path.suffix == ".py":
        argv: tuple[str, ...] = (sys.executable, str(path))
    elif path.suffix in (".js", ".mjs", ".cjs"):
        node = shutil.which("node")
        if node is None:
            raise BotSpecError(f"bot {text!r} needs node, which is not installed or not on PATH")
        argv = (node, str(path))
    elif os.access(path, os.X_OK):
        argv = (str(path),)
    else:
        raise BotSpecError(
            f"bot {text!r} is neither .py, .js nor executable: make it executable (chmod +x) or give a command line"
        )
    return BotSpec(bot_name, argv, path.parent)


def _from_words(words: list[str], name: str | None, text: str) -> BotSpec:
    program = words[0]
    resolved = shutil.which(program) if "/" not in program else None
    if resolved is None:
        path = Path(program).expanduser()
        if not is_file(path):
            raise BotSpecError(f"bot command {text!r}: program {program!r} not found on PATH or as a file")
        resolved = str(path.resolve())
    # The bot's folder: the first argument that is an existing file (the script), else the current folder.
    # The script's path is made absolute, since the bot runs in that folder and not in the current one.
    cwd = Path.cwd()
    stem = Path(program).stem
    args = list(words[1:])
    for i, word in enumerate(args):
        candidate = Path(word).expanduser()
        if not word.startswith("-") and is_file(candidate):
            cwd = candidate.resolve().parent
            stem = candidate.stem
            args[i] = str(candidate.resolve())
            break
    return BotSpec(name or stem, (resolved, *args), cwd)


def sample_bot_spec(name: str) -> BotSpec:
    """The ``BotSpec`` of a sample bot by name (``greedy``, ``random_bot``, ``js_bot``, ...).

    Raises ``BotSpecError`` when the sample bots are not installed or have no bot of that name.
    """
    spec = importlib.util.find_spec("sample_bots")
    folders = list(spec.submodule_search_locations or []) if spec is not None else []
    for folder in folders:
        for suffix in (".py", ".js"):
            path = Path(folder) / f"{name}{suffix}"
            if path.is_file():
                return parse_bot_spec(str(path))
    known = sorted({p.stem for f in folders for p in Path(f).glob("*.[pj][ys]") if not p.stem.startswith("_")})
    raise BotSpecError(f"no sample bot named {name!r}; the sample bots are: {', '.join(known) or 'none installed'}")


def resolve_opponent(text: str) -> BotSpec:
    """A BOT given on the command line: a sample bot's name (a word without ``/``, ``.`` or a space, as ``check``,
    ``compare`` and ``play`` take them) or any BOT argument (``parse_bot_spec``)."""
    if "/" not in text and "." not in text and " " not in text:
        return sample_bot_spec(text)
    return parse_bot_spec(text)
