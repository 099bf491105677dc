"""Running a comparison: play blocks of NEW and OLD until the sequential test decides, storing every game.

The results folder is a tournament's (``results.sqlite``, ``games/``, ``bots/``): its entrants are ``new``, ``old``
and the panel, its meta table also holds the test's settings (key ``compare``). Each game is committed as it ends,
so an interrupted comparison (Ctrl-C, SIGTERM, ``kill -9``) continues from its stored games: the test is replayed
over the finished blocks in order, then the blocks go on where they stopped. SIGINT and SIGTERM stop it cleanly,
every bot closed. The games of a block share one deal, which the executor never plays twice at the same time, so
with ``jobs`` lanes ``jobs`` blocks are played at a time; the test always takes the blocks in order and stops at
the first that reaches a bound (later blocks of that wave stay stored, unused).
"""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from referee.compare.betting import CAP_FACTOR, BoundedTests, fixed_blocks
from referee.compare.blocks import BlockResult, block_batches, block_result, games_per_block
from referee.compare.errors import CompareError
from referee.compare.sprt import BlockStats, Design, Verdict, asymptotic_sequence, shape_warning
from referee.runner import Stopped
from referee.tournament import (
    LocalExecutor,
    PlayedGame,
    PlaySetup,
    ResultsStore,
    SeatRow,
    TableBatch,
    TournamentParams,
    seat_rows,
)

__all__ = [
    "META_KEY",
    "METRICS",
    "CompareOutcome",
    "CompareProgress",
    "CompareState",
    "Metric",
    "Settings",
    "metric_bound",
    "run_compare",
    "stored_settings",
]

Metric = Literal["matchpoints", "ranks", "points"]
#: The metrics, the default first: the bounded ones run the betting test (``betting``), points the GSPRT (``sprt``).
METRICS: tuple[Metric, ...] = ("matchpoints", "ranks", "points")

#: The meta-table key of a comparison's settings.
META_KEY = "compare"
#: The points test's (asymptotic) confidence sequence is at 95%.
POINTS_SEQUENCE_ALPHA = 0.05


@dataclass(frozen=True, slots=True)
class Settings:
    """The test's settings, stored with the results: its design, the metric it runs on and the game budget (None:
    the cap sized from power, ``CompareState.cap_blocks``)."""

    design: Design
    metric: Metric = "matchpoints"
    max_games: int | None = None

    def to_json(self) -> str:
        return json.dumps({"design": asdict(self.design), "metric": self.metric, "max_games": self.max_games})

    @classmethod
    def from_json(cls, text: str) -> Settings:
        """Raises ``CompareError`` for text not written by ``to_json``."""
        try:
            data = json.loads(text)
            metric = data["metric"]
            if metric not in METRICS:
                raise ValueError(f"unknown metric {metric!r}")
            games = data["max_games"]
            return cls(Design(**data["design"]), metric, None if games is None else int(games))
        except (ValueError, KeyError, TypeError) as e:
            raise CompareError(f"the stored comparison settings are unreadable ({e})") from e

    def mismatch(self, other: Settings) -> str | None:
        """The first difference of ``other`` from these stored settings that changes the test, as a sentence
        (``max_games`` may change: a resumed comparison may be given more or fewer games)."""
        pairs = [("--metric", self.metric, other.metric)]
        pairs += [(f"--{k.replace('_', '-')}", v, getattr(other.design, k)) for k, v in asdict(self.design).items()]
        for label, was, now in pairs:
            if was != now:
                return f"{label} was {was}; now {now}"
        return None


def metric_bound(metric: Metric, table_size: int) -> float | None:
    """The largest gain a block can show in ``metric`` by the rules: 1 for matchpoints, k - 1 for ranks (None for
    points: a score has no useful bound)."""
    return {"matchpoints": 1.0, "ranks": float(table_size - 1)}.get(metric)


@dataclass(slots=True)
class CompareState:
    """The test so far: the blocks it used, in order, their statistics in every metric, the test on the chosen one
    (``test``: the betting test of a bounded metric; None for points, whose GSPRT is ``stats["points"]``'s), and its
    verdict. Raises ``DesignError`` for a design the metric cannot test (d0 or d1 beyond the metric's bound)."""

    table_size: int
    settings: Settings
    stats: dict[str, BlockStats] = field(default_factory=lambda: {m: BlockStats() for m in METRICS})
    test: BoundedTests | None = None
    forfeits: dict[str, int] = field(default_factory=dict)
    decided: Verdict | None = None

    def __post_init__(self) -> None:
        bound = metric_bound(self.settings.metric, self.table_size)
        if bound is not None and self.test is None:
            self.test = BoundedTests(self.settings.design, bound)

    @property
    def points(self) -> BlockStats:
        return self.stats["points"]

    @property
    def ranks(self) -> BlockStats:
        return self.stats["ranks"]

    @property
    def matchpoints(self) -> BlockStats:
        return self.stats["matchpoints"]

    @property
    def blocks(self) -> int:
        return self.points.n

    @property
    def games(self) -> int:
        return self.blocks * games_per_block(self.table_size)

    @property
    def tested(self) -> BlockStats:
        """The statistics of the metric the test runs on."""
        return self.stats[self.settings.metric]

    @property
    def llr(self) -> float:
        """The GSPRT's log-likelihood ratio on the tested metric (the test of ``--metric points``)."""
        return self.tested.llr(self.settings.design)

    @property
    def cap_sized(self) -> bool:
        """Whether the cap is sized from power (no ``--max-games``)."""
        return self.settings.max_games is None

    @property
    def cap_blocks(self) -> int:
        """The blocks after which the test stops as inconclusive: ``--max-games`` in whole blocks, or ``CAP_FACTOR``
        times the blocks a fixed-size z-test of the same errors needs at the spread so far (the betting test: with
        its prior pseudo-observation; the GSPRT: at least its minimum, and no cap before two blocks)."""
        if self.settings.max_games is not None:
            return self.settings.max_games // games_per_block(self.table_size)
        if self.test is not None:
            return self.test.cap()
        design, n = self.settings.design, self.tested.n
        if n < 2:
            return max(design.min_blocks, n + 1)
        sd = math.sqrt(self.tested.llr_variance(design))
        return max(design.min_blocks, math.ceil(CAP_FACTOR * fixed_blocks(design, sd)))

    @property
    def verdict(self) -> Verdict | None:
        """The test's verdict: at a bound, or "inconclusive" once the cap is reached; None while it runs."""
        if self.decided is not None:
            return self.decided
        return "inconclusive" if self.blocks >= self.cap_blocks else None

    def add(self, result: BlockResult) -> None:
        """Count one block (in order); raises ``ValueError`` after the test has ended."""
        if self.verdict is not None:
            raise ValueError("the test has already ended")
        for metric, stats in self.stats.items():
            stats.add(result.gain(metric))
        for name, n in result.forfeits.items():
            self.forfeits[name] = self.forfeits.get(name, 0) + n
        if self.test is not None:
            self.test.add_one(result.gain(self.settings.metric))
            self.decided = self.test.verdict()
        else:
            self.decided = self.tested.verdict(self.settings.design)

    def interval(self) -> tuple[float, float] | None:
        """The tested metric's mean gain with a confidence sequence, valid at the data-dependent stop: for a bounded
        metric the tests' own (``betting.TestSequence``, level 1 - alpha - beta); for points the 95% asymptotic
        sequence of ``sprt.asymptotic_sequence`` (None below two blocks)."""
        if self.test is not None:
            return self.test.interval() if self.blocks else None
        return asymptotic_sequence(self.tested, POINTS_SEQUENCE_ALPHA)

    def warning(self) -> str | None:
        """For ``--metric points``, a sentence when the blocks break the GSPRT's normal approximation."""
        return shape_warning(self.tested.shape()) if self.test is None else None

    def to_dict(self) -> dict[str, Any]:
        """The summary ``referee compare --json`` prints (the verdict is "inconclusive" while undecided)."""
        design = self.settings.design
        tested = self.tested
        test = self.test
        shape = tested.shape()
        return {
            "verdict": self.verdict or "inconclusive",
            "test": "gsprt" if test is None else "betting",
            "evidence": None if test is None else dict(zip(("stronger", "not stronger"), test.evidence(), strict=True)),
            "thresholds": None
            if test is None
            else {"stronger": test.stronger.threshold, "not stronger": test.weaker.threshold},
            "llr": self.llr if test is None else None,
            "bounds": [design.lower, design.upper] if test is None else None,
            "blocks": self.blocks,
            "games": self.games,
            "cap_blocks": self.cap_blocks,
            "cap_games": self.cap_blocks * games_per_block(self.table_size),
            "cap": "sized from power" if self.cap_sized else "--max-games",
            "mean_diff": tested.mean if tested.n else None,
            "ci95": _listed(self.interval()),
            "interval": "confidence sequence" if test is not None else "asymptotic confidence sequence",
            "metric": self.settings.metric,
            "d0": design.d0,
            "d1": design.d1,
            "alpha": design.alpha,
            "beta": design.beta,
            "min_blocks": design.min_blocks if test is None else None,
            "max_games": self.settings.max_games,
            **{m: {"mean_diff": s.mean if s.n else None, "ci95": _listed(s.ci95())} for m, s in self.stats.items()},
            "shape": None if shape is None else asdict(shape),
            "warning": self.warning(),
            "forfeits_in_blocks": dict(self.forfeits),
        }


def _listed(interval: tuple[float, float] | None) -> list[float] | None:
    return None if interval is None else list(interval)


class CompareProgress:
    """What a comparison reports as it goes; the default does nothing."""

    def start(self, state: CompareState) -> None:
        pass

    def block_done(self, state: CompareState) -> None:
        pass


@dataclass(frozen=True, slots=True)
class CompareOutcome:
    state: CompareState
    played: int
    interrupted: bool


def run_compare(
    store: ResultsStore,
    params: TournamentParams,
    settings: Settings,
    executor: LocalExecutor,
    *,
    progress: CompareProgress | None = None,
) -> CompareOutcome:
    """Replay the test over the blocks ``store`` holds, then play blocks with ``executor`` until it ends (or
    SIGINT/SIGTERM), as many blocks at a time as it has lanes.

    ``params``' entrants are ``new``, ``old`` and then the panel; ``store`` must already be initialised with
    ``params`` and ``settings``. Bot faults are recorded forfeits, never raised; the runner's ``ConfigError`` and
    ``BotSpecError`` propagate.
    """
    progress = progress or CompareProgress()
    k, panel = params.table_size, params.names[2:]
    secret = store.deal_secret()
    seats: dict[int, tuple[SeatRow, ...]] = {g.ordinal: g.seats for g in store.games()}
    finished = store.finished_game_ids()
    state = CompareState(k, settings)
    while state.verdict is None and (result := block_result(state.blocks, k, seats)) is not None:
        state.add(result)
    progress.start(state)
    played = 0

    def on_game(p: PlayedGame) -> None:
        nonlocal played
        store.record_game(p.game, p.result, duration=p.duration, declared=p.declared)
        seats[p.game.ordinal] = seat_rows(p.game.seats, p.result)
        finished.add(p.game.game_id)
        played += 1

    setup = PlaySetup.of(params, store.directory, finished, on_game)
    wave: list[int] = []  # the blocks being played

    def next_wave() -> list[TableBatch]:
        """The blocks of the wave played go into the test in order, until one ends it; then the next wave's."""
        for i in wave:
            result = block_result(i, k, seats)
            if result is None:  # cannot happen: the executor plays every game it is given
                raise RuntimeError(f"block {i} is incomplete after it was played")
            state.add(result)
            progress.block_done(state)
            if state.verdict is not None:
                return []
        wave[:] = range(state.blocks, state.blocks + max(1, min(executor.jobs, state.cap_blocks - state.blocks)))
        return [b for i in wave for b in block_batches(i, panel, k, params.seed, secret)]

    interrupted = False
    if state.verdict is None:
        try:
            executor.run(setup, next_wave)
        except Stopped:
            interrupted = True
    if state.verdict is not None:
        store.mark_revealed()  # the comparison is over: its deal secret may be shown
    return CompareOutcome(state, played, interrupted)


def stored_settings(store: ResultsStore) -> Settings | None:
    """The comparison settings ``store`` holds; None when it holds no comparison."""
    text = store.meta().get(META_KEY)
    return None if text is None else Settings.from_json(text)
