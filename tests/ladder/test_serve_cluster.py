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
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import trio

from referee.ladder import BlockState, Ladder
from referee.ladder.errors import ClusterGone
from referee.ladder.lanes import LaneSettings
from referee.ladder.lanes_dask import DaskLanes
from referee.ladder.serve import ServeOptions, serve
from tests.ladder.fakes import Fakes, bot_text
from tests.ladder.test_serve_fakes import _ladder, _submit
from tests.ladder.test_serve_lanes import assert_each_block_stored_once, audited, four_entrants, serve_and_kill

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

    def add_worker(self) -> None:
        """Start worker ``w<i>`` (``procs[1 + i]``)."""
        i = len(self.procs) - 1
        worker_env = {**self.env, "REFEREE_VERSION_CACHE": str(self.tmp_path / f"cache{i}")}
        cmd = [*WORKER, "--scheduler-file", str(self.address_file), "--nthreads", "1", "--no-nanny", "--name", f"w{i}"]
        cmd += ["--host", "127.0.0.1", "--no-dashboard"]
        self.procs.append(_started(cmd, worker_env, self.tmp_path / f"worker{i}.log"))

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
        fakes = Fakes(delay=0.02)
        lines: list[str] = []
        lanes: list[DaskLanes] = []

        def dask_lanes(settings: LaneSettings) -> DaskLanes:
            lanes.append(DaskLanes(made.address, settings))
            return lanes[-1]

        async def run() -> None:
            options = ServeOptions(
                announce=lines.append, poll=0.02, play=fakes.play, factory=fakes.factory, check=fakes.check, seed=3,
                lanes=dask_lanes,
            )  # fmt: skip
            async with trio.open_nursery() as nursery:
                ladder = await nursery.start(serve, lad, options)
                assert lanes[0].jobs == 8, lanes[0].jobs
                with trio.fail_after(120):
                    while ladder.store.block_count() < 3:
                        await trio.sleep(0.02)
                    made.add_worker()
                    while not any("more workers" in line for line in lines):
                        await trio.sleep(0.05)
                    done = ladder.store.block_count()
                    while ladder.store.block_count() < done + 3:  # and blocks go on
                        await trio.sleep(0.02)
                nursery.cancel_scope.cancel()

        trio.run(run)
    finally:
        made.close()
    assert "more workers: 16 lanes now (were 8)" in lines, lines
    assert lanes[0].jobs == 16
    assert assert_each_block_stored_once(lad) >= 6
    audited(lad)
