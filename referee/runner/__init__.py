"""The match runner: bots as sandboxed child processes speaking protocol v1, one game at a time.

``parse_bot_spec`` turns a BOT argument into a ``BotSpec``; a ``Player`` is an entrant's bot process (reused
across games); ``play_game`` plays one game and returns a ``GameResult`` with every fault recorded. Bot faults
never raise out of ``play_game``; they become forfeits. Game logs are read back with ``read_log`` and checked
with ``verify_log`` and told with ``render_log``; ``HumanPlayer`` seats a person at the terminal.
"""

from referee.runner.config import BotSettings, ClockMode, ConfigError, Limits, RunnerConfig, SandboxMode
from referee.runner.errors import (
    BotCrashed,
    BotFault,
    BotSpecError,
    BotTimeout,
    StartupFailed,
    UnsolicitedOutput,
)
from referee.runner.faults import FAULT_KINDS, Fault
from referee.runner.game import GameResult, Participant, play_game
from referee.runner.gamelog import read_log
from referee.runner.human import HumanPlayer
from referee.runner.logrecords import LogError
from referee.runner.player import Player
from referee.runner.render import render_log
from referee.runner.sandbox import check_results_hidden, entrant_paths
from referee.runner.spec import BotSpec, parse_bot_spec
from referee.runner.stopping import Stopped, run_until_stopped
from referee.runner.verify import Verdict, verify_log

__all__ = [
    "FAULT_KINDS",
    "BotCrashed",
    "BotFault",
    "BotSettings",
    "BotSpec",
    "BotSpecError",
    "BotTimeout",
    "ClockMode",
    "ConfigError",
    "Fault",
    "GameResult",
    "HumanPlayer",
    "Limits",
    "LogError",
    "Participant",
    "Player",
    "RunnerConfig",
    "SandboxMode",
    "StartupFailed",
    "Stopped",
    "UnsolicitedOutput",
    "Verdict",
    "check_results_hidden",
    "entrant_paths",
    "parse_bot_spec",
    "play_game",
    "read_log",
    "render_log",
    "run_until_stopped",
    "verify_log",
]
