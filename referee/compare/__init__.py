"""``referee compare NEW OLD``: is the new version of a bot stronger? A sequential test on duplicate deals.

``blocks`` lays out the games (NEW and OLD on the same deal, seats and opponents) and each block's gain in
matchpoints, ranks and points; ``betting`` is the default test, betting tests on a bounded gain with a guarantee
and a confidence sequence; ``sprt`` the GSPRT of ``--metric points`` (calibrated for near-normal blocks); ``run``
plays blocks with the tournament's executor and store until the test decides; ``simulate`` measures the tests on
blocks of a known gain.
"""

from referee.compare.betting import CAP_FACTOR, BettingTests, BoundedTests, fixed_blocks
from referee.compare.blocks import NEW, OLD, BlockResult, block_batches, block_result, games_per_block
from referee.compare.errors import CompareError, DesignError
from referee.compare.run import (
    META_KEY,
    METRICS,
    CompareOutcome,
    CompareProgress,
    CompareState,
    Metric,
    Settings,
    metric_bound,
    run_compare,
    stored_settings,
)
from referee.compare.simulate import (
    BOUNDED_SHAPES,
    Rates,
    bounded_blocks,
    game_like_blocks,
    normal_blocks,
    rates,
    resampled_blocks,
    skewed_blocks,
    sparse_blocks,
)
from referee.compare.sprt import (
    PRIOR_VARIANCE,
    BlockShape,
    BlockStats,
    Design,
    Verdict,
    asymptotic_sequence,
    fixed_sample_size,
    sequential_verdict,
    shape_warning,
)

__all__ = [
    "BOUNDED_SHAPES",
    "CAP_FACTOR",
    "META_KEY",
    "METRICS",
    "NEW",
    "OLD",
    "PRIOR_VARIANCE",
    "BettingTests",
    "BlockResult",
    "BlockShape",
    "BlockStats",
    "BoundedTests",
    "CompareError",
    "CompareOutcome",
    "CompareProgress",
    "CompareState",
    "Design",
    "DesignError",
    "Metric",
    "Rates",
    "Settings",
    "Verdict",
    "asymptotic_sequence",
    "block_batches",
    "block_result",
    "bounded_blocks",
    "fixed_blocks",
    "fixed_sample_size",
    "game_like_blocks",
    "games_per_block",
    "metric_bound",
    "normal_blocks",
    "rates",
    "resampled_blocks",
    "run_compare",
    "sequential_verdict",
    "shape_warning",
    "skewed_blocks",
    "sparse_blocks",
    "stored_settings",
]
