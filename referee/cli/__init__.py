"""The command-line interface: click commands only. Nothing in the project imports it.

``app.COMMANDS`` maps each command to the ``*_cmd`` module that defines it; the module is imported only when
the command runs or shows its help.
"""

from referee.cli.app import main

__all__ = ["main"]
