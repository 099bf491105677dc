"""The ``referee`` command group: its commands are loaded only when one is run or asked for (``--help``).

A command lives in a ``*_cmd`` module beside this one as a plain ``click.command``; ``COMMANDS`` names where.
Command modules import only click and the standard library at import time, and their heavy parts (engine,
runner, tournament, pydantic models, report) inside the command's body, so ``referee --help`` and
``referee COMMAND --help`` stay fast. To add a command, add one line to ``COMMANDS``.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

import click

from referee import __version__
from referee.cli import collector

#: Command name -> "module:attribute" of its click command (``referee --help`` lists them by name).
COMMANDS: dict[str, str] = {
    "run": "referee.cli.run_cmd:run_cmd",
    "standings": "referee.cli.run_cmd:standings_cmd",
    "report": "referee.cli.report_cmd:report_cmd",
    "play": "referee.cli.play_cmd:play_cmd",
    "check": "referee.cli.check_cmd:check_cmd",
    "compare": "referee.cli.compare_cmd:compare_cmd",
    "replay": "referee.cli.log_cmd:replay_cmd",
    "verify": "referee.cli.log_cmd:verify_cmd",
    "verify-deals": "referee.cli.deals_cmd:verify_deals_cmd",
    "audit": "referee.cli.deals_cmd:audit_cmd",
    "protocol": "referee.cli.protocol_cmd:protocol_group",
    "ladder": "referee.cli.ladder_cmd:ladder_group",
}


class LazyGroup(click.Group):
    """A group whose commands are imported from ``COMMANDS`` on first use (click's documented lazy-loading
    pattern), so the heavy imports of one command are never paid by another or by ``--help``."""

    def main(self, args: Any = None, *rest: Any, **kwargs: Any) -> Any:
        """click's ``main``. Called from the command line (``args`` None: the process's own arguments), with the
        garbage collector off until the command is loaded (``referee.cli.collector``)."""
        if args is None:
            collector.start()
        try:
            return super().main(args, *rest, **kwargs)
        finally:
            collector.release()

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        _refuse_globbed_options(args)
        return super().parse_args(ctx, args)

    def resolve_command(
        self, ctx: click.Context, args: list[str]
    ) -> tuple[str | None, click.Command | None, list[str]]:
        found = super().resolve_command(ctx, args)
        collector.release()  # the command's module is loaded (``collector.loading`` holds it off again)
        return found

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*COMMANDS, *super().list_commands(ctx)})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in COMMANDS:
            return super().get_command(ctx, cmd_name)
        module_name, _, attribute = COMMANDS[cmd_name].partition(":")
        command = getattr(importlib.import_module(module_name), attribute)
        if not isinstance(command, click.Command):
            raise TypeError(f"{COMMANDS[cmd_name]} is not a click command")
        return command


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="referee")
def main() -> None:
    """Tournament referee for bot contests in the card game 23.

    Bots are programs in any language that speak protocol v1 (one JSON object per line on stdin/stdout).
    """


def _refuse_globbed_options(args: list[str]) -> None:
    """Exit (status 2, one line) when an option on the command line is the name of a file here: a shell pattern
    (``referee run *.py``) put a file called ``--deal-secret=key.py`` among the options, where it would choose the
    deals. Arguments after ``--`` are bot files whatever their names."""
    for arg in args:
        if arg == "--":
            return
        if arg.startswith("-") and os.path.lexists(arg):
            click.echo(
                f"referee: error: the option {arg!r} is the name of a file here: a shell pattern (such as *.py) put "
                "it among the options; give the bots' folder instead (referee run bots/), or put -- before the bot "
                "files",
                err=True,
            )
            sys.exit(2)
