"""Issue 17, item 10: ``referee verify`` and ``replay`` on files that are no game log end with one line, quickly.

Before, ``referee verify /dev/zero`` never ended (it read the whole device into memory), and a log line nested
100,000 deep or holding a 100,000-digit integer ended in a traceback.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest


def referee(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "referee", *map(str, args)], capture_output=True, text=True, timeout=60
    )


def hostile(tmp_path: Path, kind: str) -> Path:
    path = tmp_path / f"{kind}.jsonl"
    if kind == "zero":
        return Path("/dev/zero")
    header = '{"event":"game","format":1,"game":"g","names":["a","b"],"rules":{},"seed":1,"deal":'
    if kind == "deep":
        path.write_text(header + "[" * 100_000 + "]" * 100_000 + "}\n")
    elif kind == "digits":
        path.write_text(header + "1" * 100_000 + "}\n")
    elif kind == "deep-later":  # a good header, then the hostile line
        path.write_text(header + '{"rounds":[]}}\n{"event":"recv","line":' + "[" * 100_000 + "]" * 100_000 + "}\n")
    elif kind == "long-line":
        path.write_text('{"event":"game","pad":"' + "x" * (9 * 1024 * 1024) + '"}\n')
    return path


@pytest.mark.parametrize("command", ["verify", "replay"])
@pytest.mark.parametrize("kind", ["zero", "deep", "digits", "deep-later", "long-line"])
def test_a_file_that_is_no_game_log_is_one_line(tmp_path: Path, command: str, kind: str) -> None:
    done = referee(command, hostile(tmp_path, kind))
    assert done.returncode not in (0, None), done.stdout
    assert "Traceback" not in done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert str(hostile(tmp_path, kind)) in lines[0]
