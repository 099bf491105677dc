"""Ctrl-C (SIGINT) and SIGTERM in every command: one line on stderr and exit status 130.

The work itself stops through ``referee.runner.stopping`` (its clean-ups finish, finished games are kept); a
command says what was kept with ``interrupted``, and ``stops_cleanly`` covers the rest of its body (a Ctrl-C
while it resolves its options or writes its files: nothing is half-written).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NoReturn

import click

#: The exit status of a command stopped by Ctrl-C.
EXIT_INTERRUPTED = 130


def interrupted(command: str, kept: str = "") -> NoReturn:
    """Say ``referee COMMAND: interrupted`` (with ``kept``, what was kept, after a semicolon) and exit 130."""
    click.echo(f"referee {command}: interrupted" + (f"; {kept}" if kept else ""), err=True)
    sys.exit(EXIT_INTERRUPTED)


@contextmanager
def stops_cleanly(command: str) -> Iterator[None]:
    """Around a command's body: a Ctrl-C or a ``Stopped`` work that nothing else reported ends it with
    ``interrupted``."""
    try:
        yield
    except KeyboardInterrupt:
        interrupted(command)
    except Exception as e:
        from referee.runner.stopping import Stopped  # the runner only when there is something to catch

        if isinstance(e, Stopped):
            interrupted(command)
        raise


def resume_hint(command: str, after: str, directory: object) -> NoReturn:
    """The line of a tournament or comparison stopped by Ctrl-C (``after``: how far it got), then exit 130."""
    click.echo(f"Interrupted after {after}; continue with: referee {command} --resume {directory}", err=True)
    sys.exit(EXIT_INTERRUPTED)
