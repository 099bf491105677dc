"""``referee check BOT``: the conformance suite for one bot, as text, JSON or JUnit XML."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import click

from referee.cli.interrupt import stops_cleanly

if TYPE_CHECKING:
    from referee.settings import SandboxMode

from referee.cli.options import limit_option, move_time_option, sandbox_option, startup_time_option

#: Exit codes: every check passed / the bot failed a check / bad options or arguments (click's own code) /
#: stopped by Ctrl-C (``referee.cli.interrupt.EXIT_INTERRUPTED``).
EXIT_PASSED, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
#: ``referee.check.DEFAULT_GAMES``, spelled out so that ``--help`` imports no check suite (a test compares them).
DEFAULT_GAMES = 24


@click.command("check")
@click.argument("bot", metavar="BOT")
@click.option(
    "--games",
    type=click.IntRange(min=1),
    default=DEFAULT_GAMES,
    show_default=True,
    help="Games against the sample bots (2, 3 and 4 seats in turn), plus one with unknown fields.",
)
@move_time_option()
@startup_time_option()
@sandbox_option()
@click.option("--seed", type=int, default=23, show_default=True, help="Seed of the suite's deals.")
@click.option("--jobs", "-j", type=click.IntRange(min=1), default=2, show_default=True, help="Games at once.")
@click.option(
    "--opponent",
    "opponents",
    multiple=True,
    help="An opponent: a sample bot's name (random_bot, greedy, heuristic, montecarlo, js_bot) or a BOT."
    "  Repeat for several.  [default: random_bot, greedy, heuristic]",
)
@click.option("--name", default=None, help="The bot's name in the report [default: the file's stem].")
@click.option("--json", "as_json", is_flag=True, help="Print the report as one JSON object.")
@click.option(
    "--junit",
    "junit_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Also write the report as JUnit XML (one test case per check) to this file.",
)
@click.option(
    "--logs",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Keep the game logs and the bot's stderr in this folder (default: discarded).",
)
@click.option("--verbose", "-v", is_flag=True, help="Show each game as it finishes (on stderr).")
@limit_option
@stops_cleanly("check")  # a Ctrl-C before or after the games: one line, exit 130
def check_cmd(
    bot: str,
    games: int,
    move_time: float,
    startup_time: float,
    sandbox: SandboxMode,
    seed: int,
    jobs: int,
    opponents: tuple[str, ...],
    name: str | None,
    as_json: bool,
    junit_file: Path | None,
    logs: Path | None,
    verbose: bool,
    limits: dict[str, int | None],
) -> None:
    """Check that BOT speaks protocol v1 correctly before it enters a contest.

    Runs the handshake, a session with unknown fields and message types, and games against the sample bots
    at 2, 3 and 4 seats, dealt so that the bot meets the situations that break naive bots (holding the 1,
    being forced, only cards lower than last, no bonus chips left, round 2, last player in a round). Reports
    move latency, stray output on stdout and whether the bot exits on bye.

    Exit status: 0 every check passed, 1 the bot failed a check, 2 bad arguments or options, 130 Ctrl-C.
    """
    from referee.check import CheckOptions, render_text, resolve_opponent, run_check, write_junit
    from referee.cli.interrupt import interrupted
    from referee.engine import RefereeError
    from referee.runner import BotSpecError, Limits, Stopped, parse_bot_spec, run_until_stopped
    from referee.runner.safe_text import visible

    try:
        spec = parse_bot_spec(bot, name=name)
        if name is None and (arguments := _options_of(bot)):  # two versions told apart by their arguments
            spec = replace(spec, name=f"{spec.name} {arguments}"[:48].rstrip())
        opponent_specs = tuple(resolve_opponent(o) for o in opponents)
    except BotSpecError as exc:
        raise click.BadParameter(str(exc), param_hint="BOT" if "opponent" not in str(exc) else "--opponent") from None

    def progress(line: str) -> None:
        if verbose:
            click.echo(visible(line), err=True)

    try:
        options = CheckOptions(
            move_time,
            startup_time,
            sandbox=sandbox,
            limits=Limits(**limits),
            games=games,
            seed=seed,
            jobs=jobs,
            opponents=opponent_specs,
            logs=logs,
        )
        report = run_until_stopped(lambda: run_check(spec, options, progress))
    except Stopped:
        interrupted("check")
    except (RefereeError, ValueError) as exc:
        raise click.UsageError(str(exc)) from None
    if junit_file is not None:
        try:
            write_junit(report, junit_file)
        except OSError as exc:
            raise click.UsageError(f"cannot write the JUnit report {junit_file}: {exc.strerror or exc}") from None
    if as_json:
        click.echo(json.dumps(report.to_dict(), indent=2))
    else:
        click.echo(render_text(report))
    sys.exit(EXIT_PASSED if report.passed else EXIT_FAILED)


def _options_of(bot: str) -> str:
    """The arguments a BOT command line gives its program after the bot's own file (``mybot.py --level 2``:
    ``--level 2``), or ""."""
    import shlex

    if " " not in bot.strip() or Path(bot.strip()).exists():
        return ""
    try:
        words = shlex.split(bot)
    except ValueError:
        return ""
    files = [i for i, w in enumerate(words) if not w.startswith("-") and Path(w).expanduser().is_file()]
    return " ".join(words[files[-1] + 1 :]) if files else ""
