"""Round-robin tournaments: the schedule, local execution, the SQLite results store, standings and ratings.

``make_schedule`` fixes every game from the entrants, the seed and the deal secret; ``run_tournament`` plays what a
``ResultsStore`` does not hold yet; ``standings_from_store`` computes the standings of what it holds.
"""

from referee.tournament.cluster import ClusterError, WorkerSetupError, check_cluster_address, run_on_cluster
from referee.tournament.deals import DEAL_SCHEME, DealSecret, DealSecretError, commitment_of, deal_seed
from referee.tournament.display import LiveProgress, head_to_head_table, standings_table
from referee.tournament.entrants import ManifestError, load_manifest, name_entrants, unique_names, with_unique_names
from referee.tournament.execute import PlayedGame, PlayerPool, play_batch, play_table, run_local
from referee.tournament.params import EntrantInfo, ParamsError, Requested, TournamentParams, resolve_params
from referee.tournament.run import Progress, RunOutcome, run_tournament, run_until_stopped
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

__all__ = [
    "DB_NAME",
    "DEAL_SCHEME",
    "WINS_NOTE",
    "ClusterError",
    "DealSecret",
    "DealSecretError",
    "EntrantInfo",
    "EntrantStanding",
    "LiveProgress",
    "ManifestError",
    "ParamsError",
    "PlayedGame",
    "PlayerPool",
    "Progress",
    "Requested",
    "ResultsStore",
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
    "check_cluster_address",
    "commitment_of",
    "deal_seed",
    "default_table_size",
    "head_to_head_table",
    "load_manifest",
    "make_schedule",
    "name_entrants",
    "play_batch",
    "play_table",
    "resolve_params",
    "run_local",
    "run_on_cluster",
    "run_tournament",
    "run_until_stopped",
    "seat_rows",
    "standings_from_store",
    "standings_table",
    "t_quantile_975",
    "tally_from_store",
    "unique_names",
    "with_unique_names",
]
