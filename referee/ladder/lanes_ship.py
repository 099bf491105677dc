"""Versions shipped to Dask workers by digest, and the task that plays one ladder block on a worker.

No shared file system is needed. The coordinator (``lanes_dask``) packs each version's stored folder once
(``pack``: a tar, gzipped, entries in path order) and leaves it with the Dask scheduler under the name
``referee-version-<digest>`` (a Dask ``Variable``), where ``<digest>`` is the folder's content hash as stored
(``referee.ladder.intake.tree_digest``: the version's own digest for a version without a build command; the hash of
the built folder for one with). A block's task names its versions by digest only. A worker fetches a version it
lacks once (``fetch``), unpacks it into its cache (``REFEREE_VERSION_CACHE``, default
``$TMPDIR/referee-versions-<uid>``, shared by the worker processes of a machine), checks the unpacked tree's hash
against the digest (a mismatch raises ``VersionShipError``, and the block is voided and played again), makes it
read-only and only then moves it into place under its digest. Later blocks with that version use the cached copy.
A version with a build command is played so only on a worker of the coordinator's platform
(``referee.ladder.platforms``); a worker of another one fetches the version's files as submitted (shipped under
the version's own digest) and builds them itself, once per machine (``platform_build.build_here``), unless the
coordinator says that build already failed on this platform in this ``serve``.

``play_blocks_task`` is what a Dask task runs: one or more blocks (``BlocksJob``; the coordinator puts in one task
the blocks waiting when a worker thread is free, so that a task's own cost is shared), each played in turn: its
versions fetched, then the block played through the worker's lane service (``referee.tournament.cluster_worker``:
bots kept alive between blocks of the same ``serve``, each game's log and the bots' stderr sent back with the
result, never written where the coordinator must read them). Each block comes back on its own (``BlockOut``): its
games, or the error that stopped it (the other blocks of the task are not affected), and each version's reply time
over the block, measured by the worker's ``BotClock`` for that ``serve`` (the matchmaker's fair share in bot time).
"""

from __future__ import annotations

import importlib
import io
import os
import sys
import tarfile
import tempfile
import threading
import uuid
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from referee.contest.pool import PlayerFactory
from referee.contest.schedule import TableBatch
from referee.ladder.botclock import BotClock
from referee.ladder.botmanifest import BotManifest, version_spec
from referee.ladder.errors import LadderError, VersionBuildError, VersionShipError
from referee.ladder.intake import discard, freeze, tree_digest
from referee.ladder.platform_build import BuildLimits, build_here, pack
from referee.ladder.platforms import platform_tag
from referee.memo import Memo, Policy
from referee.runner import RunnerConfig
from referee.tournament.cluster_worker import BatchJob, BatchOut, _lanes, _worker_address, release_run
from referee.tournament.execute import GameFn
from referee.tournament.params import EntrantInfo

__all__ = [
    "BlockOut",
    "BlocksJob",
    "ShippedVersion",
    "VersionShipError",
    "cache_root",
    "fetch",
    "pack",
    "play_blocks_task",
    "release",
    "variable_name",
    "worker_platform",
]

#: Seconds a worker waits for a version's files from the scheduler.
FETCH_TIMEOUT = 60.0

_fetching = threading.Lock()
#: Each ``serve``'s (run key's) bot clock on this worker; its players are wrapped by it (a worker serving more
#: ``serve`` runs than this in its life starts again: a run whose clock went loses the reply times of its warm bots).
_clocks: Memo[str, BotClock] = Memo("referee.ladder.lanes_ship.clocks", 256, Policy.RENEW)
_clocks_lock = threading.Lock()


@dataclass(frozen=True, slots=True)
class ShippedVersion:
    """A version as a block's task names it: its key (``name#n``), the digest of its folder as shipped, and its
    command and build command (the manifest the digest covers); ``source``, for a version with a build command,
    the digest of its files as submitted (the version's digest) when they were shipped too (None: they were not
    kept, so a worker of another platform than the coordinator's cannot build it)."""

    key: str
    digest: str
    command: tuple[str, ...]
    build: tuple[str, ...] | None
    source: str | None = None

    @property
    def manifest(self) -> BotManifest:
        return BotManifest(self.command, self.build)


@dataclass(frozen=True, slots=True)
class BlocksJob:
    """One task's blocks: each block's games (a ``TableBatch``) and its versions, played in turn, and how to play
    them (runner settings, the rules as a dict, how many processes of a version a worker thread keeps); ``run_key``
    names the ``serve`` whose bots a worker keeps; ``play`` and ``factory`` are the tests' in-process bots.
    ``platform``: the coordinator's platform tag ("": none, every worker plays the files as shipped); ``build``:
    what a worker of another platform gives the build it runs itself; ``unbuilt``: ``(digest, platform, line)``
    for each build of this serve that failed on a worker (not tried again on that platform)."""

    run_key: str
    blocks: tuple[tuple[TableBatch, tuple[ShippedVersion, ...]], ...]
    config: RunnerConfig
    ruleset: dict[str, Any]
    keep: int
    play: GameFn | None = None
    factory: PlayerFactory | None = None
    platform: str = ""
    build: BuildLimits | None = None
    unbuilt: tuple[tuple[str, str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class BlockOut:
    """One block of a task as played: its games (``out``) or the error that stopped it (``error``),
    ``(version, seconds)``: each version's reply time over the block, and ``unbuilt``: the builds that failed for
    it on its worker, ``(digest, platform, line)``, for the coordinator to remember."""

    out: BatchOut | None
    error: Exception | None
    bot_seconds: tuple[tuple[str, float], ...]
    unbuilt: tuple[tuple[str, str, str], ...] = ()


def variable_name(digest: str) -> str:
    """The name of the Dask ``Variable`` holding the packed version of ``digest``."""
    return f"referee-version-{digest}"


def cache_root() -> Path:
    """This machine's cache of fetched versions (made private to this user). Raises ``VersionShipError`` when it
    belongs to someone else."""
    default = Path(tempfile.gettempdir()) / f"referee-versions-{os.getuid()}"
    root = Path(os.environ.get("REFEREE_VERSION_CACHE") or default)
    root.mkdir(mode=0o700, parents=True, exist_ok=True)
    if root.stat().st_uid != os.getuid():
        raise VersionShipError(f"the version cache {root} belongs to another user: set REFEREE_VERSION_CACHE")
    return root


def fetch(version: ShippedVersion, get: Any = None) -> Path:
    """The folder of ``version`` on this machine: the cached copy, else fetched once from the scheduler (``get``
    returns the packed bytes of a digest; default: the Dask ``Variable``) and checked against its digest. Raises
    ``VersionShipError`` when it cannot be fetched or does not match."""
    root = cache_root()
    folder = root / version.digest
    if folder.is_dir():
        return folder
    with _fetching:
        if folder.is_dir():
            return folder
        data = (get or _from_scheduler)(version.digest)
        staging = root / f".{version.digest}.{uuid.uuid4().hex}"
        try:
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
                tar.extractall(staging, filter="data")
            got = tree_digest(staging, version.manifest)
            if got != version.digest:
                raise VersionShipError(
                    f"version {version.key}: the files fetched hash to {got[:16]}..., not to its digest "
                    f"{version.digest[:16]}...: not played on this worker"
                )
            freeze(staging)
            try:
                os.rename(staging, folder)
            except OSError:  # another worker process of this machine put it there first (checked as this one)
                discard(staging)
        except (OSError, tarfile.TarError) as exc:
            discard(staging)
            raise VersionShipError(f"version {version.key}: cannot unpack its files here ({exc})") from None
        except BaseException:
            discard(staging)
            raise
    return folder


def _from_scheduler(digest: str) -> bytes:
    distributed: Any = importlib.import_module("distributed")
    try:
        data = distributed.Variable(variable_name(digest)).get(timeout=FETCH_TIMEOUT)
    except Exception as exc:
        raise VersionShipError(f"cannot fetch version {digest[:16]}... from the scheduler ({exc})") from None
    if not isinstance(data, bytes):
        raise VersionShipError(f"the scheduler holds no files for version {digest[:16]}...")
    return data


def play_blocks_task(job: BlocksJob) -> tuple[BlockOut, ...]:
    """Play ``job``'s blocks in turn on this Dask worker (see the module's docstring); each block's own error in its
    ``BlockOut``: ``VersionShipError`` when a version cannot be fetched, ``WorkerSetupError`` when one cannot start
    here (once per worker and ``serve``). Bot faults are forfeits in the results, as on the coordinator."""
    with _clocks_lock:
        clock = _clocks.get(job.run_key) or _clocks.keep(job.run_key, BotClock())
    config = replace(job.config, hidden=())  # the coordinator's paths: none of them is on this machine
    factory = clock.wrap(job.factory)
    worker = _worker_address()
    lanes = _lanes()
    outs = []
    for batch, versions in job.blocks:
        before = clock.read(v.key for v in versions)
        unbuilt: list[tuple[str, str, str]] = []
        try:
            entrants = []
            for v in versions:
                spec = version_spec(v.key, v.manifest, _folder(v, job, worker, unbuilt))
                entrants.append(EntrantInfo(v.key, tuple(spec.argv), str(spec.cwd)))
            batch_job = BatchJob(
                run_key=job.run_key,
                batch=batch,
                entrants=tuple(entrants),
                config=config,
                ruleset=job.ruleset,
                skip=frozenset(),
                python=sys.executable,
                files={},
                # every version passed its gate on the coordinator: one that cannot start here is this worker's
                # problem (WorkerSetupError: the block is voided), not a fault of the bot (the tests' players start
                # nothing)
                startable=frozenset(e.name for e in entrants) if job.factory is None else frozenset(),
                keep=job.keep,
                play=job.play,
                factory=factory,
            )
            outs.append(BlockOut(lanes.call(lanes.play, batch_job, worker), None, clock.block_seconds(before)))
        except Exception as exc:  # this block's: the task's other blocks are played and counted
            outs.append(BlockOut(None, exc, (), tuple(unbuilt)))
    return tuple(outs)


def _folder(v: ShippedVersion, job: BlocksJob, worker: str, unbuilt: list[tuple[str, str, str]]) -> Path:
    """The folder ``v`` plays from on this worker: its files as shipped, on the coordinator's platform (or with no
    build command); else its files as submitted, built here once for this machine's platform
    (``platform_build.build_here``; a failure is added to ``unbuilt``). Raises ``VersionShipError``
    (``VersionBuildError`` for a build that failed)."""
    if v.build is None or not job.platform:
        return fetch(v)
    here = platform_tag()
    if here == job.platform:
        return fetch(v)
    source = v.source
    if source is None:
        raise VersionBuildError(
            f"version {v.key}: its files as submitted were not kept on the coordinator (its gate came before they "
            f"were), so worker {worker} of platform {here} cannot build it: submit it again to play it there"
        )
    for digest, platform, said in job.unbuilt:
        if (digest, platform) == (source, here):
            raise VersionBuildError(said)
    if job.build is None:
        raise VersionBuildError(f"version {v.key}: the coordinator sent no build limits: not built on {worker}")
    lanes = _lanes()
    try:
        return build_here(
            v.key,
            source,
            v.build,
            root=cache_root(),
            platform=here,
            worker=worker,
            run_key=job.run_key,
            source=lambda: fetch(replace(v, digest=source)),
            settings=job.config,
            limits=job.build,
            run=lanes.call,
        )
    except VersionBuildError as exc:
        unbuilt.append((source, here, str(exc)))
        raise


def worker_platform() -> str:
    """This worker's platform tag (``platforms.platform_tag``), or "" when ``REFEREE_PLATFORM`` is not one (run on
    each worker by the coordinator when it counts them)."""
    try:
        return platform_tag()
    except LadderError:
        return ""


def release(run_key: str) -> None:
    """Close this worker's idle bots of ``serve`` run ``run_key`` and forget its bot clock (at the end of serve)."""
    release_run(run_key)
    with _clocks_lock:
        _clocks.pop(run_key, None)
