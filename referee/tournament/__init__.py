"""Tournaments: the schedule of each format, local execution, the SQLite results store, standings and ratings.

``schedule_for`` fixes every game of a round robin, balanced schedule or gauntlet from the parameters, the seed and
the deal secret; a ``Race`` decides its rounds from the results so far; ``run_tournament`` plays what a
``ResultsStore`` does not hold yet with an ``Executor`` (``LocalExecutor``, ``DaskExecutor``);
``standings_from_store`` computes the standings (with the deal statistics of ``dealstats``) of what it holds.

The race and its confidence sequences (``race``, ``confseq``: numpy) load on first use, so that a tournament of
another format does not import numpy.
"""

from typing import TYPE_CHECKING

from referee.lazy import lazy_names
from referee.tournament.cluster import ClusterError, DaskExecutor, WorkerSetupError, check_cluster_address
from referee.tournament.deals import DEAL_SCHEME, DealSecret, DealSecretError, commitment_of, deal_seed
from referee.tournament.dealstats import DealTally, block_outcomes, holm
from referee.tournament.designs import balanced_tables, check_format, gauntlet_tables, planned_games, schedule_for
from referee.tournament.display import LiveProgress, head_to_head_table, standings_table
from referee.tournament.entrants import (
    ManifestError,
    load_manifest,
    load_manifest_entries,
    name_entrants,
    unique_names,
    with_unique_names,
)
from referee.tournament.execute import (
    Executor,
    LocalExecutor,
    PlayedGame,
    PlayerPool,
    PlaySetup,
    Rounds,
    play_batch,
    play_table,
)
from referee.tournament.params import (
    DEFAULT_MAX_GAMES,
    FORMATS,
    EntrantInfo,
    ParamsError,
    Requested,
    TournamentParams,
    resolve_params,
)
from referee.tournament.run import Progress, RunOutcome, run_tournament
from referee.tournament.schedule import (
    ScheduledGame,
    ScheduleError,
    TableBatch,
    default_table_size,
    make_schedule,
)
from referee.tournament.standings import (
    WINS_NOTE,
    EntrantStanding,
    Standings,
    Tally,
    standings_from_store,
    t_quantile_975,
    tally_from_store,
)
from referee.tournament.store import DB_NAME, ResultsStore, SeatRow, StoredGame, StoreError, seat_rows

if TYPE_CHECKING:
    from referee.tournament.confseq import BettingCSArray, MixtureTests
    from referee.tournament.race import Race, RaceOutcome, race_of, replay_race

__getattr__, __dir__ = lazy_names(
    __name__,
    {
        "BettingCSArray": "referee.tournament.confseq",
        "MixtureTests": "referee.tournament.confseq",
        "Race": "referee.tournament.race",
        "RaceOutcome": "referee.tournament.race",
        "race_of": "referee.tournament.race",
        "replay_race": "referee.tournament.race",
    },
    globals(),
)

__all__ = [
    "DB_NAME",
    "DEAL_SCHEME",
    "DEFAULT_MAX_GAMES",
    "FORMATS",
    "WINS_NOTE",
    "BettingCSArray",
    "ClusterError",
    "DaskExecutor",
    "DealSecret",
    "DealSecretError",
    "DealTally",
    "EntrantInfo",
    "EntrantStanding",
    "Executor",
    "LiveProgress",
    "LocalExecutor",
    "ManifestError",
    "MixtureTests",
    "ParamsError",
    "PlaySetup",
    "PlayedGame",
    "PlayerPool",
    "Progress",
    "Race",
    "RaceOutcome",
    "Requested",
    "ResultsStore",
    "Rounds",
    "RunOutcome",
    "ScheduleError",
    "ScheduledGame",
    "SeatRow",
    "Standings",
    "StoreError",
    "StoredGame",
    "TableBatch",
    "Tally",
    "TournamentParams",
    "WorkerSetupError",
    "balanced_tables",
    "block_outcomes",
    "check_cluster_address",
    "check_format",
    "commitment_of",
    "deal_seed",
    "default_table_size",
    "gauntlet_tables",
    "head_to_head_table",
    "holm",
    "load_manifest",
    "load_manifest_entries",
    "make_schedule",
    "name_entrants",
    "planned_games",
    "play_batch",
    "play_table",
    "race_of",
    "replay_race",
    "resolve_params",
    "run_tournament",
    "schedule_for",
    "seat_rows",
    "standings_from_store",
    "standings_table",
    "t_quantile_975",
    "tally_from_store",
    "unique_names",
    "with_unique_names",
]
