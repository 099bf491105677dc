"""The ``referee`` command group. Command modules beside this one register themselves on ``main``."""

from __future__ import annotations

import click

from referee import __version__


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="referee")
def main() -> None:
    """Tournament referee for bot contests in the card game 23.

    Bots are programs in any language that speak protocol v1 (one JSON object per line on stdin/stdout).
    """
