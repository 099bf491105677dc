"""``referee report``: the HTML report of a tournament folder."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from referee.report import ReportOutcome
    from referee.tournament import Tally


def describe(outcome: ReportOutcome) -> str:
    """One line saying what was written (and whether it is partial)."""
    size = f"{outcome.size / 1e6:.1f} MB" if outcome.size >= 1e6 else f"{max(1, round(outcome.size / 1e3))} kB"
    games = f"{outcome.games} game{'s' if outcome.games != 1 else ''}"
    line = f"Report written to {outcome.path} ({size}, {games}"
    if outcome.replays < outcome.games:
        line += f", {outcome.replays} with a replay"
    line += ")"
    if outcome.games == 0:
        line += "; partial: no game has finished yet"
    elif outcome.partial:
        line += f"; partial: {outcome.games} of {outcome.planned or '?'} games stored (still running or stopped)"
    return line


def report_after_run(directory: Path, counted: Tally | None = None, *, err: bool = False) -> None:
    """Write ``DIRECTORY/report.html`` at the end of ``referee run``: one line, a failure only warns. ``counted``:
    the run's standings of every stored game (``tally_from_store(store, history=True)``), so that the report does
    not count them all again. ``err``: the line goes to stderr (``referee run --json`` keeps stdout for its
    events)."""
    from referee.report import ReportError, build_report

    try:
        click.echo(describe(build_report(directory, counted=counted)), err=err)
    except ReportError as exc:
        click.echo(f"referee run: the report was not written: {exc}", err=True)


@click.command("report")
@click.argument("directory", type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--output",
    "-o",
    type=click.Path(path_type=Path, dir_okay=False),
    help="HTML file.  [default: DIRECTORY/report.html]",
)
@click.option("--title", help="The contest's name at the top of the report.  [default: the folder's name]")
def report_cmd(directory: Path, output: Path | None, title: str | None) -> None:
    """Write the HTML report of the tournament in DIRECTORY: standings, charts, faults and game replays.

    One self-contained file that needs no network: it opens in a current browser (Chrome or Edge 80+,
    Firefox 113+, Safari 16.4+). A tournament still running (or
    stopped) gets a report of the games stored so far, marked partial.
    """
    from referee.report import NoTournament, ReportError, build_report

    try:
        outcome = build_report(directory, output, title=title)
    except ReportError as exc:
        click.echo(f"referee report: error: {exc}", err=True)
        sys.exit(2 if isinstance(exc, NoTournament) else 1)
    click.echo(describe(outcome))
