"""Tournaments: the formats and their schedules (``formats``), local execution, the SQLite results store, standings
and ratings.

``schedule_for`` fixes every game of a round robin, balanced schedule or gauntlet from the parameters, the seed and
the deal secret; a ``Race`` decides its rounds from the results so far; ``run_tournament`` plays what a
``ResultsStore`` does not hold yet with an ``Executor`` (``LocalExecutor``, ``DaskExecutor``);
``standings_from_store`` computes the standings (with the deal statistics of ``block_stats``) of what it holds.

Every name loads its module on first use (PEP 562): a tournament of another format does not import the race and its
confidence sequences (numpy), a run without ``--cluster`` not the cluster's modules, ``referee standings`` not the
lanes and the runner.
"""

from typing import TYPE_CHECKING

from referee.lazy import lazy_names

if TYPE_CHECKING:
    from referee.contest.block_stats import DealTally, block_outcomes, holm
    from referee.contest.counting import counted_scores
    from referee.contest.deal_secret import DEAL_SCHEME, DealSecret, commitment_of, deal_seed
    from referee.contest.errors import DealSecretError, ScheduleError
    from referee.contest.pool import PlayerPool
    from referee.contest.schedule import ScheduledGame, TableBatch, default_table_size, make_schedule
    from referee.contest.seating import block_seatings, cyclic_orders, games_per_block, seat_cycle
    from referee.tournament.cluster import DaskExecutor, check_cluster_address
    from referee.tournament.confseq import BettingCSArray, MixtureTests
    from referee.tournament.designs import balanced_tables, gauntlet_tables
    from referee.tournament.display import head_to_head_table, standings_table
    from referee.tournament.entrants import (
        bot_files,
        load_manifest,
        load_manifest_entries,
        name_entrants,
        unique_names,
        with_unique_names,
    )
    from referee.tournament.errors import (
        ClusterError,
        LaneError,
        ManifestError,
        ParamsError,
        StoreError,
        WorkerSetupError,
    )
    from referee.tournament.execute import Executor, PlayedGame, PlaySetup, Rounds, play_batch, play_table
    from referee.tournament.formats import (
        FORMATS,
        Format,
        FormatParams,
        Outcome,
        Schedule,
        check_format,
        format_of,
        planned_games,
        register,
        schedule_for,
        schedule_of,
    )
    from referee.tournament.formats.race import race_of, replay_race
    from referee.tournament.formats.race_rounds import Race, RaceOutcome
    from referee.tournament.live import LiveProgress
    from referee.tournament.local import LocalExecutor
    from referee.tournament.options import DEFAULT_MAX_GAMES, Option
    from referee.tournament.params import EntrantInfo, Requested, TournamentParams, resolve_params
    from referee.tournament.run import Progress, RunOutcome, run_tournament
    from referee.tournament.standings import (
        WINS_NOTE,
        EntrantStanding,
        Standings,
        Tally,
        standings_from_store,
        t_quantile_975,
        tally_from_store,
    )
    from referee.tournament.store import DB_NAME, ResultsStore, SeatRow, StoredGame, seat_rows

_WHERE: dict[str, str] = {
    "BettingCSArray": "referee.tournament.confseq",
    "ClusterError": "referee.tournament.errors",
    "DB_NAME": "referee.tournament.store",
    "DEAL_SCHEME": "referee.contest.deal_secret",
    "DEFAULT_MAX_GAMES": "referee.tournament.options",
    "DaskExecutor": "referee.tournament.cluster",
    "DealSecret": "referee.contest.deal_secret",
    "DealSecretError": "referee.contest.errors",
    "DealTally": "referee.contest.block_stats",
    "EntrantInfo": "referee.tournament.params",
    "EntrantStanding": "referee.tournament.standings",
    "Executor": "referee.tournament.execute",
    "FORMATS": "referee.tournament.formats",
    "Format": "referee.tournament.formats",
    "FormatParams": "referee.tournament.formats",
    "Outcome": "referee.tournament.formats",
    "LaneError": "referee.tournament.errors",
    "LiveProgress": "referee.tournament.live",
    "LocalExecutor": "referee.tournament.local",
    "ManifestError": "referee.tournament.errors",
    "bot_files": "referee.tournament.entrants",
    "MixtureTests": "referee.tournament.confseq",
    "Option": "referee.tournament.options",
    "ParamsError": "referee.tournament.errors",
    "PlaySetup": "referee.tournament.execute",
    "PlayedGame": "referee.tournament.execute",
    "PlayerPool": "referee.contest.pool",
    "Progress": "referee.tournament.run",
    "Race": "referee.tournament.formats.race_rounds",
    "RaceOutcome": "referee.tournament.formats.race_rounds",
    "Requested": "referee.tournament.params",
    "ResultsStore": "referee.tournament.store",
    "Rounds": "referee.tournament.execute",
    "RunOutcome": "referee.tournament.run",
    "Schedule": "referee.tournament.formats",
    "ScheduleError": "referee.contest.errors",
    "ScheduledGame": "referee.contest.schedule",
    "SeatRow": "referee.tournament.store",
    "Standings": "referee.tournament.standings",
    "StoreError": "referee.tournament.errors",
    "StoredGame": "referee.tournament.store",
    "TableBatch": "referee.contest.schedule",
    "Tally": "referee.tournament.standings",
    "TournamentParams": "referee.tournament.params",
    "WINS_NOTE": "referee.tournament.standings",
    "WorkerSetupError": "referee.tournament.errors",
    "balanced_tables": "referee.tournament.designs",
    "block_outcomes": "referee.contest.block_stats",
    "block_seatings": "referee.contest.seating",
    "check_cluster_address": "referee.tournament.cluster",
    "check_format": "referee.tournament.formats",
    "commitment_of": "referee.contest.deal_secret",
    "counted_scores": "referee.contest.counting",
    "cyclic_orders": "referee.contest.seating",
    "deal_seed": "referee.contest.deal_secret",
    "default_table_size": "referee.contest.schedule",
    "format_of": "referee.tournament.formats",
    "games_per_block": "referee.contest.seating",
    "gauntlet_tables": "referee.tournament.designs",
    "head_to_head_table": "referee.tournament.display",
    "holm": "referee.contest.block_stats",
    "load_manifest": "referee.tournament.entrants",
    "load_manifest_entries": "referee.tournament.entrants",
    "make_schedule": "referee.contest.schedule",
    "name_entrants": "referee.tournament.entrants",
    "planned_games": "referee.tournament.formats",
    "play_batch": "referee.tournament.execute",
    "play_table": "referee.tournament.execute",
    "race_of": "referee.tournament.formats.race",
    "register": "referee.tournament.formats",
    "replay_race": "referee.tournament.formats.race",
    "resolve_params": "referee.tournament.params",
    "run_tournament": "referee.tournament.run",
    "schedule_for": "referee.tournament.formats",
    "schedule_of": "referee.tournament.formats",
    "seat_cycle": "referee.contest.seating",
    "seat_rows": "referee.tournament.store",
    "standings_from_store": "referee.tournament.standings",
    "standings_table": "referee.tournament.display",
    "t_quantile_975": "referee.tournament.standings",
    "tally_from_store": "referee.tournament.standings",
    "unique_names": "referee.tournament.entrants",
    "with_unique_names": "referee.tournament.entrants",
}

__getattr__, __dir__ = lazy_names(__name__, _WHERE, globals())

__all__ = sorted(_WHERE)
