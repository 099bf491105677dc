"""The stderr cap holds for the log file as a whole: every process of a bot that logs there counts."""

from __future__ import annotations

import sys
from pathlib import Path

import trio

from referee.runner import BotSpec, RunnerConfig
from referee.runner.process import BotProcess

CAP = 256 * 1024
NOTICE_END = b"the rest was dropped]\n"

# Writes three caps' worth to stderr; its "done" line on stdout comes after the last byte was taken from the
# pipe (a blocking write), so by then the referee has filled the log up to the cap.
FLOOD = f"""import os, sys
data = b"{{}}" * 65536
for _ in range({3 * CAP // 65536}):
    os.write(2, data)
print("done", flush=True)
sys.exit(1)
"""


def _spec(tmp_path: Path, letter: str) -> BotSpec:
    script = tmp_path / f"flood_{letter}.py"
    script.write_text(FLOOD.replace("{}", letter))
    return BotSpec(f"flood_{letter}", (sys.executable, str(script)), tmp_path)


async def _flood(tmp_path: Path, letter: str, log: Path) -> None:
    config = RunnerConfig(grace=0.3, stderr_cap=CAP)
    proc = await BotProcess.start(_spec(tmp_path, letter), config, log, "none")
    try:
        assert await proc.read_line(trio.current_time() + 20) == b"done"
        await proc.wait_exit(5)
    finally:
        await proc.terminate(0.3)


def _check_capped(data: bytes, first: bytes) -> None:
    assert CAP < len(data) <= CAP + 200
    assert data.count(b"[referee:") == 1 and data.endswith(NOTICE_END)
    assert f"capped at {CAP} bytes".encode() in data
    assert data[:CAP] == first * CAP


def test_processes_one_after_another_share_the_cap(tmp_path: Path) -> None:
    log = tmp_path / "bots" / "flood.0.log"

    async def main() -> None:
        await _flood(tmp_path, "a", log)
        await _flood(tmp_path, "b", log)
        await _flood(tmp_path, "c", log)

    trio.run(main)
    _check_capped(log.read_bytes(), b"a")


def test_processes_at_the_same_time_share_the_cap(tmp_path: Path) -> None:
    log = tmp_path / "flood.log"

    async def main() -> None:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_flood, tmp_path, "a", log)
            nursery.start_soon(_flood, tmp_path, "b", log)

    trio.run(main)
    data = log.read_bytes()
    assert CAP < len(data) <= CAP + 200
    assert data.count(b"[referee:") == 1 and data.endswith(NOTICE_END)
    assert set(data[:CAP]) <= set(b"ab")


def test_what_the_file_already_holds_counts(tmp_path: Path) -> None:
    log = tmp_path / "flood.log"
    log.write_bytes(b"x" * (CAP - 10))
    trio.run(_flood, tmp_path, "a", log)
    data = log.read_bytes()
    assert data[: CAP - 10] == b"x" * (CAP - 10) and data[CAP - 10 : CAP] == b"a" * 10
    assert CAP < len(data) <= CAP + 200 and data.count(b"[referee:") == 1
