"""``serve`` with its lanes on a real Dask cluster (``dask scheduler`` and two ``dask worker`` processes started
here); the bots are the in-process fakes, played inside the workers.

A worker killed with SIGKILL while it plays a task of several blocks: its blocks are voided with one line naming the
worker, played again on the worker left, stored once, and ``referee audit`` finds every game matching its hash
chain. The versions reach the workers by digest (each worker has a cache of its own here), never through the ladder
folder. Each version's reply time comes back from the workers to the serve's bot clock.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from referee.ladder import BlockState, Ladder, VersionState
from referee.ladder.botmanifest import BotManifest
from referee.ladder.errors import ClusterGone
from referee.ladder.intake import tree_digest
from referee.ladder.lanes import LaneSettings
from referee.ladder.lanes_dask import DaskLanes
from referee.ladder.serve import ServeOptions, serve
from tests.ladder.fakes import Fakes, bot_text
from tests.ladder.test_serve_fakes import _ladder, _submit
from tests.ladder.test_serve_lanes import (
    assert_each_block_stored_once,
    audited,
    four_entrants,
    serve_and_kill,
    serve_while,
)

distributed = pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[2]
SCHEDULER = [sys.executable, "-m", "distributed.cli.dask_scheduler"]  # ``dask scheduler``, whatever the PATH
WORKER = [sys.executable, "-m", "distributed.cli.dask_worker"]


def _started(cmd: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as out:
        return subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)


class Cluster:
    """A scheduler and single-threaded workers without nannies (so a SIGKILL ends a worker for good), each worker
    with its own version cache (``add_worker``)."""

    def __init__(self, tmp_path: Path) -> None:
        self.tmp_path = tmp_path
        self.env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False",
            "DASK_DISTRIBUTED__SCHEDULER__WORKER_SATURATION": "1.0",
        }
        self.address_file = tmp_path / "scheduler.json"
        scheduler = [*SCHEDULER, "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file"]
        self.procs = [_started([*scheduler, str(self.address_file)], self.env, tmp_path / "scheduler.log")]
        deadline = time.monotonic() + 60
        while not self.address_file.exists():
            assert time.monotonic() < deadline, (tmp_path / "scheduler.log").read_text()
            time.sleep(0.1)
        while True:
            try:
                self.address: str = json.loads(self.address_file.read_text())["address"]
                break
            except (ValueError, KeyError):
                time.sleep(0.1)

    def add_worker(self, env: dict[str, str] | None = None) -> None:
        """Start worker ``w<i>`` (``procs[1 + i]``), with ``env`` added to its environment."""
        i = len(self.procs) - 1
        worker_env = {**self.env, "REFEREE_VERSION_CACHE": str(self.tmp_path / f"cache{i}"), **(env or {})}
        cmd = [*WORKER, "--scheduler-file", str(self.address_file), "--nthreads", "1", "--no-nanny", "--name", f"w{i}"]
        cmd += ["--host", "127.0.0.1", "--no-dashboard"]
        self.procs.append(_started(cmd, worker_env, self.tmp_path / f"worker{i}.log"))

    def serve(
        self, lad: Path, fakes: Fakes, body: Callable[[Ladder, list[str], DaskLanes], Awaitable[None]]
    ) -> tuple[list[str], DaskLanes]:
        """Serve ``lad`` with its lanes on this cluster while ``body(ladder, the lines said, the lanes)`` runs (at
        most 120 s), then stop it; returns the lines said and the lanes."""
        lanes: list[DaskLanes] = []

        def dask_lanes(settings: LaneSettings) -> DaskLanes:
            lanes.append(DaskLanes(self.address, settings))
            return lanes[-1]

        lines = serve_while(lad, fakes, dask_lanes, lambda ladder, lines: body(ladder, lines, lanes[0]))
        return lines, lanes[0]

    def close(self) -> None:
        for p in reversed(self.procs):
            if p.poll() is None:
                p.terminate()
        for p in self.procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[str, list[subprocess.Popen[bytes]]]]:
    """A scheduler and two workers (``Cluster``)."""
    made = Cluster(tmp_path)
    try:
        made.add_worker()
        made.add_worker()
        yield made.address, made.procs
    finally:
        made.close()


def test_a_worker_killed_mid_block_voids_its_blocks_which_are_played_again_on_the_other(
    tmp_path: Path, cluster: tuple[str, list[subprocess.Popen[bytes]]]
) -> None:
    address, procs = cluster
    # eight entrants at tables of two: four blocks can be in play at once, so tasks carry several
    lad = _ladder(tmp_path, "[games]\ntable_sizes = [2]\ntable_weights = [1]\n")
    names = ["ann", "bob", "cat", "dan", "eve", "fay", "gus", "hal"]
    for i, name in enumerate(names):
        _submit(lad, name, bot_text(strength=i * 2.0, think=0.02 if name == "ann" else 0.0), tmp_path)
    victim: list[int] = []
    made: list[DaskLanes] = []

    def lanes(settings: LaneSettings) -> DaskLanes:
        made.append(DaskLanes(address, settings))
        return made[-1]

    def kill() -> None:
        """SIGKILL a worker that is playing a block (``procs[1 + i]`` is worker ``wi``)."""
        with distributed.Client(address, timeout=30) as client:
            names = {a: w["name"] for a, w in client.scheduler_info()["workers"].items()}
            busy = [names[a] for a, keys in client.processing().items() if keys]
        victim.append(int(str(busy[0])[1:]))
        procs[1 + victim[0]].send_signal(signal.SIGKILL)

    killed, lines = serve_and_kill(
        lad,
        Fakes(delay=0.15),
        lanes,
        kill,
        0.1,  # well inside a task of blocks of 2 games of 0.15 s each
    )
    assert made[0].blocks_sent > made[0].tasks_sent, (made[0].blocks_sent, made[0].tasks_sent)
    lost = [line for line in lines if "voided, to be played again: worker" in line]
    assert lost and all(" lost at " in line for line in lost), lines  # the worker may have held a second block
    with Ladder.open(lad) as ladder:
        for line in lost:
            block = ladder.store.block(int(line.split()[1]))
            assert block.state == BlockState.DONE and block.attempts == 2, block
            ((attempt, reason, _),) = ladder.store.voids(block.id)  # kept for the organiser's page
            assert attempt == 1 and reason.startswith("worker tcp://127.0.0.1:") and "lost" in reason
    assert assert_each_block_stored_once(lad) >= killed + 6
    audited(lad)
    left = tmp_path / f"cache{1 - victim[0]}"
    assert len(list(left.iterdir())) == 8  # the worker left fetched each version by digest into its own cache
    # the bots' reply time, measured on the workers, reached the serve's clock: the thinking bot's only
    clock = made[0].settings.clock
    assert clock is not None
    spent = clock.read(f"{name}#1" for name in names)
    assert spent["ann#1"] >= 0.02 * 2 and all(spent[f"{name}#1"] == 0.0 for name in names[1:]), spent


def test_the_scheduler_lost_for_good_stops_serve_in_one_line_with_nothing_lost(
    tmp_path: Path, cluster: tuple[str, list[subprocess.Popen[bytes]]]
) -> None:
    """The scheduler killed with SIGKILL: the Dask client cancels every task (the blocks in play are voided), tries
    to reach it again for the connect timeout (2 s here), then ``serve`` stops with ``ClusterGone``, one line."""
    import dask

    address, procs = cluster
    with distributed.Client(address, timeout=60) as client:  # the workers in before the 2 s timeout applies
        client.wait_for_workers(2, timeout=120)
    lad = four_entrants(tmp_path)
    fakes = Fakes(delay=0.05)
    lines: list[str] = []

    async def run() -> None:
        options = ServeOptions(
            announce=lines.append, poll=0.02, play=fakes.play, factory=fakes.factory, check=fakes.check, seed=3,
            lanes=lambda settings: DaskLanes(address, settings),
        )  # fmt: skip
        async with trio.open_nursery() as nursery:
            with dask.config.set({"distributed.comm.timeouts.connect": "2s"}):  # the client's reconnect timeout
                ladder = await nursery.start(serve, lad, options)
            with trio.fail_after(60):
                while ladder.store.block_count() < 3:
                    await trio.sleep(0.02)
                procs[0].send_signal(signal.SIGKILL)
                await trio.sleep_forever()  # serve ends on its own

    with pytest.raises(BaseExceptionGroup) as caught:
        trio.run(run)
    gone = caught.value.subgroup(ClusterGone)
    assert gone is not None and caught.value.split(ClusterGone)[1] is None, caught.value  # nothing else went wrong
    said = str(next(e for e in _leaves(gone)))
    assert f"the Dask scheduler at {address} is gone" in said and "\n" not in said.strip(), said
    with Ladder.open(lad) as ladder:
        assert not ladder.store.blocks(states=[BlockState.PLAYING])  # every block in play was voided
    assert assert_each_block_stored_once(lad) >= 3
    audited(lad)


def _leaves(group: BaseExceptionGroup[BaseException]) -> list[BaseException]:
    return [x for e in group.exceptions for x in (_leaves(e) if isinstance(e, BaseExceptionGroup) else [e])]


def test_a_worker_that_joins_while_serve_runs_gets_lanes_of_its_own(tmp_path: Path, monkeypatch: Any) -> None:
    """One worker at the start: eight lanes (``BLOCKS_PER_TASK`` a worker thread); a second one joins: serve opens
    eight more, says so in a line, and the blocks go on."""
    import referee.ladder.serve as serve_module

    monkeypatch.setattr(serve_module, "GROW_SECONDS", 0.2)
    made = Cluster(tmp_path)
    try:
        made.add_worker()
        with distributed.Client(made.address, timeout=60) as client:
            client.wait_for_workers(1, timeout=120)
        lad = four_entrants(tmp_path)
        at_start: list[int] = []

        async def grow(ladder: Ladder, lines: list[str], lanes: DaskLanes) -> None:
            at_start.append(lanes.jobs)
            while ladder.store.block_count() < 3:
                await trio.sleep(0.02)
            made.add_worker()
            while not any("more workers" in line for line in lines):
                await trio.sleep(0.05)
            done = ladder.store.block_count()
            while ladder.store.block_count() < done + 3:  # and blocks go on
                await trio.sleep(0.02)

        lines, lanes = made.serve(lad, Fakes(delay=0.02), grow)
    finally:
        made.close()
    assert at_start == [8], at_start
    assert "more workers: 16 lanes now (were 8)" in lines, lines
    assert lanes.jobs == 16
    assert assert_each_block_stored_once(lad) >= 6
    audited(lad)


def test_a_worker_of_another_platform_builds_versions_itself_and_a_build_failing_there_voids_the_block(
    tmp_path: Path, monkeypatch: Any
) -> None:
    """A worker told it is of another platform than the coordinator (``REFEREE_PLATFORM``) never plays the
    coordinator's built files: it fetches each version's files as submitted and builds them itself, once. A build
    that passed the gate but fails on that worker (it needs what the worker lacks: here, another time zone) voids
    the block with one line naming the version, the worker and the platform; the version is not charged, its
    build is not tried again on that platform, and its block waits for a worker of another platform while the
    other blocks go on: one of the coordinator's platform joins, and plays it."""
    import referee.ladder.serve as serve_module

    monkeypatch.setattr(serve_module, "GROW_SECONDS", 0.2)  # the lanes look for new workers this often
    made = Cluster(tmp_path)
    try:
        made.add_worker({"REFEREE_PLATFORM": "test-other-platform", "TZ": "Etc/GMT-14"})
        with distributed.Client(made.address, timeout=60) as client:
            client.wait_for_workers(1, timeout=120)
        # no daily share in bot time: the seats of the waiting block are charged nothing meanwhile, and in a field
        # this small the others would soon be over their share
        lad = _ladder(tmp_path, "[games]\ntable_sizes = [2]\ntable_weights = [1]\n", "share_cap = 1000\n")
        stamped = """sh -c 'cat bot.src > bot.py && echo "# built $(date +%s%N)" >> bot.py'"""  # each build its own
        _submit_folder(lad, "ann", stamped, {"bot.src": bot_text(0.0)})
        _submit_folder(lad, "bob", """sh -c 'test "${TZ-}" != Etc/GMT-14'""", {"bot.py": bot_text(5.0)})
        for i, name in enumerate(["cat", "dan", "eve"]):
            _submit(lad, name, bot_text(strength=10.0 + 5 * i), tmp_path)
        waiting = []

        async def fail_there(ladder: Ladder, lines: list[str], _: DaskLanes) -> None:
            bob = ladder.version("bob", 1).id
            while not any("its build for platform" in line for line in lines):
                await trio.sleep(0.02)
            done = ladder.store.block_count()
            while ladder.store.block_count() < done + 4:  # the others play on
                await trio.sleep(0.02)
            waiting.extend(b for b in ladder.store.blocks(states=[BlockState.PLAYING]) if bob in b.seats)
            made.add_worker()  # of the coordinator's platform
            while ladder.store.block(waiting[0].id).state != BlockState.DONE:
                await trio.sleep(0.02)

        lines, lanes = made.serve(lad, Fakes(delay=0.01), fail_there)
    finally:
        made.close()
    assert all(" failed its gate" not in line for line in lines), lines  # both builds pass on the coordinator
    (void,) = [line for line in lines if "voided, to be played again: version bob#1" in line]  # built once there
    with Ladder.open(lad) as ladder:
        ann, bob = ladder.version("ann", 1), ladder.version("bob", 1)
        assert bob.state == VersionState.PLACEMENT  # not charged: it passed its gate
        ((attempt, said, _),) = ladder.store.voids(int(void.split()[1]))
        coordinator_built = ladder.version_folder(ann) / "bot.py"
        built_hash = tree_digest(ladder.version_folder(ann), BotManifest(ann.command, ann.build))
    assert (
        attempt == 1
        and said.startswith(
            "version bob#1: its build for platform test-other-platform failed on worker tcp://127.0.0.1:"
        )
        and said.endswith("not built again on this platform while this serve runs")
    ), said
    assert "\n" not in said and (bob.digest, "test-other-platform") in lanes.unbuilt
    # its block, played again, waited for a worker of another platform, which played it with the coordinator's build
    assert [(b.id, b.attempts) for b in waiting] == [(int(void.split()[1]), 2)], waiting
    assert (tmp_path / "cache1" / bob.digest).is_dir()  # its build changes nothing: the built hash is its digest
    # ann was built on the worker, once, from its files as submitted: its own stamp, not the coordinator's
    cache = tmp_path / "cache0"
    built_here = cache / f"{ann.digest}@test-other-platform" / "bot.py"
    assert (cache / f"{ann.digest}@test-other-platform.built").exists()
    ours, theirs = built_here.read_text(), coordinator_built.read_text()
    assert ours.startswith(bot_text(0.0)) and "# built " in ours and ours != theirs, (ours, theirs)
    assert not (cache / built_hash).exists()  # the coordinator's built files never fetched there
    assert assert_each_block_stored_once(lad) >= 4
    audited(lad)


def _submit_folder(lad: Path, name: str, build: str, files: dict[str, str]) -> None:
    """Submit a folder version of ``name`` that runs ``python bot.py`` after its ``build``, holding ``files``."""
    folder = lad.parent / f"{name}-src"
    folder.mkdir()
    (folder / "bot.toml").write_text(f"command = 'python bot.py'\nbuild = {json.dumps(build)}\n")
    for file, text in files.items():
        (folder / file).write_text(text)
    with Ladder.open(lad) as ladder:
        ladder.add_entrant(name)
        ladder.submit(name, folder)
