"""A bot on the SDK starts light: importing ``protocol.sdk`` (and the random sample bot up to its hello reply)
loads neither pydantic nor the engine's rules, so it starts about as fast as a bot on the standard library."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("pydantic", "referee.engine.rules", "referee.engine.ruleset", "referee.engine.state", "protocol.messages")

PROBE = """
import os, runpy, sys
sys.argv = [sys.argv[1]]
sys.path.insert(0, os.path.dirname(sys.argv[0]))  # as when the bot runs as a script
runpy.run_path(sys.argv[0], run_name="__main__")
heavy = sorted(m for m in sys.modules if m.startswith(HEAVY))
print(" ".join(heavy) or "-", file=sys.stderr)
"""


def test_the_sdk_and_a_sample_bot_answer_hello_without_the_heavy_modules() -> None:
    code = PROBE.replace("HEAVY", repr(HEAVY))
    done = subprocess.run(
        [sys.executable, "-c", code, str(ROOT / "sample_bots" / "random_bot.py")],
        input=b'{"type":"hello","protocol":1}\n',
        capture_output=True,
        timeout=60,
        check=True,
    )
    assert done.stdout == b'{"type":"hello","protocol":1,"name":"random"}\n'
    assert done.stderr.decode().split() == ["-"]
