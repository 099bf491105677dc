"""``referee compare NEW OLD``: is the new version of a bot stronger? A sequential test on duplicate deals.

``blocks`` lays out the games (NEW and OLD on the same deal, seats and opponents) and each block's paired
difference; ``sprt`` is the sequential test on those differences (pure arithmetic); ``run`` plays blocks with the
tournament's executor and store until the test decides; ``simulate`` measures the test on blocks of a known
difference.
"""

from referee.compare.blocks import NEW, OLD, BlockResult, block_batches, block_result, games_per_block
from referee.compare.errors import CompareError, DesignError
from referee.compare.run import (
    META_KEY,
    CompareOutcome,
    CompareProgress,
    CompareState,
    Metric,
    Settings,
    run_compare,
    stored_settings,
)
from referee.compare.simulate import Rates, game_like_blocks, normal_blocks, rates, resampled_blocks
from referee.compare.sprt import VAR_FLOOR, BlockStats, Design, Verdict, fixed_sample_size, sequential_verdict

__all__ = [
    "META_KEY",
    "NEW",
    "OLD",
    "VAR_FLOOR",
    "BlockResult",
    "BlockStats",
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
    "block_batches",
    "block_result",
    "fixed_sample_size",
    "game_like_blocks",
    "games_per_block",
    "normal_blocks",
    "rates",
    "resampled_blocks",
    "run_compare",
    "sequential_verdict",
    "stored_settings",
]
