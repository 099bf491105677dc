"""The command-line interface: click commands only. Nothing in the project imports it.

Each ``*_cmd`` module registers its commands on ``main`` when imported here.
"""

from referee.cli.app import main

__all__ = ["main"]
