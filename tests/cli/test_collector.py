"""The garbage collector around a command's loading (``referee.cli.collector``): on the command line, ``referee run``
loads its modules with the collector off and plays its games with it on, what was loaded frozen; a caller in the
same process (``CliRunner``) finds the collector as it left it, nothing of its own frozen."""

from __future__ import annotations

import gc
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from referee.cli import main

ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "bench" / "bots" / "stdlib_random.py"

#: Runs ``referee ARGS`` as the command line does and prints, at its end: how many collections ran while a module
#: was being loaded, whether the collector is on, and how many objects are frozen.
PROBE = """
import gc, sys
from referee.cli import main
loading = []
def loads():
    frame = sys._getframe(2)
    while frame is not None and frame.f_code.co_filename != "<string>":  # up to this script
        if frame.f_code.co_name == "<module>":  # the body of a module being loaded
            return True
        frame = frame.f_back
    return False
gc.callbacks.append(lambda phase, info: phase == "start" and loads() and loading.append(info["generation"]))
try:
    main()
finally:
    print("END", len(loading), gc.isenabled(), gc.get_freeze_count(), file=sys.stderr)
main()
"""


def test_a_run_loads_with_the_collector_off_and_plays_with_it_on(tmp_path: Path) -> None:
    args = ["run", *[str(BOT)] * 4, "-n", "1", "--jobs", "2", "--sandbox", "none", "--seed", "1"]
    done = subprocess.run(
        [sys.executable, "-c", PROBE, *args, "-o", str(tmp_path / "r")], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    line = next(x for x in done.stderr.splitlines() if x.startswith("END "))
    collections, enabled, frozen = line.split()[1:]
    assert enabled == "True"  # the games' garbage is collected
    assert int(frozen) > 10_000  # the modules loaded (trio, rich, the referee's) are left out of every collection
    # Of the ~60 collections its 350 modules would cost, what is left is the report's modules' (loaded at the end,
    # with the collector on): one.
    assert int(collections) <= 3
    assert (tmp_path / "r" / "standings.json").exists()


def test_a_caller_in_the_same_process_keeps_its_collector() -> None:
    frozen = gc.get_freeze_count()
    assert gc.isenabled()
    result = CliRunner().invoke(main, ["run", "--help"])
    assert result.exit_code == 0, result.output
    assert gc.isenabled() and gc.get_freeze_count() == frozen
    gc.disable()  # a caller that turned it off finds it off
    try:
        assert CliRunner().invoke(main, ["standings", "--help"]).exit_code == 0
        assert not gc.isenabled()
    finally:
        gc.enable()
