"""The match runner: bots as sandboxed child processes speaking protocol v1, one game at a time.

``parse_bot_spec`` turns a BOT argument into a ``BotSpec``; a ``Player`` is an entrant's bot process (reused
across games); ``play_game`` plays one game and returns a ``GameResult`` with every fault recorded. Bot faults
never raise out of ``play_game``; they become forfeits. Game logs are read back with ``read_log`` and checked
with ``verify_log`` and told with ``render_log``; ``HumanPlayer`` seats a person at the terminal.
"""

from typing import TYPE_CHECKING

from referee.lazy import lazy_names

if TYPE_CHECKING:
    from referee.runner.config import BotSettings, ClockMode, ConfigError, Limits, RunnerConfig, SandboxMode
    from referee.runner.errors import (
        BotCrashed,
        BotFault,
        BotSpecError,
        BotTimeout,
        StartupFailed,
        UnsolicitedOutput,
    )
    from referee.runner.faults import FAULT_KINDS, Fault, FaultKind
    from referee.runner.game import GameResult, Participant, play_game
    from referee.runner.game_ids import opaque_game_id
    from referee.runner.gamelog import read_log
    from referee.runner.human import HumanPlayer
    from referee.runner.logrecords import LogError
    from referee.runner.player import Player
    from referee.runner.render import render_log
    from referee.runner.sandbox import check_results_hidden, entrant_paths
    from referee.runner.spec import BotSpec, parse_bot_spec
    from referee.runner.stopping import Stopped, run_until_stopped
    from referee.runner.verify import Verdict, verify_log

#: Where each public name lives, imported on first use (PEP 562): ``referee run`` loads the player and the game, not
#: the log verifier or the seat for a person at the terminal (which read messages through the pydantic models).
_WHERE: dict[str, str] = {
    "BotCrashed": "referee.runner.errors",
    "BotFault": "referee.runner.errors",
    "BotSettings": "referee.runner.config",
    "BotSpec": "referee.runner.spec",
    "BotSpecError": "referee.runner.errors",
    "BotTimeout": "referee.runner.errors",
    "ClockMode": "referee.runner.config",
    "ConfigError": "referee.runner.config",
    "FAULT_KINDS": "referee.runner.faults",
    "FaultKind": "referee.runner.faults",
    "Fault": "referee.runner.faults",
    "GameResult": "referee.runner.game",
    "HumanPlayer": "referee.runner.human",
    "Limits": "referee.runner.config",
    "LogError": "referee.runner.logrecords",
    "Participant": "referee.runner.game",
    "Player": "referee.runner.player",
    "RunnerConfig": "referee.runner.config",
    "SandboxMode": "referee.runner.config",
    "StartupFailed": "referee.runner.errors",
    "Stopped": "referee.runner.stopping",
    "UnsolicitedOutput": "referee.runner.errors",
    "Verdict": "referee.runner.verify",
    "check_results_hidden": "referee.runner.sandbox",
    "entrant_paths": "referee.runner.sandbox",
    "opaque_game_id": "referee.runner.game_ids",
    "parse_bot_spec": "referee.runner.spec",
    "play_game": "referee.runner.game",
    "read_log": "referee.runner.gamelog",
    "render_log": "referee.runner.render",
    "run_until_stopped": "referee.runner.stopping",
    "verify_log": "referee.runner.verify",
}

__getattr__, __dir__ = lazy_names("referee.runner", _WHERE, globals())

__all__ = sorted(_WHERE)
