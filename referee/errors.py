"""Every error the referee raises on purpose, in one place (import from here, never the other way round).

    RefereeError                      referee.engine.errors: the root
    ├── BotError                      a bot's fault, a forfeit: ``kind``, ``detail``, ``line`` from its constructor
    │   ├── IllegalMove               referee.engine.errors: an action the rules forbid
    │   ├── ProtocolViolation         protocol.errors: a bot line the protocol does not allow
    │   └── BotFault                  referee.runner.errors: a bot broke the runner's rules
    │       ├── BotCrashed            exited, closed its output, could not start
    │       ├── BotTimeout            missed a deadline
    │       ├── UnsolicitedOutput     wrote when no reply was awaited
    │       ├── OutputCapped          its lines in one game passed Limits.game_output
    │       ├── StartupFailed         no good hello
    │       └── StalledTable          referee.check.observe: kept passing on a stalled table (the check only)
    ├── LineTooLong                   referee.runner.errors: a bot line over MAX_LINE bytes (the player makes it a
    │                                 protocol fault: the process layer knows no protocol)
    ├── RulesetError, DealError       a ruleset or deal that cannot be played
    ├── BotSpecError                  a BOT argument names nothing runnable
    ├── ConfigError                   referee.settings: an impossible bot setting or runner option
    ├── LogError                      referee.runner.logrecords: a file that is not a readable game log
    │   └── NoHeader                  one without its header line (empty, or cut before it)
    ├── ParamsError                   referee.tournament.params: tournament options that do not fit together
    ├── ScheduleError                 referee.contest.schedule: options that make no schedule
    ├── ManifestError                 referee.tournament.entrants: a bots.toml that cannot be used
    ├── StoreError                    referee.tournament.store: a results database that cannot be used
    │   └── EmptyStore                one that holds no tournament yet
    ├── DealSecretError               referee.contest.deal_secret: an unusable deal secret
    ├── InputFileError                referee.runner.input_file: a named file that is no file, or endless
    ├── FolderBusy                    referee.contest.lock: another referee holds the results folder
    ├── ClusterError                  referee.tournament.errors: a Dask cluster that cannot play
    │   └── WorkerSetupError          a worker that cannot set up the bots
    ├── LaneError                     referee.tournament.lane_workers: a lane's worker process failed
    ├── ReportError, ReplayError      referee.report.errors
    │   └── NoTournament              a folder without a tournament
    ├── CheckError                    referee.check.errors: options the conformance suite cannot run with
    ├── CompareError                  referee.compare.errors: a comparison that cannot be run or continued
    │   └── DesignError               impossible test parameters (alpha, beta, d0, d1)
    ├── LadderError                   referee.ladder.errors: a ladder folder or request that cannot be used
    │   ├── ConfigFileError           a ladder.toml that cannot be used (names the key)
    │   ├── IntakeError               a submitted bot refused (names the entry)
    │   ├── Refused                   a request the ladder's rules refuse
    │   │   ├── NotFound              no such entrant, version, block, game or epoch
    │   │   └── SeatRefused           referee.web's human seat: too many human games at once
    │   ├── LadderStoreError          a ladder database that cannot be used
    │   ├── LaneLost                  a lane's worker process or Dask worker ended while it played a block
    │   ├── ClusterGone               serve --cluster's Dask scheduler gone for good: serve stops
    │   └── VersionShipError          a version's files not fetched on a Dask worker, or not matching their digest
    │       └── VersionBuildError     a version's build failed on a Dask worker of another platform
    ├── ListenError                   referee.web.settings: a --listen address that cannot be served on
    ├── UploadRefused                 referee.web.uploads: an upload refused before it was stored (its HTTP status)
    └── SubmitError                   referee.web.client: a submission over the web API that did not go through

Bot faults become recorded forfeits; the others become one-line messages. Anything else escaping is a bug.

``referee.runner.Stopped`` (SIGINT or SIGTERM stopped the work, its clean-ups done) stays outside the tree, as
``KeyboardInterrupt`` does: it is no error but the organiser's request to stop, and every ``except RefereeError``
that turns an error into a one-line message must let it through to the code that ends the command with it.
"""

from protocol.errors import ProtocolViolation
from referee.check.errors import CheckError
from referee.check.observe import StalledTable
from referee.compare.errors import CompareError, DesignError
from referee.contest.errors import DealSecretError, FolderBusy, ScheduleError
from referee.engine.errors import BotError, DealError, IllegalMove, RefereeError, RulesetError
from referee.ladder.errors import (
    ClusterGone,
    ConfigFileError,
    IntakeError,
    LadderError,
    LadderStoreError,
    LaneLost,
    NotFound,
    Refused,
    SeatRefused,
    VersionBuildError,
    VersionShipError,
)
from referee.report.errors import NoTournament, ReplayError, ReportError
from referee.runner.errors import (
    BotCrashed,
    BotFault,
    BotSpecError,
    BotTimeout,
    LineTooLong,
    OutputCapped,
    StartupFailed,
    UnsolicitedOutput,
)
from referee.runner.input_file import InputFileError
from referee.runner.logrecords import LogError, NoHeader
from referee.settings import ConfigError
from referee.tournament.errors import (
    ClusterError,
    EmptyStore,
    LaneError,
    ManifestError,
    ParamsError,
    StoreError,
    WorkerSetupError,
)
from referee.web.client import SubmitError
from referee.web.settings import ListenError
from referee.web.uploads import UploadRefused

__all__ = [
    "BotCrashed",
    "BotError",
    "BotFault",
    "BotSpecError",
    "BotTimeout",
    "CheckError",
    "ClusterError",
    "ClusterGone",
    "CompareError",
    "ConfigError",
    "ConfigFileError",
    "DealError",
    "DealSecretError",
    "DesignError",
    "EmptyStore",
    "FolderBusy",
    "IllegalMove",
    "InputFileError",
    "IntakeError",
    "LadderError",
    "LadderStoreError",
    "LaneError",
    "LaneLost",
    "LineTooLong",
    "ListenError",
    "LogError",
    "ManifestError",
    "NoHeader",
    "NoTournament",
    "NotFound",
    "OutputCapped",
    "ParamsError",
    "ProtocolViolation",
    "RefereeError",
    "Refused",
    "ReplayError",
    "ReportError",
    "RulesetError",
    "ScheduleError",
    "SeatRefused",
    "StalledTable",
    "StartupFailed",
    "StoreError",
    "SubmitError",
    "UnsolicitedOutput",
    "UploadRefused",
    "VersionBuildError",
    "VersionShipError",
    "WorkerSetupError",
]
