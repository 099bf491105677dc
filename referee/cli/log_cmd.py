"""``referee replay LOG`` and ``referee verify LOG``: read a game log back, or re-check it with the engine."""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import click


@click.command("replay")
@click.argument("log", type=click.Path(dir_okay=False, path_type=Path))
def replay_cmd(log: Path) -> None:
    """Print a game log turn by turn: deals, discards, moves with reply times, faults, rounds, result."""
    from referee.runner import LogError, read_log
    from referee.runner.render import render_log

    try:
        lines = render_log(read_log(log))
    except LogError as exc:
        raise click.ClickException(str(exc if exc.path else exc.at(log))) from None
    for line in lines:
        click.echo(line)


@click.command("verify")
@click.argument("logs", nargs=-1, required=True, type=click.Path(path_type=Path), metavar="LOG|RESULTS...")
@click.option(
    "--jobs", "-j", type=click.IntRange(min=1), help="Worker processes verifying logs.  [default: number of cores]"
)
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help='Print one JSON object: for one log {"ok", "message", "line"}; for more, {"ok", "checked", "failures"}.',
)
def verify_cmd(logs: tuple[Path, ...], jobs: int | None, as_json: bool) -> None:
    """Re-run game logs through the engine: confirm every move and score, or name the first disagreement.

    Each argument is a game log (plain or compressed), a results folder (every log its database lists, each log's
    result also compared with the stored one) or a folder of logs. Many logs are checked in one process, with
    --jobs worker processes, and end with one summary line. Exits with status 1 when a log disagrees with the
    engine or cannot be read, naming each one.
    """
    if len(logs) == 1 and not logs[0].is_dir():
        _verify_one(logs[0], as_json)
        return
    _verify_many(logs, jobs or len(os.sched_getaffinity(0)), as_json)


def _verify_one(log: Path, as_json: bool) -> None:
    from referee.runner import LogError
    from referee.runner.safe_text import visible
    from referee.runner.verify import verify_file

    try:
        verdict = verify_file(log)
    except LogError as exc:
        raise click.ClickException(str(exc if exc.path else exc.at(log))) from None
    if as_json:
        click.echo(json.dumps({"ok": verdict.ok, "message": verdict.message, "line": verdict.line}))
    elif verdict.ok:
        click.echo(f"{log}: {visible(verdict.message)}")
    else:
        where = f"{log}:{verdict.line}" if verdict.line else str(log)
        click.echo(f"{where}: DISAGREES: {visible(verdict.message)}")
    if not verdict.ok:
        raise SystemExit(1)


def _verify_many(targets: tuple[Path, ...], jobs: int, as_json: bool) -> None:
    from referee.runner import LogError
    from referee.runner.safe_text import visible
    from referee.tournament import StoreError
    from referee.tournament.log_check import check_logs

    try:
        with _progress_bar("verify") as advance:
            check = check_logs(list(targets), jobs=jobs, on_done=advance)
    except (LogError, StoreError) as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        failures = [{"path": str(f.path), "line": f.line, "message": f.message} for f in check.failures]
        summary = {"ok": check.ok, "checked": check.checked, "compact": check.compact, "unlogged": check.unlogged}
        click.echo(json.dumps({**summary, "failures": failures}))
    else:
        for failure in check.failures:
            click.echo(visible(str(failure)))
        click.echo(check.summary())
    if not check.ok:
        raise SystemExit(1)


@contextlib.contextmanager
def _progress_bar(what: str) -> Iterator[Callable[[int, int], None]]:
    """A transient bar on a terminal's stderr, advanced by ``advance(done, total)``; nothing elsewhere."""
    if not sys.stderr.isatty():
        yield lambda done, total: None
        return
    import rich.progress
    from rich.console import Console

    columns = (
        rich.progress.TextColumn(what),
        rich.progress.BarColumn(),
        rich.progress.MofNCompleteColumn(),
        rich.progress.TimeElapsedColumn(),
        rich.progress.TextColumn("ETA"),
        rich.progress.TimeRemainingColumn(),
    )
    with rich.progress.Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(what, total=None)
        yield lambda done, total: bar.update(task, completed=done, total=total)
