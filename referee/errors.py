"""Every error the referee raises on purpose, in one place (import from here, never the other way round).

    RefereeError                      referee.engine.errors: the root
    ├── IllegalMove                   an action the rules forbid (a bot's: a forfeit)
    ├── RulesetError, DealError       a ruleset or deal that cannot be played
    ├── ProtocolViolation             protocol.errors: a bot line protocol v1 does not allow (``kind``)
    ├── BotFault                      referee.runner.errors: a bot broke the runner's rules (``kind``, ``line``)
    │   ├── BotCrashed                exited, closed its output, could not start
    │   ├── BotTimeout                missed a deadline
    │   ├── UnsolicitedOutput         wrote when no reply was awaited
    │   └── StartupFailed             no good hello
    ├── BotSpecError                  a BOT argument names nothing runnable
    ├── ConfigError                   an impossible runner option
    ├── LogError                      a file that is not a readable game log
    ├── ReportError, ReplayError      referee.report.errors
    └── CompareError                  referee.compare.errors: a comparison that cannot be run or continued
        └── DesignError               impossible test parameters (alpha, beta, d0, d1)

Bot faults become recorded forfeits; the others become one-line messages. Anything else escaping is a bug.
"""

from protocol.errors import ProtocolViolation
from referee.compare.errors import CompareError, DesignError
from referee.engine.errors import DealError, IllegalMove, RefereeError, RulesetError
from referee.report.errors import NoTournament, ReplayError, ReportError
from referee.runner.config import ConfigError
from referee.runner.errors import (
    BotCrashed,
    BotFault,
    BotSpecError,
    BotTimeout,
    StartupFailed,
    UnsolicitedOutput,
)
from referee.runner.gamelog import LogError

__all__ = [
    "BotCrashed",
    "BotFault",
    "BotSpecError",
    "BotTimeout",
    "CompareError",
    "ConfigError",
    "DealError",
    "DesignError",
    "IllegalMove",
    "LogError",
    "NoTournament",
    "ProtocolViolation",
    "RefereeError",
    "ReplayError",
    "ReportError",
    "RulesetError",
    "StartupFailed",
    "UnsolicitedOutput",
]
