"""``referee replay LOG`` and ``referee verify LOG``: read a game log back, or re-check it with the engine."""

from __future__ import annotations

import json
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
@click.argument("log", type=click.Path(dir_okay=False, path_type=Path))
@click.option("--json", "as_json", is_flag=True, help='Print {"ok", "message", "line"} as one JSON object.')
def verify_cmd(log: Path, as_json: bool) -> None:
    """Re-run a game log through the engine: confirm every move and score, or name the first disagreement.

    Exits with status 1 when the log disagrees with the engine.
    """
    from referee.runner import LogError, read_log
    from referee.runner.safe_text import visible
    from referee.runner.verify import verify_log

    try:
        events = read_log(log)
    except LogError as exc:
        raise click.ClickException(str(exc)) from None
    verdict = verify_log(events)
    if as_json:
        click.echo(json.dumps({"ok": verdict.ok, "message": verdict.message, "line": verdict.line}))
    elif verdict.ok:
        click.echo(f"{log}: {visible(verdict.message)}")
    else:
        where = f"{log}:{verdict.line}" if verdict.line else str(log)
        click.echo(f"{where}: DISAGREES: {visible(verdict.message)}")
    if not verdict.ok:
        raise SystemExit(1)
