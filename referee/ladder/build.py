"""A version's build command: run once, in the sandbox, without network, under a time limit, its output kept.

The build runs as a bot would (``referee.runner.process.BotProcess``: its own process group and cgroup, the
resource limits of ``[limits]``, inside bubblewrap with every namespace unshared, so no network), but with its own
folder writable (the version's copy, made writable for the build and read-only again after it) and with its
standard output and error both going to ``DIR/builds/<digest>.log`` (capped at 1 MiB), for its author. A build
that exits with a status other than 0, or outlives ``build_time`` seconds (then it is killed, with everything it
started), fails the version's gate; so does one that leaves its folder holding more than ``max_unpacked`` bytes
of files or ``max_files`` entries, counted as a submission's are (``intake.tree_size``): looked at every
``WATCH_EVERY`` seconds while it runs (a build over the cap is killed there and then) and once it has ended.
A build that fails leaves nothing behind: every path it added to the folder is removed (the folder is shared by
versions of the same content, and a build past the cap would otherwise keep up to ``max_unpacked`` on disk per
submission).
"""

from __future__ import annotations

import contextlib
import os
import time
from dataclasses import dataclass, replace
from pathlib import Path

from referee.ladder.botmanifest import SHOWN_AT, resolve_words
from referee.ladder.intake import TreeSize, freeze, thaw, tree_size
from referee.runner import BotCrashed, BotSettings, BotSpec, RunnerConfig
from referee.runner.config import SandboxMode
from referee.runner.exits import describe_exit
from referee.runner.process import BotProcess
from referee.runner.sandbox import resolve_mode

__all__ = ["BuildOutcome", "run_build"]

#: The most bytes of build output kept.
OUTPUT_CAP = 1024 * 1024
#: Seconds between two looks at the size of a running build's folder.
WATCH_EVERY = 0.5


@dataclass(frozen=True, slots=True)
class BuildOutcome:
    """``ok`` when the build exited with status 0 in time; ``detail`` says otherwise how it ended."""

    ok: bool
    detail: str
    seconds: float


async def run_build(
    folder: Path,
    words: tuple[str, ...],
    log: Path,
    settings: BotSettings,
    seconds: float,
    hidden: tuple[str, ...],
    cap: TreeSize | None = None,
) -> BuildOutcome:
    """Run the build command ``words`` in ``folder`` (see the module's docstring); ``hidden``: what it may not see;
    ``cap``: the most the folder may hold once built (bytes and entries; None: no cap). Raises ``BotSpecError``
    when the sandbox that ``settings`` ask for cannot be made."""
    log.parent.mkdir(parents=True, exist_ok=True)
    log.unlink(missing_ok=True)
    argv = ("/bin/sh", "-c", 'exec "$@" 1>&2 </dev/null', "build", *resolve_words(words, folder))
    spec = BotSpec("build", argv, folder, shown_at=SHOWN_AT)
    config = replace(RunnerConfig.of(settings, hidden=hidden), writable_folder=True, stderr_cap=OUTPUT_CAP)
    mode = resolve_mode(config)
    start = time.monotonic()
    thaw(folder)
    before = _paths(folder)
    outcome = BuildOutcome(False, "the build did not finish", 0.0)
    try:
        outcome = await _build(spec, config, log, mode, folder, seconds, cap, start)
        return outcome
    finally:
        if not outcome.ok:
            _remove_added(folder, before)
        freeze(folder)


async def _build(
    spec: BotSpec,
    config: RunnerConfig,
    log: Path,
    mode: SandboxMode,
    folder: Path,
    seconds: float,
    cap: TreeSize | None,
    start: float,
) -> BuildOutcome:
    """The build's run and what came of it (``run_build`` prepares the folder and cleans up after it)."""
    try:
        process = await BotProcess.start(spec, config, log, mode)
    except BotCrashed as exc:
        return BuildOutcome(False, f"the build could not start: {exc.detail}", 0.0)
    over: str | None = None
    try:
        await process.close_input()
        deadline = start + seconds
        done = False
        while not done and over is None and time.monotonic() < deadline:
            done = await process.wait_exit(min(WATCH_EVERY, max(0.0, deadline - time.monotonic())))
            over = _over(folder, cap)
    finally:
        await process.terminate(config.grace)
    took = time.monotonic() - start
    over = over or _over(folder, cap)
    if over is not None:
        return BuildOutcome(False, f"the build {'left' if done else 'was stopped: it wrote'} {over}", took)
    if not done:
        return BuildOutcome(False, f"the build took longer than {seconds:g} seconds and was stopped", took)
    code = process.process.returncode
    if code != 0:
        how = describe_exit(code, sandboxed=process.mode == "bwrap", limits=config.limits)
        return BuildOutcome(False, f"the build failed: {how}", took)
    return BuildOutcome(True, f"built in {took:.1f} s", took)


def _paths(folder: Path) -> set[str]:
    """Every path below ``folder`` (relative; symbolic links not followed)."""
    found: set[str] = set()
    for top, dirs, files in os.walk(folder):
        rel = os.path.relpath(top, folder)
        found.update(os.path.normpath(os.path.join(rel, name)) for name in (*dirs, *files))
    return found


def _remove_added(folder: Path, before: set[str]) -> None:
    """Remove every path below ``folder`` not in ``before`` (what a failed build added), deepest first, without
    following a symbolic link out of it; what cannot be removed is left."""
    for top, dirs, files in os.walk(folder, topdown=False):
        rel = os.path.relpath(top, folder)
        for name in files:
            if os.path.normpath(os.path.join(rel, name)) not in before:
                with contextlib.suppress(OSError):
                    os.unlink(os.path.join(top, name))
        for name in dirs:
            path = os.path.join(top, name)
            if os.path.normpath(os.path.join(rel, name)) in before:
                continue
            with contextlib.suppress(OSError):
                if os.path.islink(path):
                    os.unlink(path)
                else:
                    os.rmdir(path)


def _over(folder: Path, cap: TreeSize | None) -> str | None:
    """How the built ``folder`` passes ``cap``, in words (``more than 1,048,576 bytes of files in its folder``), or
    None while it is within it."""
    if cap is None:
        return None
    held = tree_size(folder, cap)
    if held.bytes > cap.bytes:
        return f"more than {cap.bytes:,} bytes of files in its folder (max_unpacked)"
    if held.entries > cap.entries:
        return f"more than {cap.entries:,} entries in its folder (max_files)"
    return None
