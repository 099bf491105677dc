"""The command-line interface: click commands only. Nothing in the project imports it.

Each ``*_cmd`` module registers its commands on ``main`` when imported here.
"""

from referee.cli import check_cmd  # noqa: F401
from referee.cli import log_cmd  # noqa: F401
from referee.cli import play_cmd  # noqa: F401
from referee.cli import protocol_cmd  # noqa: F401
from referee.cli import report_cmd  # noqa: F401
from referee.cli import run_cmd  # noqa: F401
from referee.cli.app import main

__all__ = ["main"]
