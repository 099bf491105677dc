"""``referee verify RESULTS``: re-run many game logs through the engine in one process (and its workers).

A target is a game log, a results folder (the logs its store lists, each log's result also held against the
scores the store recorded for its game), or another folder of logs (every ``*.jsonl``, ``*.jsonl.zst`` and
``*.jsonl.gz`` in it). The logs are verified in schedule order by ``jobs`` worker processes
(``referee.runner.verify.verify_file``), and every failure is kept: a log that disagrees with the engine, one that
cannot be read, a stored game whose log is missing or whose result differs from the store's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from multiprocessing import get_context
from pathlib import Path

from referee.runner.logrecords import LogError
from referee.runner.verify import verify_file
from referee.tournament.store import DB_NAME, ResultsStore

__all__ = ["LOG_PATTERNS", "LogCheck", "LogFailure", "check_logs", "logs_to_check"]

#: The file names a folder's game logs have: plain (``referee play``, an older referee), compressed (a tournament's).
LOG_PATTERNS = ("*.jsonl", "*.jsonl.zst", "*.jsonl.gz")
#: Logs handed to a worker process at a time.
_CHUNK = 32


@dataclass(frozen=True, slots=True)
class LogFailure:
    """One log that did not verify: ``path`` (and ``line``, when known) and why."""

    path: Path
    message: str
    line: int | None = None

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else str(self.path)
        return f"{where}: {self.message}"


@dataclass(frozen=True, slots=True)
class _Log:
    """A log to verify, with the scores its results store holds for its game (None: no store)."""

    path: Path
    stored: tuple[int, ...] | None = None


@dataclass(slots=True)
class LogCheck:
    """What ``check_logs`` found: how many logs it ``checked`` (``compact`` of them compact logs), every failure,
    and how many stored games kept no log (``--logs none``)."""

    checked: int = 0
    compact: int = 0
    unlogged: int = 0
    failures: list[LogFailure] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def summary(self) -> str:
        """One line: how many logs agree, or how many do not."""
        what = f"{self.checked:,} game log{'s' if self.checked != 1 else ''}"
        notes = []
        if self.compact:
            notes.append(f"{self.compact:,} compact: moves checked against the engine, not the bots' reply lines")
        if self.unlogged:
            notes.append(f"{self.unlogged:,} stored game(s) kept no log")
        note = f" ({'; '.join(notes)})" if notes else ""
        if self.ok:
            return f"verified {what}: every move, forfeit and score agrees with the engine{note}"
        return f"{len(self.failures):,} of {what} failed verification (each named above){note}"


def logs_to_check(targets: Sequence[Path]) -> tuple[list[_Log], int]:
    """The logs the ``targets`` name, in order, and how many stored games of the results folders among them have no
    log. Raises ``LogError`` for a target that does not exist or is a folder holding no game log, ``StoreError``
    for a results folder whose database cannot be read."""
    logs: list[_Log] = []
    unlogged = 0
    for target in targets:
        if (target / DB_NAME).is_file():
            stored, missing = _stored_logs(target)
            logs.extend(stored)
            unlogged += missing
        elif target.is_dir():
            found = sorted({p for pattern in LOG_PATTERNS for p in target.glob(pattern)})
            if not found and (target / "games").is_dir():
                found = sorted({p for pattern in LOG_PATTERNS for p in (target / "games").glob(pattern)})
            if not found:
                raise LogError(f"{target} is a folder without game logs (*.jsonl, *.jsonl.zst) or {DB_NAME}")
            logs.extend(_Log(p) for p in found)
        elif target.exists():
            logs.append(_Log(target))
        else:
            raise LogError(f"{target} does not exist")
    return logs, unlogged


def _stored_logs(directory: Path) -> tuple[list[_Log], int]:
    """The logs a results folder's store lists, each with its stored scores, and how many games have none."""
    with ResultsStore(directory, read_only=True) as store, store.snapshot():
        store.tournament()
        games = list(store.games())
    logs = [_Log(directory / g.log_path, tuple(s.score for s in g.seats)) for g in games if g.log_path]
    return logs, len(games) - len(logs)


def check_logs(
    targets: Sequence[Path], *, jobs: int = 1, on_done: Callable[[int, int], None] | None = None
) -> LogCheck:
    """Verify every log of ``targets`` (``logs_to_check``) with ``jobs`` worker processes (1: in this one);
    ``on_done(done, total)`` sees the progress. Raises what ``logs_to_check`` raises; every log's failure is in the
    result."""
    logs, unlogged = logs_to_check(targets)
    check = LogCheck(unlogged=unlogged)
    total = len(logs)
    for done, (log, outcome) in enumerate(zip(logs, _outcomes(logs, jobs), strict=True), start=1):
        check.checked += 1
        match outcome:
            case str(error):
                check.failures.append(LogFailure(log.path, error))
            case (ok, message, line, scores, wire):
                if not wire:
                    check.compact += 1
                if not ok:
                    check.failures.append(LogFailure(log.path, f"DISAGREES: {message}", line))
                elif log.stored is not None and scores != log.stored:
                    stored = list(log.stored)
                    logged = list(scores or ())
                    check.failures.append(
                        LogFailure(log.path, f"DISAGREES: the results store holds scores {stored}, the log {logged}")
                    )
        if on_done is not None:
            on_done(done, total)
    return check


#: What a worker sends back for one log: a ``LogError``'s text, or (ok, message, line, scores, wire) of its verdict.
_Outcome = str | tuple[bool, str, int | None, tuple[int, ...] | None, bool]


def _verify_one(path: Path) -> _Outcome:
    try:
        v = verify_file(path)
    except LogError as exc:
        return str(exc if exc.path else exc.at(path))
    return (v.ok, v.message, v.line, v.scores, v.wire)


def _outcomes(logs: Sequence[_Log], jobs: int) -> Iterator[_Outcome]:
    """Each log's outcome, in order: in this process, or in ``jobs`` forked worker processes."""
    paths: Iterable[Path] = (log.path for log in logs)
    if jobs <= 1 or len(logs) <= _CHUNK:
        yield from map(_verify_one, paths)
        return
    with ProcessPoolExecutor(max_workers=jobs, mp_context=get_context("fork")) as pool:
        yield from pool.map(_verify_one, paths, chunksize=_CHUNK)
