"""Helpers for tournament tests that run ``referee`` as a real process with real bot processes."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

BOT = Path(__file__).resolve().parents[1] / "bots" / "random_bot.py"


def referee(*args: object, cwd: Path | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run ``python -m referee ARGS`` to the end; text output."""
    return subprocess.run(
        [sys.executable, "-m", "referee", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=timeout,
    )


@pytest.fixture
def bot_dir(tmp_path: Path) -> Path:
    """A folder with copies of the random bot named alpha.py, beta.py, gamma.py, delta.py (a unique path per test,
    so leftover bot processes can be found by it)."""
    folder = tmp_path / "bots"
    folder.mkdir()
    for name in ("alpha", "beta", "gamma", "delta"):
        shutil.copy(BOT, folder / f"{name}.py")
    return folder


def live_processes_under(path: Path) -> list[int]:
    """Pids of processes whose command line mentions ``path``."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            state = next((ln for ln in (proc / "status").read_text().splitlines() if ln.startswith("State:")), "")
        except OSError:
            continue
        if str(path) in cmdline and "zombie" not in state:
            found.append(int(proc.name))
    return found
