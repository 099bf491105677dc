"""Entrants: BOT arguments and ``bots.toml`` manifests become uniquely named bot specs.

A manifest lists one ``[[bot]]`` table per entrant::

    [[bot]]
    name = "greedy"                   # optional: defaults to the program's (or script's) file stem
    command = "python3 greedy.py"     # a command line (split like a shell) or a list of words;
                                      # a lone bot file (greedy.py, bot.js, an executable) also works,
                                      # and a .py or .js file with arguments ("greedy.py --noise 0.2") runs
                                      # with the referee's own Python (or node), as a lone file does
    cwd = "greedy"                    # optional: the folder the bot runs in, inside the manifest's folder
    env = { GREEDY_DEPTH = "2" }      # optional: extra environment variables (strings)
    challenger = true                 # optional: in --format gauntlet, this entrant plays the field

Relative paths in ``command`` are taken from ``cwd`` (itself relative to the manifest's folder), else from the
manifest's folder. The bot runs in ``cwd`` if given, else in its script's folder; the sandbox lets it read only
that folder, so keep a bot's files together. That folder must lie inside the manifest's folder. A name is at
most ``NAME_MAX`` printable characters (no control or format character, no space at either end, no ``/``), and
no two tables share one.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

from referee.runner import BotSpec, BotSpecError, parse_bot_spec
from referee.runner.input_file import InputFileError, nested_too_deeply, read_input
from referee.runner.safe_text import visible
from referee.runner.sandbox import SYSTEM_PATHS, is_system_program, program_files
from referee.runner.spec import is_file
from referee.tournament.errors import ManifestError

__all__ = [
    "bot_files",
    "load_manifest",
    "load_manifest_entries",
    "name_entrants",
    "unique_names",
    "with_unique_names",
]

_KEYS = ("name", "command", "cwd", "env", "challenger")
#: The longest name a manifest may give an entrant, in characters (at 4 bytes each, its stderr files' names stay
#: well within a file system's 255 bytes).
NAME_MAX = 48
#: The largest manifest read, in bytes (a thousand entrants take about 100 kB).
MANIFEST_MAX = 4 * 1024 * 1024
#: A command whose first word is a bot file of these kinds runs it as ``referee run FILE`` would, with the arguments.
BOT_FILE_SUFFIXES = (".py", ".js", ".mjs", ".cjs")


def unique_names(names: Sequence[str]) -> list[str]:
    """Deduplicate names in order: the first ``greedy`` stays, later ones become ``greedy-2``, ``greedy-3``…"""
    taken = set(names)
    seen: set[str] = set()
    out = []
    for name in names:
        if name in seen:
            k = 2
            while f"{name}-{k}" in taken:
                k += 1
            name = f"{name}-{k}"
            taken.add(name)
        seen.add(name)
        out.append(name)
    return out


def with_unique_names(specs: Sequence[BotSpec]) -> list[BotSpec]:
    """The specs, renamed where needed so that every name is unique (see ``name_entrants``)."""
    return name_entrants(specs)[0]


def name_entrants(specs: Sequence[BotSpec]) -> tuple[list[BotSpec], list[str]]:
    """The specs with unique names, and one line per name that had to change, saying why.

    Entrants that share a name (the contest layout ``bots/<name>/bot.py`` names every bot ``bot`` after its
    file) take the names of their folders (``bots/alice/bot.py`` is ``alice``) when those tell them apart and
    clash with no other entrant; otherwise they are numbered (``bot``, ``bot-2``, ...; see ``unique_names``).
    A name longer than ``NAME_MAX`` characters (a long file name) is cut to that length. Characters a terminal or a
    page would not show as themselves (zero-width, direction-changing, control) are written as escapes (``visible``).
    """
    # Names from file and folder names may hold anything a file name can: invisible and direction-changing characters
    # (``gre\u200bedy`` would show as ``greedy`` beside the real one) are written as escapes (``visible``).
    names = [visible(s.name) for s in specs]
    counts = Counter(names)
    notes: list[str] = []
    taken = set(names)
    for shared, n in counts.items():
        if n < 2:
            continue
        seats = [i for i, name in enumerate(names) if name == shared]
        folders = [visible(specs[i].cwd.name) for i in seats]
        if all(folders) and len(set(folders)) == n and not (set(folders) & (taken - {shared})):
            for i, folder in zip(seats, folders, strict=True):
                names[i] = folder
            taken = (taken - {shared}) | set(folders)
            notes.append(
                f"{n} entrants are called {shared!r} (their file's name); each takes its folder's name instead: "
                + ", ".join(folders)
            )
        elif len({(specs[i].argv, specs[i].cwd) for i in seats}) > 1:  # the same bot twice needs no word
            notes.append(
                f"{n} entrants are called {shared!r} and their folders' names cannot tell them apart (alike, or "
                f"another entrant's); they are numbered {shared}, {shared}-2, ... "
                "(give each a name in a bots.toml manifest)"
            )
    for i, name in enumerate(names):
        if len(name) > NAME_MAX:  # a file's or folder's name: its stderr files' names must stay within 255 bytes
            names[i] = name[:NAME_MAX]
            notes.append(f"an entrant's name is longer than {NAME_MAX} characters; it is cut to {names[i]!r}")
    final = unique_names(names)
    return [replace(s, name=n) for s, n in zip(specs, final, strict=True)], notes


def bot_files(folder: Path) -> list[str]:
    """The bots of a folder given as a BOT argument (``referee run bots/``, which a shell cannot turn into options
    the way ``bots/*.py`` can, when a file's name starts with ``-``): every ``.py``, ``.js`` and executable file in
    it, and the ``bot.py``, ``bot.js`` or ``bot`` of each of its subfolders (the layout ``bots/<name>/bot.py``), in
    name order; files and folders whose names start with ``.`` or ``_`` (``_base.py``, ``__pycache__``) left out.
    Raises ``BotSpecError`` for a folder with none."""
    found: list[str] = []
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.startswith((".", "_")):
            continue
        if entry.is_dir():
            inside = [entry / n for n in ("bot.py", "bot.js", "bot") if is_file(entry / n)]
            found += [str(inside[0])] if inside else []
        elif entry.suffix in BOT_FILE_SUFFIXES or (is_file(entry) and os.access(entry, os.X_OK)):
            found.append(str(entry))
    if not found:
        raise BotSpecError(
            f"bot folder {folder} holds no bot (.py, .js or executable files, or subfolders with a bot.py, bot.js "
            "or bot)"
        )
    return found


def load_manifest(path: Path | str) -> list[BotSpec]:
    """Read a bots.toml manifest. Raises ``ManifestError`` with one line naming the entrant and field at fault."""
    return [spec for spec, _ in load_manifest_entries(path)]


def load_manifest_entries(path: Path | str) -> list[tuple[BotSpec, bool]]:
    """Read a bots.toml manifest: each entrant's spec and whether it is marked ``challenger = true``."""
    import tomllib  # only a run with a manifest reads TOML

    path = Path(path)
    try:
        data = tomllib.loads(read_input(path, "manifest", MANIFEST_MAX).decode("utf-8"))
    except InputFileError as e:
        raise ManifestError(str(e)) from None
    except UnicodeDecodeError as e:
        raise ManifestError(f"manifest {path} cannot be read: {e}") from None
    except tomllib.TOMLDecodeError as e:
        raise ManifestError(f"manifest {path} is not valid TOML: {e}") from None
    except RecursionError:
        raise ManifestError(nested_too_deeply("manifest", path)) from None
    extra = sorted(set(data) - {"bot"})
    if extra:
        raise ManifestError(f"manifest {path}: unknown top-level key {extra[0]!r}; list entrants as [[bot]] tables")
    bots = data.get("bot")
    if not isinstance(bots, list) or not bots or not all(isinstance(b, dict) for b in bots):
        raise ManifestError(f"manifest {path}: no entrants; add [[bot]] tables with a command each")
    base = path.resolve().parent
    entries = [_entry(path, base, i, bot) for i, bot in enumerate(bots, start=1)]
    _check_folders(path, base, [spec for spec, _ in entries], ["cwd" in bot for bot in bots])
    named: dict[str, int] = {}
    for i, bot in enumerate(bots, start=1):
        name = bot.get("name")
        if isinstance(name, str):
            if name in named:
                # Renumbering one of them (name-2) would let an entrant take another's name, by the order of the
                # tables: refuse instead.
                raise ManifestError(
                    f"manifest {path}: bot {i} ({visible(name)}): bot {named[name]} has the name already; "
                    "give each entrant a name of its own"
                )
            named[name] = i
    return entries


def _entry(path: Path, base: Path, index: int, bot: dict[str, object]) -> tuple[BotSpec, bool]:
    name = bot.get("name")
    where = f"manifest {path}: bot {index}" + (f" ({visible(name)})" if isinstance(name, str) else "")

    def fail(message: str) -> ManifestError:
        return ManifestError(f"{where}: {message}")

    for key in bot:
        if key not in _KEYS:
            raise fail(f"unknown field {key!r} (fields: {', '.join(_KEYS)})")
    if name is not None and (not isinstance(name, str) or not name.strip() or "/" in name):
        raise fail("name must be a non-empty string without '/'")
    if isinstance(name, str) and (len(name) > NAME_MAX or not name.isprintable() or name != name.strip()):
        # It names the entrant's stderr files (a NUL in a file name stopped the run with a traceback; a long one
        # lost them), and the standings, the report and the terminal show it.
        raise fail(
            f"name must be at most {NAME_MAX} printable characters, with no control or format character and no "
            "space at either end"
        )
    challenger = bot.get("challenger", False)
    if not isinstance(challenger, bool):
        raise fail("challenger must be true or false")
    cwd = bot.get("cwd")
    if cwd is not None and (not isinstance(cwd, str) or not cwd):
        raise fail("cwd must be a folder path (a string)")
    folder = (base / cwd).resolve() if isinstance(cwd, str) else base
    if not folder.is_dir():
        raise fail(f"cwd {folder} is not a folder")
    if not _inside(folder, base):
        raise fail(f"cwd {folder} is outside the manifest's folder {base}: keep each entrant's folder inside it")
    env = bot.get("env", {})
    if not isinstance(env, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in env.items()):
        raise fail('env must be a table of strings, e.g. env = { KEY = "value" }')
    for key, value in env.items():
        if not key or "=" in key or "\0" in key:
            raise fail(f"env: {key!r} is not a variable name (names are not empty and hold no '=' or NUL)")
        if "\0" in value:
            raise fail(f"env: the value of {key!r} holds a NUL character, which no environment can carry")
    command = bot.get("command")
    if command is None:
        raise fail('command is missing, e.g. command = "python3 bot.py"')
    if isinstance(command, str):
        try:
            words = shlex.split(command)
        except ValueError as e:
            raise fail(f"command cannot be split: {e}") from None
    elif isinstance(command, list) and all(isinstance(w, str) for w in command):
        words = list(command)
    else:
        raise fail("command must be a string or a list of strings")
    if not words:
        raise fail("command is empty")
    try:
        spec = _spec(words, folder, name if isinstance(name, str) else None, cwd is not None)
    except BotSpecError as e:
        raise fail(str(e)) from None
    if not _inside(spec.cwd.resolve(), base):
        # The sandbox shows a bot its own folder (its cwd, else its script's): one outside the contest (``/``, a
        # home folder) would show it the machine.
        raise fail(
            f"its folder {spec.cwd} (where its script is) is outside the manifest's folder {base}: keep each "
            "entrant's files inside it"
        )
    return replace(spec, env=MappingProxyType(dict(env))), challenger


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _spec(words: list[str], folder: Path, name: str | None, explicit_cwd: bool) -> BotSpec:
    """The spec of a manifest command; relative paths are resolved against ``folder``.

    Without an explicit ``cwd`` the bot runs in (and the sandbox exposes) its script's folder: the first
    argument that is an existing file, else the program's folder when it is a file, else ``folder``.
    """
    program = words[0]
    if is_file(folder / program) and (len(words) == 1 or Path(program).suffix in BOT_FILE_SUFFIXES):
        # A bot file, alone or with arguments (greedy.py --noise 0.2): run as a lone file is (a .py with this
        # Python, whose packages hold the SDK), followed by its arguments.
        spec = parse_bot_spec(str(folder / program), name=name)
        spec = replace(spec, argv=(*spec.argv, *words[1:]))
        spec = replace(spec, cwd=folder) if explicit_cwd else spec
        _check_program(Path(spec.argv[0]), spec.cwd)
        return spec
    resolved = shutil.which(program) if "/" not in program else None
    if resolved is None:
        candidate = folder / program
        if not is_file(candidate):
            raise BotSpecError(f"program {program!r} not found on PATH or in {folder}")
        resolved = str(candidate.resolve())
    args = list(words[1:])
    script: Path | None = None
    for i, word in enumerate(args):
        if not word.startswith("-") and is_file(folder / word):
            args[i] = str((folder / word).resolve())
            script = script or Path(args[i])
    home = folder if explicit_cwd else (script.parent if script else folder)
    _check_program(Path(resolved), home)
    stem = script.stem if script else Path(program).stem
    return BotSpec(name or stem, (resolved, *args), home)


def _check_program(program: Path, home: Path) -> None:
    """Raise ``BotSpecError`` for a program that is neither in the entrant's folder ``home`` nor a system program:
    the sandbox would have to show the folder it lies in (for a ``bin`` folder, the one above it too), which may
    hold anything of the host (``command = ["/home/me/bin/helper"]`` would show ``/home/me``)."""
    if is_system_program(program) or _inside(program.resolve(), home.resolve()):
        return
    systems = ", ".join(p for p in SYSTEM_PATHS if Path(p).is_dir() and not Path(p).is_symlink())
    raise BotSpecError(
        f"program {program} is neither in the entrant's folder {home} nor a system program (under {systems}, or "
        "the referee's own Python): keep the entrant's program in its folder"
    )


def _check_folders(path: Path, base: Path, specs: Sequence[BotSpec], claimed: Sequence[bool]) -> None:
    """Refuse (``ManifestError``) an entrant whose folder is another entrant's, so that the sandbox would show it
    that entrant's files: the same folder as another entrant when it runs no file of its own there (one-file
    entrants sharing a folder, each running its own script in it, are fine: the sandbox covers each one's files from
    the others), or a folder inside one that a single entrant names as its ``cwd`` (``claimed``) and shares with no
    other (a folder shared by several entrants is nobody's own, and a subfolder of it may be another entrant's).
    Symbolic links count where they lead. The manifest's own folder is nobody's (README: keep nothing there but the
    manifest and the entrants)."""
    folders = [spec.cwd.resolve() for spec in specs]
    runs_own = [bool(program_files(spec)) for spec in specs]
    sharing = Counter(folders)
    for i, (spec, folder) in enumerate(zip(specs, folders, strict=True)):
        for j, other in enumerate(folders):
            if i == j or other == base:
                continue
            taken = folder == other and not runs_own[i] and (runs_own[j] or i > j)
            nested = folder != other and claimed[j] and sharing[other] == 1 and _inside(folder, other)
            if taken or nested:
                raise ManifestError(
                    f"manifest {path}: bot {i + 1} ({visible(spec.name)}): its folder {folder} is "
                    + ("inside " if nested else "")
                    + f"the folder of bot {j + 1} ({visible(specs[j].name)}), so it would see that entrant's files: "
                    "give each entrant a folder of its own"
                )
