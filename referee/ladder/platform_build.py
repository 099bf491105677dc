"""Builds done once per worker platform: a version's files as submitted, kept at its gate, built on a Dask worker
whose platform (``referee.ladder.platforms``) is not the coordinator's.

A version with a build command is built in its own folder at its gate, on the coordinator; its built files run on
machines of the coordinator's platform only. So before the build the gate keeps the folder as submitted, packed
(``keep_source``: ``DIR/builds/<digest>.source.tar.gz``, written only while the folder still hashes to the
version's digest), and ``lanes_dask`` ships it to the scheduler beside the built folder. A worker of the
coordinator's platform plays the built files; a worker of another one fetches the files as submitted (checked
against the version's digest like any shipped version) and builds them itself (``build_here``), with the build
runner of the gate (``referee.ladder.build.run_build``: the sandbox and limits of ``ladder.toml``, ``build_time``,
``max_unpacked`` and ``max_files``, as ``BuildLimits`` carries them from the coordinator).

Each machine builds a version once for its platform, in its version cache (``lanes_ship.cache_root``):

    <digest>@<platform>/          the built folder, read-only (built where it is played: paths in it stay right)
    <digest>@<platform>.built     written once that folder is whole; a folder without it is built again
    <digest>@<platform>.log       the build's output (capped at 1 MiB)
    <digest>@<platform>.failed    the serve whose build failed and the one line said about it
    .<digest>@<platform>.lock     held while it is built: the worker processes of a machine that need it at once
                                  wait, and use what the first one built (or its failure)

A build that fails raises ``VersionBuildError`` with one line naming the version, the platform and the worker; the
block is voided (the version's record is not charged: it passed its gate) and the failure is remembered for that
serve's life: by the coordinator, which sends it with every later task, and by the machine, whose other worker
processes read the ``.failed`` file. A later ``serve`` tries the build again.
"""

from __future__ import annotations

import fcntl
import io
import json
import os
import shutil
import tarfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.ladder.botmanifest import BotManifest
from referee.ladder.build import BuildOutcome, run_build
from referee.ladder.config import SubmissionsSection
from referee.ladder.errors import VersionBuildError
from referee.ladder.intake import TreeSize, discard, tree_digest
from referee.runner import BotSettings, BotSpecError, ConfigError

__all__ = ["BuildLimits", "build_here", "keep_source", "pack"]


@dataclass(frozen=True, slots=True)
class BuildLimits:
    """What a build may take, from ``ladder.toml``'s ``[submissions]``: ``seconds`` (``build_time``) and ``cap``
    (``max_unpacked`` bytes and ``max_files`` entries in the built folder)."""

    seconds: float
    cap: TreeSize

    @classmethod
    def of(cls, submissions: SubmissionsSection) -> BuildLimits:
        """The limits of the gate's build (``Gatekeeper.gate``), from ``ladder.toml``'s ``[submissions]``."""
        return cls(submissions.build_time, TreeSize(int(submissions.max_unpacked), submissions.max_files))


def pack(folder: Path) -> bytes:
    """The version folder as a gzipped tar (entries in path order, owners and times left out)."""

    def clean(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.uid = info.gid = 0
        info.uname = info.gname = ""
        info.mtime = 0
        return info

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", compresslevel=6) as tar:
        tar.add(folder, arcname=".", filter=clean)
    return buffer.getvalue()


def keep_source(folder: Path, manifest: BotManifest, digest: str, path: Path) -> bool:
    """Keep ``folder`` packed at ``path`` before its build, when it is not kept yet and still holds the files of
    ``digest`` (a folder shared with a version of the same content may have been built already); True when
    ``path`` holds them afterwards. Raises ``OSError`` when it cannot be written."""
    if path.exists():
        return True
    if not folder.is_dir() or tree_digest(folder, manifest) != digest:
        return False  # nothing of ``digest`` to keep (a folder that is gone: its build says so)
    path.parent.mkdir(parents=True, exist_ok=True)
    part = path.with_name(path.name + ".part")
    part.write_bytes(pack(folder))
    os.replace(part, path)
    return True


def build_here(
    key: str,
    digest: str,
    words: tuple[str, ...],
    *,
    root: Path,
    platform: str,
    worker: str,
    run_key: str,
    source: Callable[[], Path],
    settings: BotSettings,
    limits: BuildLimits,
    run: Callable[..., Any],
) -> Path:
    """The folder of version ``key`` (files as submitted: ``digest``; build command: ``words``) built for
    ``platform`` in the version cache ``root``: built by the first worker process of this machine that needs it
    (``source()`` gives the files as submitted; ``run(fn, *args)`` runs ``await fn(*args)``), waited for by the
    others (see the module's docstring). Raises ``VersionBuildError`` when the build fails, or failed earlier in
    serve ``run_key``; ``VersionShipError`` when the files cannot be fetched."""
    name = f"{digest}@{platform}"
    folder, done = root / name, root / f"{name}.built"
    if done.exists():
        return folder
    with open(root / f".{name}.lock", "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed, or the process ends
        if done.exists():
            return folder
        failed = root / f"{name}.failed"
        said = _failure(failed, run_key)
        if said is not None:
            raise VersionBuildError(said)
        failed.unlink(missing_ok=True)  # a failure of an earlier serve: built again
        discard(folder)  # a build cut short (its worker killed) left it half made
        files = source()
        shutil.copytree(files, folder, symlinks=True)
        log = root / f"{name}.log"
        try:
            built: BuildOutcome = run(_build, folder, words, log, settings, limits)
        except BaseException:
            discard(folder)
            raise
        if not built.ok:
            discard(folder)
            said = (
                f"version {key}: its build for platform {platform} failed on worker {worker}: {built.detail} "
                f"(its output: {log} there); not built again on this platform while this serve runs"
            )
            failed.write_text(json.dumps({"serve": run_key, "reason": said}))
            raise VersionBuildError(said)
        done.touch()
    return folder


async def _build(folder: Path, words: tuple[str, ...], log: Path, settings: BotSettings, limits: BuildLimits) -> Any:
    """The gate's build, here: nothing of this machine is hidden beyond what the sandbox hides from every bot."""
    try:
        return await run_build(folder, words, log, settings, limits.seconds, (), limits.cap)
    except (BotSpecError, ConfigError) as exc:
        return BuildOutcome(False, f"the build cannot run here: {exc}", 0.0)


def _failure(path: Path, run_key: str) -> str | None:
    """The line said about a failed build of serve ``run_key`` on this machine, if one is recorded."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict) or data.get("serve") != run_key:
        return None
    return str(data.get("reason") or "its build failed on this machine earlier in this serve")
