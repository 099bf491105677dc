"""The matchmaker's fairness with a slow entrant and mixed table sizes (issue 31's trial, simulated): the sizes
follow their weights, a 10x slower bot does not hold the others back, no pair of versions locks together, the field
stays connected; and what feeds it: bot time measured per version, charged per block, reloaded after a restart."""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import trio

from referee.ladder.botclock import BotClock
from referee.ladder.fairness import fairness
from referee.ladder.field import FieldTracker
from referee.ladder.matchmaker import charges
from referee.ladder.model import BlockState
from referee.ladder.simulate import SimulatedLadder, SimVersion

WEIGHTS = "[games]\ntable_sizes = [2, 3, 4]\ntable_weights = [1, 1, 2]\n"


def _trial(tmp: Path, slow: float) -> tuple[Any, float, int]:
    """Eight entrants spread over 8 points of strength, the last ``slow`` times slower, 20 simulated minutes on two
    lanes: the figures, games/s, and how many blocks the slow one played."""
    rng = random.Random(11)
    field = [SimVersion(f"bot{i}", rng.uniform(0, 8), bot_seconds=0.1 * (slow if i == 7 else 1)) for i in range(8)]
    sim = SimulatedLadder(tmp, WEIGHTS, field, jobs=2, game_seconds=0.05, seed=5)
    try:
        trace = sim.run(until=1200.0)
        assert trace.worst_share <= 1, trace.worst_share
        blocks = sim.store.blocks(states=[BlockState.DONE], limit=None)
        entrant_of = {v.id: v.entrant_id for v in sim.store.versions()}
        slow_id = next(v for v, sv in sim.truth.items() if sv.entrant == "bot7")
        return (
            fairness([b.seats for b in blocks], entrant_of),
            trace.games / 1200.0,
            sum(slow_id in b.seats for b in blocks),
        )
    finally:
        sim.close()


def test_a_10x_slower_entrant_keeps_the_sizes_the_pace_and_the_pairs_of_the_field(tmp_path: Path) -> None:
    with_slow, rate_slow, slow_blocks = _trial(tmp_path / "slow", 10.0)
    all_fast, rate_fast, _ = _trial(tmp_path / "fast", 1.0)
    for figures in (with_slow, all_fast):
        assert figures.size_gap((2, 3, 4), (1, 1, 2)) <= 5, figures.sizes  # the trial: all at 2 after two minutes
        assert figures.worst_pair <= 3, figures  # the trial: one version's 214 blocks all against one opponent
        assert figures.connected
    assert rate_slow >= 0.8 * rate_fast, (rate_slow, rate_fast)  # the trial: 30-35 blocks a minute, then 7-11
    # its fair share is in bot time: about a tenth of a fast entrant's blocks, not all of them beside it
    assert 0.02 < slow_blocks / with_slow.blocks < 0.1, slow_blocks / with_slow.blocks


def test_fairness_figures_of_known_tables() -> None:
    entrants = {v: v for v in range(5)}
    uniform = [(a, b) for a in range(4) for b in range(a + 1, 4)] * 3 + [(0, 1, 2, 3)] * 2
    figures = fairness(uniform, entrants)
    assert figures.sizes == {2: 18 / 20, 4: 2 / 20} and figures.games == 18 * 2 + 2 * 4
    assert abs(figures.worst_pair - 1.0) < 1e-9 and figures.connected  # every pair met as often
    locked = [(0, 1)] * 9 + [(0, 2), (0, 3), (0, 4)] + [(2, 3, 4)]
    figures = fairness(locked, entrants)
    # 1 met only 0: 9 of its 9 meetings against a fair share of 9 / 4 others
    assert abs(figures.worst_pair - 4.0) < 1e-9 and figures.worst_pair_of == (1, 0)
    assert not fairness([(0, 1), (2, 3)], entrants).connected


def test_a_block_charges_each_version_its_own_bot_time_and_an_equal_share_of_the_rest() -> None:
    assert charges((1, 2, 3), 12.0, {1: 6.0, 2: 0.0}) == {1: 8.0, 2: 2.0, 3: 2.0}
    assert charges((1, 2), 1.0, {1: 3.0}) == {1: 3.0, 2: 0.0}  # a clock that ran backwards charges no rest


@dataclass
class _Player:
    hello: str = "hi"
    startup_fault: object = None
    closed: bool = False

    async def request(self, line: bytes, expect: object, deadline: float) -> tuple[str, bytes]:
        await trio.sleep(0)
        return "reply", line

    async def aclose(self) -> None:
        self.closed = True


def test_the_bot_clock_adds_each_request_to_its_version_and_reads_everything_else_through() -> None:
    ticks = iter(range(0, 100, 5))  # each reading of the clock 5 s after the last
    clock = BotClock(lambda: float(next(ticks)))
    made: list[_Player] = []

    def factory(spec: Any, config: Any, path: Path) -> _Player:
        made.append(_Player())
        return made[-1]

    timed = clock.wrap(factory)
    spec = type("Spec", (), {"name": "ann#1"})()
    player: Any = timed(spec, None, Path("x"))

    async def go() -> None:
        assert await player.request(b"turn", None, 0.0) == ("reply", b"turn")
        assert await player.request(b"turn", None, 0.0) == ("reply", b"turn")
        await player.aclose()

    trio.run(go)
    assert clock.read(["ann#1", "bob#1"]) == {"ann#1": 10.0, "bob#1": 0.0}
    assert player.hello == "hi" and player.startup_fault is None and made[0].closed


def test_a_restart_reloads_todays_bot_time_from_the_store(tmp_path: Path) -> None:
    field = [SimVersion(f"bot{i}", float(i), bot_seconds=0.2) for i in range(5)]
    sim = SimulatedLadder(tmp_path / "s", WEIGHTS, field, jobs=2, game_seconds=0.1, seed=2)
    try:
        sim.run(blocks=60)
        live = dict(sim.field.seconds)
        again = FieldTracker(sim.store, sim.rating.initial())
        again.load(sim.now)
    finally:
        sim.close()
    # bots of one speed: the equal share of each block's time the store gives back is what each was charged
    assert live.keys() == again.seconds.keys() and len(live) == 5
    for entrant, seconds in live.items():
        assert abs(again.seconds[entrant] - seconds) < 1e-6 * seconds, (entrant, seconds, again.seconds[entrant])
    assert again.opponents == sim.field.opponents
