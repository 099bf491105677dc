"""``serve`` with its lanes in worker processes (``--lane-processes``), the bots the in-process fakes played inside
them: blocks played and stored whole, a lane process killed with SIGKILL voids its block, which is played again,
and the lane processes outlive the thread that started them; each version's reply time comes back from its lane
process to the matchmaker's fair share; the CLI refuses two places for the lanes at once."""

from __future__ import annotations

import signal
from collections.abc import Awaitable, Callable
from importlib.util import find_spec
from pathlib import Path
from typing import Any

import trio
from click.testing import CliRunner

from referee.cli import main
from referee.ladder import BlockState, Ladder
from referee.ladder.lanes_process import ProcessLanes
from referee.ladder.serve import LadderServer, ServeOptions, serve
from tests.ladder.fakes import Fakes, bot_text
from tests.ladder.test_serve_fakes import _ladder, _submit


def four_entrants(tmp_path: Path) -> Path:
    lad = _ladder(tmp_path)
    for i, name in enumerate(["ann", "bob", "cat", "dan"]):
        _submit(lad, name, bot_text(strength=i * 5.0), tmp_path)
    return lad


def audited(lad: Path) -> str:
    out = CliRunner().invoke(main, ["audit", str(lad)])
    assert out.exit_code == 0 and "audited: all" in out.output, out.output
    return out.output


def assert_each_block_stored_once(lad: Path) -> int:
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


def serve_while(lad: Path, fakes: Fakes, lanes: Any, body: Callable[[Ladder, list[str]], Awaitable[None]]) -> list[str]:
    """Serve ``lad`` with ``lanes`` while ``body(ladder, the lines said)`` runs (at most 120 s), then stop it;
    returns the lines said."""
    lines: list[str] = []

    async def run() -> None:
        options = ServeOptions(
            announce=lines.append, poll=0.02, play=fakes.play, factory=fakes.factory, check=fakes.check, seed=3,
            lanes=lanes,
        )  # fmt: skip
        async with trio.open_nursery() as nursery:
            ladder = await nursery.start(serve, lad, options)
            with trio.fail_after(120):
                await body(ladder, lines)
            nursery.cancel_scope.cancel()

    trio.run(run)
    return lines


def serve_and_kill(
    lad: Path, fakes: Fakes, lanes: Any, kill: Callable[[], None], pause: float
) -> tuple[int, list[str]]:
    """Serve ``lad`` with ``lanes`` until 4 blocks are done, call ``kill`` ``pause`` seconds into a block, go on
    until a block is voided, 6 more are done and no void one is left; returns (blocks done at the kill, the lines
    said)."""
    killed: list[int] = []

    async def body(ladder: Ladder, lines: list[str]) -> None:
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

    lines = serve_while(lad, fakes, lanes, body)
    return killed[0], lines


def test_lane_processes_play_blocks_and_a_killed_lane_process_voids_its_block(tmp_path: Path) -> None:
    lad = four_entrants(tmp_path)
    fakes = Fakes(delay=0.05)
    lanes: list[Tracked] = []

    class Tracked(ProcessLanes):
        """Process lanes that know which lanes are in the middle of a block (the matchmaker may keep a lane
        waiting for seats, and a lane's idle child that dies is only started again, with no block to void)."""

        playing: set[int]

        async def play(self, lane: int, *args: Any) -> Any:
            self.playing.add(lane)
            try:
                return await super().play(lane, *args)
            finally:
                self.playing.discard(lane)

    def make(settings: Any) -> ProcessLanes:
        lanes.append(Tracked(settings))
        lanes[0].playing = set()
        return lanes[0]

    def kill() -> None:
        lane = min(lanes[0].playing, default=0)  # a lane that plays a block now
        lanes[0].children[lane].process.send_signal(signal.SIGKILL)

    killed, lines = serve_and_kill(lad, fakes, make, kill, 0.05)
    voided = [line for line in lines if "voided, to be played again: the worker process of lane" in line]
    assert len(voided) == 1 and "SIGKILL" in voided[0], lines
    assert fakes.games == 0  # every game was played in a lane's process, none in this one
    assert assert_each_block_stored_once(lad) >= killed + 6
    audited(lad)


def charged_in(lad: Path, lanes: Any, blocks: int) -> dict[str, float]:
    """Serve ``lad`` (fakes, ``lanes``) until ``blocks`` blocks are done; each entrant's bot time charged today."""
    fakes = Fakes()
    options = ServeOptions(
        announce=lambda line: None, poll=0.02, play=fakes.play, factory=fakes.factory, check=fakes.check, seed=3,
        lanes=lanes,
    )  # fmt: skip
    ladder = Ladder.open(lad)
    server = LadderServer(ladder, options)

    async def run() -> None:
        async with trio.open_nursery() as nursery:
            await nursery.start(server.run)
            with trio.fail_after(120):
                while ladder.store.block_count() < blocks:
                    await trio.sleep(0.02)
            nursery.cancel_scope.cancel()

    try:
        trio.run(run)
        names = {e.id: e.name for e in ladder.store.entrants()}
    finally:
        ladder.close()
    assert fakes.games == 0  # every game was played in a lane's process
    return {names[e]: seconds for e, seconds in server.field.seconds.items()}


def test_a_slow_bot_in_a_lane_process_is_charged_its_own_reply_time(tmp_path: Path) -> None:
    """The lane process times each version's replies and sends them back with the block: the slow bot (0.1 s a
    game) is charged its own time, the quick ones an equal share of the rest (before, every seat of a block was
    charged an equal share, the slow bot no more than its table)."""
    lad = _ladder(tmp_path)
    for i, name in enumerate(["ann", "bob", "cat", "dan"]):
        _submit(lad, name, bot_text(strength=i * 5.0, think=0.1 if name == "ann" else 0.0), tmp_path)
    charged = charged_in(lad, ProcessLanes, blocks=8)
    assert charged.keys() == {"ann", "bob", "cat", "dan"}, charged
    quick = max(charged["bob"], charged["cat"], charged["dan"])
    assert charged["ann"] >= 0.1 * 2  # a block's thinking (two games at least)
    assert charged["ann"] > 3 * quick, charged


def test_serve_refuses_two_places_for_its_lanes_and_a_bad_cluster_address_in_one_line(tmp_path: Path) -> None:
    lad = _ladder(tmp_path)
    both = CliRunner().invoke(main, ["ladder", "serve", str(lad), "--lane-processes", "--cluster", "local:2"])
    assert both.exit_code == 2 and "--lane-processes and --cluster exclude each other" in both.output, both.output
    bad = CliRunner().invoke(main, ["ladder", "serve", str(lad), "--cluster", "local:0"])
    said = "a local cluster needs at least 1 worker" if find_spec("distributed") else "needs Dask distributed"
    assert bad.exit_code == 2 and said in bad.output, bad.output
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
