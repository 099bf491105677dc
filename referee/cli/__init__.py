"""The command-line interface: click commands only. Nothing in the project imports it.

Each ``*_cmd`` module registers its commands on ``main`` when imported here.
"""

from referee.cli import check_cmd, log_cmd, play_cmd, protocol_cmd, report_cmd, run_cmd  # noqa: F401
from referee.cli.app import main

__all__ = ["main"]
