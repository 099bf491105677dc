"""``referee replay`` and ``verify`` on a log without its ``game`` header end with one line naming the file.

A run killed with ``kill -9`` leaves an empty log for each game it was playing (the log is held in memory and
written when the game ends); ``replay`` of such a file ended in a traceback (``NoHeader.at``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


@pytest.mark.parametrize("command", ["verify", "replay"])
@pytest.mark.parametrize("content", ["", "\n", '{"event":"recv","t":1,"seat":0,"ms":1,"line":"x"}\n'])
def test_a_log_without_header_is_one_line(tmp_path: Path, command: str, content: str) -> None:
    log = tmp_path / "g000001.jsonl"
    log.write_text(content)
    done = subprocess.run(
        [sys.executable, "-m", "referee", command, str(log)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode not in (0, None), done.stdout
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert str(log) in lines[0]
    assert "not a game log" in lines[0] or "empty" in lines[0]
