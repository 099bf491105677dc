"""The command line that starts a bot: inside bubblewrap, or bare with process groups and rlimits only.

What a bot sees inside bubblewrap is built from what it needs, wherever the contest lives: the system folders
(``SYSTEM_PATHS``, a few files of /etc), the folders its program needs (``_runtime_paths``), and its own folder.
Everything of the contest inside those (other entrants' folders, and their files in a folder they share with it,
as with ``referee run bots/*.py``; the results and game logs; the contest folder holding the manifest when it is
kept under a system folder; the results of earlier runs in its own folder) is covered by an empty read-only
folder or file. The only writable places are a private /tmp and /dev/shm, whose sizes add up to one cap.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from types import MappingProxyType

from referee.memo import Memo
from referee.runner.config import RunnerConfig, SandboxMode
from referee.runner.cpu_cgroup import check_clock
from referee.runner.errors import BotSpecError
from referee.runner.layout import DB_NAME, PLAY_LOGS_DIR
from referee.runner.spec import BotSpec, is_file
from referee.runner.syscall_filter import filter_fd, filter_problem

#: System folders a program may need, bound read-only when they exist (symlinks are recreated as symlinks).
SYSTEM_PATHS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
#: Names of the standard folders of a system tree (the Filesystem Hierarchy Standard's): a contest kept under one
#: (/usr/local/contest, /usr/local/share/contest) is covered from its first folder of another name.
STANDARD_FOLDERS = frozenset(
    [
        "bin",
        "etc",
        "games",
        "include",
        "lib",
        "lib32",
        "lib64",
        "libexec",
        "libx32",
        "local",
        "man",
        "sbin",
        "share",
        "src",
    ]
)
#: Marks of a results folder or game logs (of an earlier run, say) inside a bot's own folder: covered too.
RESULTS_MARKS = (DB_NAME, PLAY_LOGS_DIR)
#: Version-control metadata, covered wherever it lies in a bot's folder: a contest kept in a repository has every
#: entrant's files, of every version, in its ``.git`` (a file for a work tree or a submodule).
VCS_MARKS = (".git", ".hg", ".svn", ".bzr")
_SCAN_LIMIT = 5_000  # entries of a bot's folder looked at for RESULTS_MARKS
#: Files and folders of /etc that dynamic linking, locales and common runtimes (Java) read.
ETC_PATHS = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/localtime",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
    "/etc/ssl",
    "/etc/java-17-openjdk",
    "/etc/java-21-openjdk",
    "/etc/nodejs",
)
#: Variables kept from the referee's environment; everything else is scrubbed.
KEPT_ENV = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ")
#: The whole environment of the launcher (``bwrap``): fixed, nothing of the referee's or of an entrant's. A bot's
#: own environment is set inside the sandbox only (bwrap's ``--clearenv`` and ``--setenv``), so a manifest's
#: ``env = { LD_PRELOAD = ... }`` can never run code in the launcher, outside the sandbox.
LAUNCHER_ENV: Mapping[str, str] = MappingProxyType({"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C"})

_notice_given = False
_filter_notice_given = False


def bwrap_path() -> str | None:
    """Where ``bwrap`` is installed, or None."""
    return shutil.which("bwrap")


_probed: Memo[tuple[str, bool], str | None] = Memo("runner.sandbox.probed", 64)


def bwrap_problem(bwrap: str, *, seccomp: bool = False) -> str | None:
    """Why ``bwrap`` cannot sandbox here (e.g. no user namespaces in a container), or None when it can; with
    ``seccomp``, why it cannot load the seccomp filter (``syscall_filter``).

    Runs a tiny sandbox once per process (using the options a bot's sandbox uses) and remembers the answer.
    """
    key = (bwrap, seccomp)
    if key in _probed:
        return _probed[key]
    true = shutil.which("true") or "/bin/true"
    argv = [bwrap, "--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--clearenv"]
    argv += ["--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--size", "65536", "--tmpfs", "/tmp"]
    argv += ["--remount-ro", "/tmp"]
    fd = filter_fd() if seccomp else None
    if seccomp and fd is None:
        return _probed.keep(key, filter_problem())
    if fd is not None:
        argv += ["--seccomp", str(fd)]
    try:
        done = subprocess.run(
            [*argv, true], capture_output=True, timeout=20, check=False, pass_fds=() if fd is None else (fd,)
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return _probed.keep(key, str(exc))
    else:
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return _probed.keep(key, None if done.returncode == 0 else (err[0] if err else f"exit code {done.returncode}"))
    finally:
        if fd is not None:
            os.close(fd)


def seccomp_usable() -> bool:
    """Whether bots in bubblewrap get the seccomp filter here (libseccomp present, and bwrap loads it)."""
    bwrap = bwrap_path()
    return bwrap is not None and bwrap_problem(bwrap, seccomp=True) is None


def resolve_mode(config: RunnerConfig, *, quiet: bool = False) -> SandboxMode:
    """``SandboxMode.BWRAP`` or ``SandboxMode.NONE`` for ``config.sandbox``.

    ``auto`` uses bubblewrap when it is installed and works here; otherwise it says once on stderr (when the first
    bot starts: ``quiet`` for the checks before any game, so that a command refused for another reason says only
    that) that bots run with resource limits and process groups only. Raises ``BotSpecError`` when ``bwrap`` is
    required but absent or not working.
    """
    global _notice_given
    if config.sandbox == SandboxMode.NONE:
        return SandboxMode.NONE
    bwrap = bwrap_path()
    problem = "not found" if bwrap is None else bwrap_problem(bwrap)
    if problem is None:
        _check_filter(config, quiet=quiet)
        return SandboxMode.BWRAP
    if config.sandbox == SandboxMode.BWRAP:
        if bwrap is None:
            raise BotSpecError("--sandbox bwrap needs bubblewrap: install it (Debian: apt install bubblewrap)")
        raise BotSpecError(f"--sandbox bwrap: bubblewrap cannot make a sandbox here ({problem}); use --sandbox none")
    if not _notice_given and not quiet:
        _notice_given = True
        why = "not found" if bwrap is None else f"not usable here: {problem}"
        print(
            f"referee: bubblewrap (bwrap) {why}; bots run with resource limits and process groups only",
            file=sys.stderr,
        )
    return SandboxMode.NONE


def _check_filter(config: RunnerConfig, *, quiet: bool = False) -> None:
    """Raise ``BotSpecError`` for ``--sandbox bwrap`` without the seccomp filter (no libseccomp); with ``auto``
    say once on stderr that bots can still signal each other through file locks."""
    global _filter_notice_given
    bwrap = bwrap_path()
    problem = filter_problem() if bwrap is None else bwrap_problem(bwrap, seccomp=True)
    if problem is None:
        return
    if config.sandbox == SandboxMode.BWRAP:
        raise BotSpecError(
            f"--sandbox bwrap: the seccomp filter that closes file locks between bots cannot be used here "
            f"({problem}): install libseccomp (Debian: apt install libseccomp2), or use --sandbox auto"
        )
    if not _filter_notice_given and not quiet:
        _filter_notice_given = True
        print(
            f"referee: the seccomp filter cannot be used here ({problem}); bots run in bubblewrap, but may "
            "signal each other through file locks",
            file=sys.stderr,
        )


def bot_env(spec: BotSpec) -> dict[str, str]:
    """The scrubbed environment of a bot: a few neutral variables, HOME=/tmp, and the spec's own ``env``.

    The runner adds ``REFEREE_BOT``, a tag of the bot's processes (see ``limits.kill_marked``)."""
    env = {k: os.environ[k] for k in KEPT_ENV if k in os.environ}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env["HOME"] = "/tmp"
    env["TMPDIR"] = "/tmp"
    env.update(spec.env)
    return env


def launcher_env(mode: SandboxMode, env: Mapping[str, str]) -> dict[str, str]:
    """The environment of the process the runner spawns: the bot's own ``env`` when it is the bot (``"none"``),
    else the fixed ``LAUNCHER_ENV`` (``bwrap`` gets the bot's variables as options, see ``bot_argv``)."""
    return dict(env) if mode == SandboxMode.NONE else dict(LAUNCHER_ENV)


def launcher_cwd(spec: BotSpec, mode: SandboxMode) -> str:
    """The folder the runner spawns in: the bot's own (``"none"``), else ``/`` (bwrap enters it with ``--chdir``)."""
    return str(spec.cwd) if mode == SandboxMode.NONE else "/"


def bot_argv(
    spec: BotSpec,
    mode: SandboxMode,
    tmp_size: int | None = None,
    hidden: Sequence[str] = (),
    *,
    entrants: Sequence[str] = (),
    env: Mapping[str, str] | None = None,
    seccomp_fd: int | None = None,
    writable: bool = False,
) -> list[str]:
    """The argv that starts ``spec`` in ``mode`` (``"bwrap"`` or ``"none"``).

    ``tmp_size`` caps all the sandbox's writable space (bytes): its private /tmp and /dev/shm, both in RAM; the
    rest of the sandbox is read-only. ``hidden`` (results, game logs) and ``entrants`` (the folders and files of
    every entrant, see ``entrant_paths``) are what no bot may read except its own: each of them inside a folder the
    bot can see is covered (an empty read-only folder, an empty file).
    ``env`` (default ``bot_env(spec)``) is the bot's environment: in bwrap mode it is set inside the sandbox by
    bwrap's own options, after ``--clearenv``, and never given to the launcher. ``seccomp_fd`` holds the program
    of ``syscall_filter`` (the caller passes the descriptor to bwrap and closes it after the start). ``writable``
    binds the program's own folder writable (a ladder's build command, never a bot); what must be hidden in it is
    still covered."""
    if mode == SandboxMode.NONE:
        return list(spec.argv)
    bwrap = bwrap_path()
    if bwrap is None:
        raise BotSpecError("--sandbox bwrap needs bubblewrap: install it (Debian: apt install bubblewrap)")
    check_hidden(spec, hidden)
    args = [
        bwrap,
        "--unshare-all",
        # The sandbox dies with the referee. PR_SET_PDEATHSIG follows the *thread* that forked bwrap, so the
        # runner starts bots from its own thread, never from a worker thread (those end after idling).
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        "--hostname",
        "bot",
        "--clearenv",
    ]
    for key, value in (bot_env(spec) if env is None else env).items():
        args += ["--setenv", key, value]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    roots: list[Path] = []
    for system in map(Path, SYSTEM_PATHS):
        if system.is_symlink():
            args += ["--symlink", os.readlink(system), str(system)]
        elif system.is_dir():
            args += ["--ro-bind", str(system), str(system)]
            roots.append(system)
    for path in ETC_PATHS:
        args += ["--ro-bind-try", path, path]
    args += ["--proc", "/proc", "--dev", "/dev"]
    read_only = ["/dev"]  # mount points made read-only once every mount inside them is made
    tmp, shm = _writable_sizes(tmp_size)
    args += ([] if tmp is None else ["--size", str(tmp)]) + ["--tmpfs", "/tmp"]
    args += ([] if shm is None else ["--size", str(shm)]) + ["--tmpfs", "/dev/shm"]
    own = os.path.realpath(spec.cwd)
    # The bot's own folder is bound below, with what it must not see covered after it; a runtime folder inside it
    # (a compiled bot's program lies there) bound now would be bound again over the covers made before it.
    needed = [Path(p) for p in _runtime_paths(spec) if not _under(p, own)]
    for folder in needed:
        args += ["--ro-bind", str(folder), str(folder)]
    roots += needed
    tops, need = [str(r) for r in roots], [str(n) for n in needed]
    mine = {own} | {str(f) for f in _own_files(spec, Path(own))}
    # ``entrants`` come resolved (``entrant_paths``); only what lies in sight is looked at on disk.
    wanted = ({os.path.realpath(x) for x in hidden} | set(entrants)) - mine
    others = [q for q in wanted if (_under(q, own) or any(_under(q, t) for t in tops)) and os.path.lexists(q)]
    # The contest seen through a system or runtime folder (kept under /usr/local, say): cover it whole.
    points = {_cover_point(t, q, need) for q in others for t in tops if q != t and _under(q, t)}
    covers: set[str] = set()  # folders covered by an empty one
    for point in sorted(points, key=len):
        if not _covered(point, covers, own):
            args += _cover(point, read_only, covers)
    others = sorted({*others, *_earlier_results(own)}, key=lambda q: q.count("/"))
    if writable:
        args += ["--bind", own, own]
    else:
        args += _own_folder(own, [q for q in others if _under(q, own)], read_only, covers)
    # What is left in sight: inside the bot's own folder (another entrant's file in a folder they share, a results
    # folder, the results of an earlier run), or where a cover would have hidden what the program needs.
    for q in others:
        if not _covered(q, covers, own):
            args += _cover(q, read_only, covers)
    for mount in [*reversed(read_only), "/"]:
        args += ["--remount-ro", mount]
    args += ["--chdir", own, "--"]  # the folder as bound (a symbolic link to it is not in the sandbox)
    if spec.shown_at is not None:
        return _relocate(args, own, spec.shown_at) + _moved(spec.argv, (own, str(spec.cwd)), spec.shown_at)
    return args + list(spec.argv)


#: How many operands each bubblewrap option ``bot_argv`` writes takes; the last one of those marked True is a path
#: in the sandbox. An option written here must be listed (``RELOCATION_FLAGS`` for those without an operand): the
#: tests check that every option of a bot's command line is.
RELOCATION_OPERANDS: Mapping[str, tuple[int, bool]] = MappingProxyType(
    {
        "--ro-bind": (2, True),
        "--ro-bind-try": (2, True),
        "--bind": (2, True),
        "--symlink": (2, True),
        "--tmpfs": (1, True),
        "--remount-ro": (1, True),
        "--chdir": (1, True),
        "--proc": (1, True),
        "--dev": (1, True),
        "--setenv": (2, False),
        "--size": (1, False),
        "--seccomp": (1, False),
        "--hostname": (1, False),
        "--cap-drop": (1, False),
    }
)


#: The options without an operand that ``bot_argv`` writes.
RELOCATION_FLAGS = frozenset({"--unshare-all", "--die-with-parent", "--new-session", "--clearenv"})


def _relocate(args: list[str], own: str, at: str) -> list[str]:
    """``args`` (bwrap's options, up to ``--``) with every path in the sandbox inside ``own`` moved to ``at``."""
    out = list(args)
    i = 1  # past bwrap itself
    while i < len(out) and out[i] != "--":
        count, path = RELOCATION_OPERANDS.get(out[i], (0, False))
        if path and _under(out[i + count], own):
            out[i + count] = at + out[i + count][len(own) :]
        i += count + 1
    return out


def _moved(argv: Sequence[str], folders: Sequence[str], at: str) -> list[str]:
    """``argv`` with each word that is a path inside one of ``folders`` moved to ``at``."""
    out = []
    for word in argv:
        home = next((f for f in folders if _under(word, f)), None)
        out.append(word if home is None else at + word[len(home) :])
    return out


def _writable_sizes(cap: int | None) -> tuple[int | None, int | None]:
    """The sizes of the private /tmp and /dev/shm that share ``cap`` bytes (a quarter, at most 64 MiB, to
    /dev/shm), or (None, None) for no cap."""
    if cap is None:
        return None, None
    shm = max(1, min(cap // 4, 64 * 1024 * 1024))
    return max(1, cap - shm), shm


def _own_folder(own: str, inside: Sequence[str], read_only: list[str], covers: set[str]) -> list[str]:
    """The options that show the bot its own folder ``own``, read-only, where ``inside`` must be hidden.

    Usually the folder is bound whole and each of ``inside`` covered afterwards. When that takes more mounts than
    binding the folder's entries one by one (one-file entrants sharing a folder: ``referee run bots/*.py`` with
    hundreds of them, where a mount per neighbour would cost seconds per start), the folder is rebuilt instead: an
    empty one with every entry bound into it but the hidden ones (symbolic links recreated, never followed).
    """
    try:
        entries = sorted(os.listdir(own)) if inside else []
    except OSError:
        entries = []
    hide = {q for q in inside if os.path.dirname(q) == own}
    if len(entries) - len(hide) + 1 >= len(inside):
        return ["--ro-bind", own, own]
    args = ["--tmpfs", own]
    read_only.append(own)
    for entry in entries:
        path = os.path.join(own, entry)
        if path in hide:
            covers.add(path)  # left out: as good as covered
        elif os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        else:
            args += ["--ro-bind-try", path, path]  # an entry gone since the listing is no reason to fail
    return args


def _cover(path: str, read_only: list[str], covers: set[str]) -> list[str]:
    """The options that cover ``path``: an empty read-only folder over a folder (added to ``covers``), an empty
    file over a file."""
    if os.path.isdir(path):
        read_only.append(path)
        covers.add(path)
        return ["--tmpfs", path]
    return ["--ro-bind", "/dev/null", path]


def _covered(path: str, covers: set[str], own: str) -> bool:
    """Whether ``path`` is already hidden by one of the folders ``covers``. A cover around the bot's own folder
    ``own`` does not hide what is inside that folder: the folder is bound again on top of it."""
    inside_own = _under(path, own)
    folder = path
    while folder:
        if folder in covers and not (inside_own and _under(own, folder)):
            return True
        folder = folder[: folder.rfind("/")]
    return False


def _cover_point(root: str, path: str, needed: Sequence[str]) -> str:
    """The folder to cover so that ``path``, seen through ``root``, is hidden together with the contest around it:
    the first folder below ``root`` on the way to ``path`` that is not a standard folder (``STANDARD_FOLDERS``) and
    holds nothing the program needs; ``path`` itself when there is none."""
    folder = root
    for part in path[len(root) :].strip("/").split("/"):
        folder = f"{folder}/{part}"
        if folder == path:
            break
        if part in STANDARD_FOLDERS or any(_under(n, folder) for n in needed):
            continue
        return folder
    return path


def _own_files(spec: BotSpec, own: Path) -> set[Path]:
    """The files of the bot's command line that lie in its own folder (its program or script)."""
    files = set()
    for word in spec.argv:
        if word.startswith("/") or word.startswith("."):
            path = (spec.cwd / word).resolve()
            if is_file(path) and _inside(path, own):
                files.add(path)
    return files


def _earlier_results(own: str) -> list[str]:
    """Results folders and game-log folders (``RESULTS_MARKS``) of earlier runs inside the folder ``own``, and its
    version-control metadata (``VCS_MARKS``); looked for once per folder and process (a bot starts many times; what a
    run adds meanwhile is hidden anyway)."""
    known = _earlier_found.get(own)
    return _earlier_found.keep(own, _find_results(own)) if known is None else known


_earlier_found: Memo[str, list[str]] = Memo("runner.sandbox.earlier_found", 4096)


def _find_results(own: str) -> list[str]:
    found: list[str] = []
    seen = 0
    for folder, dirs, files in os.walk(own):
        seen += len(dirs) + len(files)
        if DB_NAME in files:
            found.append(folder)
            dirs.clear()
            continue
        if PLAY_LOGS_DIR in dirs:
            found.append(os.path.join(folder, PLAY_LOGS_DIR))
            dirs.remove(PLAY_LOGS_DIR)
        found += [os.path.join(folder, mark) for mark in VCS_MARKS if mark in dirs or mark in files]
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        if seen > _SCAN_LIMIT:
            break
    return found


def is_system_program(path: Path) -> bool:
    """Whether ``path`` (resolved) is a program every sandbox shows anyway: under the system folders
    (``SYSTEM_PATHS``), or this referee's own Python. A manifest may name no other program outside its folder: the
    sandbox would have to show the folder it lies in (and, for a ``bin`` folder, the one above), which may hold
    anything of the host."""
    real = path.resolve()
    if real == Path(sys.executable).resolve():
        return True
    return any(_inside(real, Path(system).resolve()) for system in SYSTEM_PATHS if os.path.isdir(system))


def program_files(spec: BotSpec) -> set[Path]:
    """The files of the bot's command line that lie in its own folder (its program or script), resolved."""
    return _own_files(spec, spec.cwd.resolve())


def entrant_paths(specs: Iterable[BotSpec]) -> tuple[str, ...]:
    """The folders and program files of every entrant, for ``RunnerConfig.entrants``: what no other bot may see."""
    out: set[str] = set()
    for spec in specs:
        own = spec.cwd.resolve()
        out.add(str(own))
        out.update(str(f) for f in _own_files(spec, own))
    return tuple(sorted(out))


def check_results_hidden(specs: Iterable[BotSpec], config: RunnerConfig, *, nested: bool = False) -> None:
    """Before any game: raise ``BotSpecError`` when the sandbox will be used and a bot's own folder is one of
    ``config.hidden`` (see ``check_hidden``), or with ``nested`` (a results folder, which holds its own folders of
    logs) lies inside one; also raises it when ``--sandbox bwrap`` cannot be had, and for ``--clock cpu`` where no
    CPU cgroup per bot can be made (``cpu_cgroup.check_clock``)."""
    check_clock(config)
    if resolve_mode(config, quiet=True) == SandboxMode.BWRAP:
        for spec in specs:
            check_hidden(spec, config.hidden, nested=nested)


def check_hidden(spec: BotSpec, hidden: Sequence[str], *, nested: bool = False) -> None:
    """Raise ``BotSpecError`` when a folder of ``hidden`` (results, game logs) is the bot's own folder, or with
    ``nested`` holds it: the sandbox can cover a folder inside the bot's folder, not the folder the bot runs in, and
    a results folder around it would put the other bots' live logs in sight (``-o .`` in a contest whose entrant
    runs in ``bots/``: the results' own ``bots/`` folder of stderr logs); and when the bot's folder is ``/`` (a
    command line without a script, started from ``/``), which would show it the whole machine."""
    own = spec.cwd.resolve()
    if own == Path("/"):
        raise BotSpecError(
            f"bot {spec.name}'s folder would be / and show it the whole machine: give the path of its script, or "
            "start the referee in the bot's folder"
        )
    for folder in hidden:
        where = Path(folder).resolve()
        if where == own:
            raise BotSpecError(
                f"bot {spec.name}'s folder {own} would hold the game logs, and the bot could read them: "
                "write the results elsewhere (--out or --log)"
            )
        if nested and _inside(own, where):
            raise BotSpecError(
                f"bot {spec.name}'s folder {own} lies inside the results folder {where}, which holds every bot's "
                "logs: write the results elsewhere (--out), outside every entrant's folder"
            )


def _runtime_paths(spec: BotSpec) -> list[str]:
    """Folders outside the system folders the bot's program needs: this Python's installation and venv, the
    project's own packages (bots written with the SDK import ``protocol``), and the program's folder (and, for a
    version manager's shim, the manager's folder)."""
    wanted: list[Path] = [Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent]
    for module in ("protocol", "referee"):
        mod = sys.modules.get(module)
        file = getattr(mod, "__file__", None)
        if file:
            wanted.append(Path(file).resolve().parent)
    program = Path(spec.argv[0])
    if program.is_absolute():
        folder = program.resolve().parent
        wanted.append(folder)
        if folder.name == "shims":
            # A version manager's shim (pyenv, rbenv, asdf: ~/.pyenv/shims/python3) runs the manager and the real
            # interpreter from the folder above it.
            wanted.append(folder.parent)
        elif folder.name == "bin" and not _inside(folder, spec.cwd.resolve()):
            # An installation outside the system folders (/opt/jdk/bin/java) reads its own lib/ and share/.
            wanted.append(folder.parent)
    out: list[str] = []
    covered = [Path(p) for p in SYSTEM_PATHS]
    for path in wanted:
        if not path.is_dir() or any(_inside(path, c) for c in covered):
            continue
        covered.append(path)
        out.append(str(path))
    # Bind parents before children, so a child bind is not hidden by its parent's.
    return sorted(out, key=lambda p: p.count("/"))


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _under(path: str, folder: str) -> bool:
    """``_inside`` for resolved paths as strings (fast: a bot start may look at thousands)."""
    return path == folder or path.startswith(folder + "/")
