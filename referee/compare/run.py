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
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from referee.compare.blocks import BlockResult, block_batches, block_result, games_per_block
from referee.compare.errors import CompareError
from referee.compare.sprt import BlockStats, Design, Verdict
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
    "CompareOutcome",
    "CompareProgress",
    "CompareState",
    "Metric",
    "Settings",
    "run_compare",
    "stored_settings",
]

Metric = Literal["points", "ranks"]

#: The meta-table key of a comparison's settings.
META_KEY = "compare"


@dataclass(frozen=True, slots=True)
class Settings:
    """The test's settings, stored with the results: its design, the metric it runs on and the game budget."""

    design: Design
    metric: Metric = "points"
    max_games: int = 2000

    def to_json(self) -> str:
        return json.dumps({"design": asdict(self.design), "metric": self.metric, "max_games": self.max_games})

    @classmethod
    def from_json(cls, text: str) -> Settings:
        """Raises ``CompareError`` for text not written by ``to_json``."""
        try:
            data = json.loads(text)
            metric = data["metric"]
            if metric not in ("points", "ranks"):
                raise ValueError(f"unknown metric {metric!r}")
            return cls(Design(**data["design"]), metric, int(data["max_games"]))
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


@dataclass(slots=True)
class CompareState:
    """The test so far: the blocks it used, in order, their statistics in points and in ranks, and its verdict."""

    table_size: int
    settings: Settings
    points: BlockStats = field(default_factory=BlockStats)
    ranks: BlockStats = field(default_factory=BlockStats)
    forfeits: dict[str, int] = field(default_factory=dict)
    decided: Verdict | None = None

    @property
    def blocks(self) -> int:
        return self.points.n

    @property
    def games(self) -> int:
        return self.blocks * games_per_block(self.table_size)

    @property
    def max_blocks(self) -> int:
        return self.settings.max_games // games_per_block(self.table_size)

    @property
    def tested(self) -> BlockStats:
        """The statistics of the metric the test runs on."""
        return self.points if self.settings.metric == "points" else self.ranks

    @property
    def llr(self) -> float:
        return self.tested.llr(self.settings.design)

    @property
    def verdict(self) -> Verdict | None:
        """The test's verdict: at a bound, or "inconclusive" once the game budget is spent; None while it runs."""
        if self.decided is not None:
            return self.decided
        return "inconclusive" if self.blocks >= self.max_blocks else None

    def add(self, result: BlockResult) -> None:
        if self.verdict is not None:
            raise ValueError("the test has already ended")
        self.points.add(result.points)
        self.ranks.add(result.ranks)
        for name, n in result.forfeits.items():
            self.forfeits[name] = self.forfeits.get(name, 0) + n
        self.decided = self.tested.verdict(self.settings.design)

    def to_dict(self) -> dict[str, Any]:
        """The summary ``referee compare --json`` prints (the verdict is "inconclusive" while undecided)."""
        design = self.settings.design
        tested = self.tested
        return {
            "verdict": self.verdict or "inconclusive",
            "llr": self.llr,
            "bounds": [design.lower, design.upper],
            "blocks": self.blocks,
            "games": self.games,
            "mean_diff": tested.mean if tested.n else None,
            "ci95": _interval(tested),
            "metric": self.settings.metric,
            "d0": design.d0,
            "d1": design.d1,
            "alpha": design.alpha,
            "beta": design.beta,
            "min_blocks": design.min_blocks,
            "max_games": self.settings.max_games,
            "points": {"mean_diff": self.points.mean if self.points.n else None, "ci95": _interval(self.points)},
            "ranks": {"mean_diff": self.ranks.mean if self.ranks.n else None, "ci95": _interval(self.ranks)},
            "forfeits_in_blocks": dict(self.forfeits),
        }


def _interval(stats: BlockStats) -> list[float] | None:
    ci = stats.ci95()
    return None if ci is None else list(ci)


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
        wave[:] = range(state.blocks, min(state.blocks + max(1, executor.jobs), state.max_blocks))
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
