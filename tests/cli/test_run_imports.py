"""``referee run`` loads only what it uses: a run of bots that behave, without ``--cluster`` or ``--manifest``, never
imports pydantic (replies are read by ``protocol.replies``), the cluster's modules, the log verifier, the seat for a
person at the terminal, the TOML reader, numpy or (without ``--lane-processes``) the lane workers; ``referee
standings`` not the runner; ``--help`` loads none of the runner, the tournament or rich."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "bench" / "bots" / "stdlib_random.py"

#: Prints, after the command, which of these modules it loaded.
WATCH = """
import sys
watched = sys.argv.pop(1).split(",")
from referee.cli import main
try:
    main()
finally:
    print("LOADED", ",".join(m for m in watched if m in sys.modules) or "-", file=sys.stderr)
"""

NEVER_IN_A_RUN = [
    "pydantic",
    "protocol.messages",
    "protocol.codec",
    "referee.tournament.cluster",
    "referee.tournament.cluster_worker",
    "referee.runner.verify",
    "referee.runner.human",
    "tomllib",
    "numpy",
    "importlib.resources",
    "referee.tournament.lane_workers",  # only with --lane-processes
    "referee.contest.lane_channel",
]


def loaded(args: list[str], watched: list[str]) -> list[str]:
    """The modules of ``watched`` that ``referee ARGS`` loaded (it must exit with status 0)."""
    done = subprocess.run(
        [sys.executable, "-c", WATCH, ",".join(watched), *args], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stderr.splitlines() if x.startswith("LOADED "))
    names = line.split(" ", 1)[1]
    return [] if names == "-" else names.split(",")


def test_a_run_of_bots_that_behave_loads_none_of_the_parts_it_does_not_use(tmp_path: Path) -> None:
    args = ["run", *[str(BOT)] * 4, "-n", "1", "--jobs", "2", "--sandbox", "none", "--seed", "1"]
    assert loaded([*args, "-o", str(tmp_path / "r")], [*NEVER_IN_A_RUN, "trio", "rich"]) == ["trio", "rich"]
    assert (tmp_path / "r" / "report.html").exists()
    # The standings again: the tables, not the runner, the lanes or the report.
    again = ["trio", "referee.runner.game", "referee.tournament.execute", "referee.report.build", "pydantic"]
    assert loaded(["standings", str(tmp_path / "r")], [*again, "rich"]) == ["rich"]


def test_help_loads_neither_the_runner_nor_the_tournament() -> None:
    heavy = ["trio", "rich", "pydantic", "referee.runner.game", "referee.tournament.run", "referee.report.build"]
    assert loaded(["run", "--help"], heavy) == []
    assert loaded(["--help"], heavy) == []
