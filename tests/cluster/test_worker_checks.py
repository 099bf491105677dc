"""The worker's side of a batch, without Dask: how entrant commands are localised and checked on a worker."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from referee.engine import STANDARD
from referee.runner import RunnerConfig
from referee.tournament import DealSecret, EntrantInfo, WorkerSetupError, make_schedule
from referee.tournament.cluster_worker import BatchJob, local_spec, play_batch_task, required_files

from .conftest import entrants

COORDINATOR_PYTHON = "/opt/coordinator/venv/bin/python"


def test_the_coordinators_interpreter_becomes_the_workers(bot_dir: Path) -> None:
    script = str(bot_dir / "alpha.py")
    info = EntrantInfo("alpha", (COORDINATOR_PYTHON, script, "--fast"), str(bot_dir), {"K": "v"})
    spec = local_spec(info, COORDINATOR_PYTHON)
    assert spec.argv == (sys.executable, script, "--fast")
    assert spec.cwd == bot_dir and dict(spec.env) == {"K": "v"}
    other = EntrantInfo("beta", ("/usr/bin/node", script), str(bot_dir))
    assert local_spec(other, COORDINATOR_PYTHON).argv == ("/usr/bin/node", script)


def test_required_files_are_the_folder_and_existing_paths_but_not_the_interpreter(bot_dir: Path) -> None:
    script = str(bot_dir / "alpha.py")
    info = EntrantInfo("alpha", (sys.executable, script, "--depth", "3", "/no/such/output"), str(bot_dir))
    assert required_files(info, sys.executable) == (str(bot_dir), script)


def job_for(info: EntrantInfo, others: tuple[EntrantInfo, ...]) -> BatchJob:
    table = (info, *others[:2])
    batch = make_schedule([e.name for e in table], table_size=3, repeats=1, seed=1, secret=DealSecret.new())[0]
    return BatchJob(
        run_key="checks",
        batch=batch,
        entrants=table,
        config=RunnerConfig(sandbox="none"),
        ruleset=STANDARD.to_dict(),
        skip=frozenset(),
        python=sys.executable,
        files={e.name: required_files(e, sys.executable) for e in table},
        startable=frozenset(e.name for e in table),
    )


@pytest.mark.parametrize(
    ("argv", "says"),
    [
        (("/nowhere/bin/mybot",), "program /nowhere/bin/mybot is not executable on this worker"),
        (("no-such-bot-program-here",), "program no-such-bot-program-here is not on this worker's PATH"),
    ],
)
def test_a_program_missing_on_the_worker_is_named_before_any_game(
    bot_dir: Path, argv: tuple[str, ...], says: str
) -> None:
    others = entrants(bot_dir)[1:]
    with pytest.raises(WorkerSetupError) as caught:
        play_batch_task(job_for(EntrantInfo("zeta", argv, str(bot_dir)), others))
    assert caught.value.entrant == "zeta"
    assert str(caught.value) == f"worker pid {os.getpid()}: entrant zeta: {says}"
