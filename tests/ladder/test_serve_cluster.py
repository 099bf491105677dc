"""``serve`` with its lanes on a real Dask cluster (``dask scheduler`` and two ``dask worker`` processes started
here) and with ``--lane-processes``; the bots are the in-process fakes, played inside the workers.

A worker killed with SIGKILL while it plays a block: the block is voided with one line naming the worker, played
again on the worker left, stored once, and ``referee audit`` finds every game matching its hash chain. The
versions reach the workers by digest (each worker has a cache of its own here), never through the ladder folder.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import trio
from click.testing import CliRunner

from referee.cli import main
from referee.ladder import BlockState, Ladder
from referee.ladder.lanes_dask import DaskLanes
from referee.ladder.lanes_process import ProcessLanes
from referee.ladder.serve import ServeOptions, serve
from tests.ladder.fakes import Fakes, bot_text
from tests.ladder.test_serve_fakes import _ladder, _submit

distributed = pytest.importorskip("distributed")

ROOT = Path(__file__).resolve().parents[2]
SCHEDULER = [sys.executable, "-m", "distributed.cli.dask_scheduler"]  # ``dask scheduler``, whatever the PATH
WORKER = [sys.executable, "-m", "distributed.cli.dask_worker"]


def _started(cmd: list[str], env: dict[str, str], log: Path) -> subprocess.Popen[bytes]:
    with open(log, "wb") as out:
        return subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[tuple[str, list[subprocess.Popen[bytes]]]]:
    """A scheduler and two single-threaded workers without nannies (so a SIGKILL ends a worker for good), each
    worker with its own version cache."""
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED": "False",
        "DASK_DISTRIBUTED__SCHEDULER__WORKER_SATURATION": "1.0",
    }
    address_file = tmp_path / "scheduler.json"
    scheduler = [*SCHEDULER, "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file"]
    procs = [_started([*scheduler, str(address_file)], env, tmp_path / "scheduler.log")]
    try:
        deadline = time.monotonic() + 60
        while not address_file.exists():
            assert time.monotonic() < deadline, (tmp_path / "scheduler.log").read_text()
            time.sleep(0.1)
        for i in range(2):
            worker_env = {**env, "REFEREE_VERSION_CACHE": str(tmp_path / f"cache{i}")}
            cmd = [*WORKER, "--scheduler-file", str(address_file), "--nthreads", "1", "--no-nanny", "--name", f"w{i}"]
            cmd += ["--host", "127.0.0.1", "--no-dashboard"]
            procs.append(_started(cmd, worker_env, tmp_path / f"worker{i}.log"))
        while True:
            try:
                address = json.loads(address_file.read_text())["address"]
                break
            except (ValueError, KeyError):
                time.sleep(0.1)
        yield address, procs
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()


def _field(tmp_path: Path) -> Path:
    lad = _ladder(tmp_path)
    for i, name in enumerate(["ann", "bob", "cat", "dan"]):
        _submit(lad, name, bot_text(strength=i * 5.0), tmp_path)
    return lad


def _audited(lad: Path) -> str:
    out = CliRunner().invoke(main, ["audit", str(lad)])
    assert out.exit_code == 0 and "audited: all" in out.output, out.output
    return out.output


def _assert_each_block_stored_once(lad: Path) -> int:
    """Every done block holds one game per seat rotation, each once; returns the number of done blocks."""
    with Ladder.open(lad) as ladder:
        db = ladder.store._db()  # the rows themselves, not a view of them
        done = ladder.store.blocks(states=[BlockState.DONE], limit=None)
        for block in done:
            rotations = sorted(r[0] for r in db.execute("SELECT rotation FROM games WHERE block_id = ?", (block.id,)))
            assert rotations == list(range(len(block.seats))), (block, rotations)
        orphans = db.execute(
            "SELECT count(*) FROM games WHERE block_id NOT IN (SELECT id FROM blocks WHERE state = 'done')"
        ).fetchone()[0]
        assert orphans == 0
        return len(done)


def _serve_and_kill(
    lad: Path, fakes: Fakes, lanes: Any, kill: Callable[[], None], pause: float
) -> tuple[int, list[str]]:
    """Serve ``lad`` with ``lanes`` until 4 blocks are done, call ``kill`` ``pause`` seconds into a block, go on
    until a block is voided, 6 more are done and no void one is left; returns (blocks done at the kill, the lines
    said)."""
    lines: list[str] = []
    killed: list[int] = []

    async def run() -> None:
        options = ServeOptions(
            announce=lines.append, poll=0.02, play=fakes.play, factory=fakes.factory, check=fakes.check, seed=3,
            lanes=lanes,
        )  # fmt: skip
        async with trio.open_nursery() as nursery:
            ladder = await nursery.start(serve, lad, options)
            with trio.fail_after(120):
                while ladder.store.block_count() < 4 or not ladder.store.blocks(states=[BlockState.PLAYING]):
                    await trio.sleep(0.01)
                await trio.sleep(pause)
                kill()
                killed.append(ladder.store.block_count())
                while (
                    not any("voided" in line for line in lines)
                    or ladder.store.block_count() < killed[0] + 6
                    or ladder.store.blocks(states=[BlockState.VOID])  # the voided block is played again
                ):
                    await trio.sleep(0.02)
            nursery.cancel_scope.cancel()

    trio.run(run)
    return killed[0], lines


def test_a_worker_killed_mid_block_voids_the_block_which_is_played_again_on_the_other(
    tmp_path: Path, cluster: tuple[str, list[subprocess.Popen[bytes]]]
) -> None:
    address, procs = cluster
    lad = _field(tmp_path)
    victim: list[int] = []

    def kill() -> None:
        """SIGKILL a worker that is playing a block (``procs[1 + i]`` is worker ``wi``)."""
        with distributed.Client(address, timeout=30) as client:
            names = {a: w["name"] for a, w in client.scheduler_info()["workers"].items()}
            busy = [names[a] for a, keys in client.processing().items() if keys]
        victim.append(int(str(busy[0])[1:]))
        procs[1 + victim[0]].send_signal(signal.SIGKILL)

    killed, lines = _serve_and_kill(
        lad,
        Fakes(delay=0.15),
        lambda settings: DaskLanes(address, settings),
        kill,
        0.1,  # well inside a block of 3 or 4 games of 0.15 s each
    )
    lost = [line for line in lines if "voided, to be played again: worker" in line]
    assert lost and all(" lost at " in line for line in lost), lines  # the worker may have held a second block
    with Ladder.open(lad) as ladder:
        for line in lost:
            block = ladder.store.block(int(line.split()[1]))
            assert block.state == BlockState.DONE and block.attempts == 2, block
            ((attempt, reason, _),) = ladder.store.voids(block.id)  # kept for the organiser's page
            assert attempt == 1 and reason.startswith("worker tcp://127.0.0.1:") and "lost" in reason
    assert _assert_each_block_stored_once(lad) >= killed + 6
    _audited(lad)
    left = tmp_path / f"cache{1 - victim[0]}"
    assert len(list(left.iterdir())) == 4  # the worker left fetched each version by digest into its own cache


def test_lane_processes_play_blocks_and_a_killed_lane_process_voids_its_block(tmp_path: Path) -> None:
    lad = _field(tmp_path)
    fakes = Fakes(delay=0.05)
    lanes: list[ProcessLanes] = []

    def make(settings: Any) -> ProcessLanes:
        lanes.append(ProcessLanes(settings))
        return lanes[0]

    def kill() -> None:
        next(iter(lanes[0].children.values())).process.send_signal(signal.SIGKILL)

    killed, lines = _serve_and_kill(lad, fakes, make, kill, 0.05)
    voided = [line for line in lines if "voided, to be played again: the worker process of lane" in line]
    assert len(voided) == 1 and "SIGKILL" in voided[0], lines
    assert fakes.games == 0  # every game was played in a lane's process, none in this one
    assert _assert_each_block_stored_once(lad) >= killed + 6
    _audited(lad)


def test_serve_refuses_two_places_for_its_lanes_and_a_bad_cluster_address_in_one_line(tmp_path: Path) -> None:
    lad = _ladder(tmp_path)
    both = CliRunner().invoke(main, ["ladder", "serve", str(lad), "--lane-processes", "--cluster", "local:2"])
    assert both.exit_code == 2 and "--lane-processes and --cluster exclude each other" in both.output, both.output
    bad = CliRunner().invoke(main, ["ladder", "serve", str(lad), "--cluster", "local:0"])
    assert bad.exit_code == 2 and "a local cluster needs at least 1 worker" in bad.output, bad.output
    assert "Traceback" not in both.output + bad.output


def test_lane_processes_outlive_the_thread_that_started_them(tmp_path: Path) -> None:
    """trio starts a process from one of its threads, idle threads end after 10 s, and a child that asked for the
    parent-death signal was killed with its thread: each lane's first blocks were voided with SIGKILL."""
    with Ladder.open(_ladder(tmp_path)) as ladder:
        from referee.ladder.lanes import LaneSettings
        from referee.runner import RunnerConfig

        settings = LaneSettings(
            2, RunnerConfig.of(ladder.config.bot_settings()), ladder.config.ruleset(), ladder.layout.bots, 4, 8,
            ladder.version_folder,
        )  # fmt: skip

    async def run() -> list[int | None]:
        lanes = ProcessLanes(settings)
        await lanes.start()
        try:
            await trio.sleep(11.5)  # trio's idle threads end after 10 s
            return [child.process.returncode for child in lanes.children.values()]
        finally:
            await lanes.aclose()

    assert trio.run(run) == [None, None]
