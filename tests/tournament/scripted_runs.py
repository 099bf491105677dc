"""Real tournaments (the real runner, engine, store and game logs) of in-process scripted entrants, for tests that
need a results folder fast: no bot process is started."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from referee.runner.logfile import LogLevel
from referee.tournament import (
    DealSecret,
    EntrantInfo,
    LocalExecutor,
    Requested,
    ResultsStore,
    resolve_params,
    run_tournament,
)
from tests.runner.scripted import ScriptedEntrant


def scripted_tournament(folder: Path, names: Sequence[str], *, logs: LogLevel = LogLevel.FULL, **asked: Any) -> Path:
    """Play the tournament ``asked`` (``Requested``'s fields: table_size, repeats, format, ...) of scripted entrants
    named ``names`` into ``folder`` (its deal secret all zeros) and return the folder."""
    entrants = tuple(EntrantInfo(n, ("python3", f"{n}.py"), "/tmp") for n in names)
    params = resolve_params(None, Requested(entrants=entrants, **asked))

    def factory(spec: Any, config: Any, stderr: Path) -> ScriptedEntrant:
        return ScriptedEntrant(spec.name)

    with ResultsStore(folder) as store:
        store.initialise(params, DealSecret(bytes(32)))
        run_tournament(store, params, LocalExecutor(2, factory=factory), logs=logs)
    return folder
