"""The process layer with small real programs: bounded lines, exits noticed at once, pending output, cleanup."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import trio

from protocol import MAX_LINE
from referee.runner import BotCrashed, BotSpec, BotTimeout, RunnerConfig
from referee.runner.config import HOLD_LOOP_MAX
from referee.runner.process import BotProcess, LineTooLong


def _spec(tmp_path: Path, code: str) -> BotSpec:
    script = tmp_path / "prog.py"
    script.write_text(code)
    return BotSpec("prog", (sys.executable, str(script)), tmp_path)


async def _start(tmp_path: Path, code: str) -> BotProcess:
    return await BotProcess.start(_spec(tmp_path, code), RunnerConfig(grace=0.3), tmp_path / "err.log", "none")


def test_two_megabytes_without_newline_is_cut_off(tmp_path: Path) -> None:
    async def main() -> None:
        proc = await _start(tmp_path, "import sys,time\nsys.stdout.write('x'*2_000_000)\nsys.stdout.flush()\n"
                            "time.sleep(30)\n")  # fmt: skip
        try:
            with pytest.raises(LineTooLong):
                await proc.read_line(trio.current_time() + 10)
            assert len(proc._buf) <= MAX_LINE + 65_536
        finally:
            await proc.terminate(0.3)
        assert proc.process.returncode is not None

    trio.run(main)


def test_reply_then_exit_gives_the_reply_then_a_crash(tmp_path: Path) -> None:
    async def main() -> None:
        proc = await _start(tmp_path, 'print(\'{"type":"drop"}\', flush=True)\nraise SystemExit(4)\n')
        try:
            assert await proc.read_line(trio.current_time() + 5) == b'{"type":"drop"}'
            with pytest.raises(BotCrashed, match="exit code 4"):
                await proc.read_line(trio.current_time() + 5)
        finally:
            await proc.terminate(0.3)

    trio.run(main)


def test_exit_is_noticed_although_a_child_holds_stdout(tmp_path: Path) -> None:
    code = (
        "import os,time\nif os.fork()==0:\n    time.sleep(30)\n    os._exit(0)\ntime.sleep(0.2)\nraise SystemExit(5)\n"
    )

    async def main() -> None:
        proc = await _start(tmp_path, code)
        try:
            start = trio.current_time()
            with pytest.raises(BotCrashed, match="exit code 5"):
                await proc.read_line(start + 20)
            assert trio.current_time() - start < 10  # well before the deadline
        finally:
            await proc.terminate(0.3)

    trio.run(main)


def test_silence_is_a_timeout_and_extra_output_is_pending(tmp_path: Path) -> None:
    async def main() -> None:
        proc = await _start(tmp_path, "import sys,time\nprint('a\\nb', flush=True)\ntime.sleep(30)\n")
        try:
            assert await proc.read_line(trio.current_time() + 5) == b"a"
            assert proc.pending() == b"b\n"
            assert await proc.read_line(trio.current_time() + 5) == b"b"
            assert proc.pending() is None
            with pytest.raises(BotTimeout):
                await proc.read_line(trio.current_time() + 0.2)
        finally:
            await proc.terminate(0.3)

    trio.run(main)


def test_missing_program_cannot_start(tmp_path: Path) -> None:
    spec = BotSpec("ghost", (str(tmp_path / "ghost"),), tmp_path)

    async def main() -> None:
        with pytest.raises(BotCrashed, match="cannot start"):
            await BotProcess.start(spec, RunnerConfig(), None, "none")

    trio.run(main)


def test_stale_cgroups_of_dead_referees_are_swept() -> None:
    from referee.runner import Limits, limits

    probe = limits.make_cgroup(Limits())
    if probe is None:
        pytest.skip("no writable pids cgroup here")
    limits.remove_cgroup(probe)
    root = probe.parent
    stale = root / "referee-4194999-0"  # above any pid_max: its referee cannot be running
    stale.mkdir()
    limits.sweep(root)
    assert not stale.exists()


ECHO = "import sys\nfor line in sys.stdin:\n    sys.stdout.write('ok\\n')\n    sys.stdout.flush()\n"


async def _start_held(tmp_path: Path, code: str) -> BotProcess:
    config = RunnerConfig(grace=0.3, hold_loop=HOLD_LOOP_MAX)
    return await BotProcess.start(_spec(tmp_path, code), config, tmp_path / "err.log", "none")


def test_a_held_wait_still_lets_a_stop_through(tmp_path: Path) -> None:
    """Replies that always come within the hold are read without a pass through trio's scheduler, yet the loop's
    other tasks still run (at least every _YIELD_EVERY): a stop from another task ends the exchanges."""
    exchanges = 0

    async def main() -> None:
        nonlocal exchanges
        proc = await _start_held(tmp_path, ECHO)
        try:
            async with trio.open_nursery() as nursery:

                async def stop() -> None:
                    await trio.sleep(0.3)
                    nursery.cancel_scope.cancel()

                nursery.start_soon(stop)
                while exchanges < 50_000:  # a stop that never comes: all of them, then the assertion fails
                    assert await proc.exchange(b"x\n", trio.current_time() + 5, hold=True) == b"ok"
                    exchanges += 1
        finally:
            await proc.terminate(0.3)

    trio.run(main)
    assert 0 < exchanges < 50_000


def test_a_held_wait_keeps_its_deadline_and_reads_a_late_reply(tmp_path: Path) -> None:
    late = "import sys,time\nfor line in sys.stdin:\n    time.sleep(0.05)\n    print('late', flush=True)\n"

    async def main() -> None:
        silent = await _start_held(tmp_path, "import time\ntime.sleep(30)\n")
        slow = await _start_held(tmp_path, late)
        try:
            start = trio.current_time()
            with pytest.raises(BotTimeout):  # the deadline comes before the hold is over
                await silent.exchange(b"x\n", start + HOLD_LOOP_MAX / 5, hold=True)
            assert trio.current_time() - start < 1
            # The reply comes after the hold: the wait goes on through trio and reads it.
            assert await slow.exchange(b"x\n", trio.current_time() + 5, hold=True) == b"late"
            assert await slow.exchange(b"x\n", trio.current_time() + 5, hold=True) == b"late"
        finally:
            await silent.terminate(0.3)
            await slow.terminate(0.3)

    trio.run(main)
