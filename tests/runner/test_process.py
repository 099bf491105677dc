"""The process layer with small real programs: bounded lines, exits noticed at once, pending output, cleanup."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import trio

from protocol import MAX_LINE
from referee.runner import BotCrashed, BotSpec, BotTimeout, RunnerConfig
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
