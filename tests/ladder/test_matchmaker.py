"""The matchmaker's stated bounds over long simulated runs (the real store, field, ratings; no processes):
no active version waits longer than max_wait, no entrant starts a block past 1.1 x the mean of today's bot time
(by more than one block of its own), a new version's placement comes first; and the choice itself: placement seeds,
mixed sizes, one version per entrant, the pair cap, a field in parts joined. (tests/ladder/test_fairness.py: sizes,
games/s and pairs with a slow entrant.)"""

from __future__ import annotations

import random
from collections import Counter
from pathlib import Path

from referee.ladder.config import GamesSection, MatchmakingSection
from referee.ladder.fairness import fairness
from referee.ladder.matchmaker import Candidate, Matchmaker
from referee.ladder.model import BlockState
from referee.ladder.simulate import SimulatedLadder, SimVersion

DAY = 86_400.0


def test_bounds_hold_over_days_of_a_changing_field(tmp_path: Path) -> None:
    rng = random.Random(7)
    entrants = [f"e{i:02d}" for i in range(14)]
    versions = [SimVersion(e, rng.uniform(0, 6), skew=0.1 if i % 5 == 0 else 0.0) for i, e in enumerate(entrants)]
    # new versions all the time: one every two hours, for random entrants (the old version retires)
    versions += [SimVersion(rng.choice(entrants), rng.uniform(0, 6), at=h * 7200.0) for h in range(1, 24)]
    game = 60.0
    # two lanes, ~3 games a block: each version is seated about once per 14 * 3 games / (2 lanes * 3 seats)
    max_wait = 3 * 14 * game
    config = (
        f"[matchmaking]\nmax_wait = {max_wait}\nplacement_blocks = 4\n"
        "[games]\ntable_sizes = [2, 3, 4]\ntable_weights = [1, 1, 2]\n"
    )
    sim = SimulatedLadder(tmp_path / "sim", config, versions, jobs=2, game_seconds=game, seed=3)
    try:
        trace = sim.run(until=1.5 * DAY)
        blocks = sim.store.blocks(states=[BlockState.DONE], limit=None)
        entrant_of = {v.id: v.entrant_id for v in sim.store.versions()}
    finally:
        sim.close()
    assert trace.blocks > 1_000
    figures = fairness([b.seats for b in blocks], entrant_of)
    assert figures.size_gap((2, 3, 4), (1, 1, 2)) <= 5, figures.sizes
    assert figures.connected
    # docs/ladder.md's bound on pairs: at most pair_cap (3) x a version's fair share + 1 blocks with one opponent,
    # every version, the retired ones too (the + 1: a pair at its cap may meet once more when no one else is free)
    met: Counter[tuple[int, int]] = Counter()
    opponents: Counter[int] = Counter()
    for block in blocks:
        for a in block.seats:
            opponents[a] += len(block.seats) - 1
            met.update((a, b) for b in block.seats if b != a)
    entrants = set(entrant_of.values())
    for (a, b), n in met.items():
        fair = opponents[a] / len(entrants - {entrant_of[a]})
        assert n <= 3 * fair + 1, (a, b, n, fair, figures)
    longest_block = 4 * game
    assert trace.max_wait <= max_wait + longest_block, trace.max_wait
    assert trace.worst_share <= 1, trace.worst_share  # at most one block of its own past share_cap x the mean
    assert trace.placement_late == 0


def _candidate(i: int, entrant: int | None = None, **kw: float) -> Candidate:
    base = {"mu": 25.0, "sigma": 3.0, "entrant_today": 0, "waited": 0.0, "placement_left": 0, "entrant_seconds": 0.0,
            "opponents_met": 0}  # fmt: skip
    base.update(kw)
    return Candidate(i, i if entrant is None else entrant, base["mu"], base["sigma"], int(base["entrant_today"]),
                     base["waited"], int(base["placement_left"]), entrant_seconds=base["entrant_seconds"],
                     opponents_met=int(base["opponents_met"]))  # fmt: skip


def test_a_version_in_placement_is_the_seed_and_one_version_per_entrant_sits_at_a_table() -> None:
    mm = Matchmaker(MatchmakingSection(), GamesSection(), random.Random(1))
    field = [_candidate(i) for i in range(8)] + [_candidate(8, entrant=3, placement_left=2)]
    for _ in range(50):
        choice = mm.choose(field, set(), {}, 0.0)
        assert choice is not None and choice.seed == 8 and choice.reason == "placement"
        entrants = [c.entrant for c in field if c.id in choice.seats]
        assert len(entrants) == len(set(entrants))
    sizes = {len(mm.choose(field, {8}, {}, 0.0).seats) for _ in range(200)}  # type: ignore[union-attr]
    assert sizes == {2, 3, 4}


def test_a_due_version_comes_before_placement_and_the_least_met_opponents_are_preferred() -> None:
    settings = MatchmakingSection(max_wait=100.0, wide_share=0.0)
    mm = Matchmaker(settings, GamesSection(table_sizes=(2,), table_weights=(1.0,)), random.Random(2))
    field = [_candidate(0, waited=90.0), _candidate(1, placement_left=3), _candidate(2), _candidate(3)]
    choice = mm.choose(field, set(), {(0, 1): 5, (0, 2): 0, (0, 3): 5}, 0.0)
    assert choice is not None and choice.seed == 0 and choice.reason == "due" and set(choice.seats) == {0, 2}


def test_an_entrant_over_its_share_of_todays_bot_time_is_left_out() -> None:
    mm = Matchmaker(MatchmakingSection(), GamesSection(table_sizes=(2,), table_weights=(1.0,)), random.Random(3))
    # entrant 0 played fewer blocks than the others, but of a slow bot: its bot time is over 1.1 x the mean
    field = [_candidate(0, entrant_today=3, entrant_seconds=300.0)]
    field += [_candidate(i, entrant_today=10, entrant_seconds=100.0) for i in (1, 2)]
    met = {(0, 1): 1, (0, 2): 1, (1, 2): 5}  # connected; 1 and 2 have met the most
    for _ in range(50):
        choice = mm.choose(field, set(), met, 500 / 3)
        assert choice is not None and 0 not in choice.seats


def test_a_pair_over_its_share_of_meetings_is_kept_apart_while_others_are_free() -> None:
    settings = MatchmakingSection(wide_share=0.0, pair_cap=3.0)
    mm = Matchmaker(settings, GamesSection(table_sizes=(2,), table_weights=(1.0,)), random.Random(4))
    # 0 met 1 in 40 of its 46 meetings: 3 x its fair share (46 / 5 others) is 27.6; 1 is by far the nearest in rating
    met = {(0, 1): 40, (0, 2): 2, (0, 3): 2, (0, 4): 1, (0, 5): 1, (1, 2): 1, (2, 3): 1, (3, 4): 1, (4, 5): 1}
    opponents = {v: sum(n for pair, n in met.items() if v in pair) for v in range(6)}
    field = [_candidate(0, mu=30.0, sigma=1.0, waited=10.0, opponents_met=opponents[0])]
    field += [_candidate(1, mu=30.0, sigma=1.0, opponents_met=opponents[1])]
    field += [_candidate(i, mu=10.0, sigma=1.0, opponents_met=opponents[i]) for i in range(2, 6)]
    for _ in range(30):
        choice = mm.choose(field, {2, 3, 4, 5} - {2 + _ % 4}, met, 0.0)
        assert choice is not None and set(choice.seats) != {0, 1}, choice
    # with no one else free, the bound gives way rather than the ladder stopping
    choice = mm.choose(field, {2, 3, 4, 5}, met, 0.0)
    assert choice is not None and set(choice.seats) == {0, 1}


def test_a_field_in_two_parts_that_never_met_is_joined_by_the_next_block() -> None:
    settings = MatchmakingSection(window=0.1, wide_share=0.0)
    mm = Matchmaker(settings, GamesSection(table_sizes=(2,), table_weights=(1.0,)), random.Random(5))
    # 0-1-2 met among themselves, 3-4-5 among themselves; the windows alone would keep the two groups apart
    met = {(0, 1): 9, (1, 2): 9, (0, 2): 9, (3, 4): 9, (4, 5): 9, (3, 5): 9}

    def field() -> list[Candidate]:
        return [
            _candidate(i, mu=10.0 if i < 3 else 40.0, sigma=0.5, opponents_met=sum(n for p, n in met.items() if i in p))
            for i in range(6)
        ]

    choice = mm.choose(field(), set(), met, 0.0)
    assert choice is not None and choice.reason == "bridge", choice
    assert len({v < 3 for v in choice.seats}) == 2, choice  # one of each part
    met[(0, 3)] = 1  # joined: the windows hold again
    for _ in range(20):
        choice = mm.choose(field(), set(), met, 0.0)
        assert choice is not None and choice.reason == "weighted"
        assert len({v < 3 for v in choice.seats}) == 1, choice  # both from one group


def test_a_ladder_of_3_and_4_seats_never_seats_2_while_its_other_versions_play() -> None:
    """Four versions, two lanes, tables of 3 and 4: with one block playing, the two free versions used to be seated
    at a table of 2 (a size the ladder does not play), and the two lanes then split the field in two pairs for good
    (146 of 150 blocks in a test's serve). The free lane waits instead; a field smaller than every size still
    plays as many as can sit."""
    games = GamesSection(table_sizes=(3, 4), table_weights=(3.0, 1.0))
    mm = Matchmaker(MatchmakingSection(), games, random.Random(6))
    field = [_candidate(i) for i in range(4)]
    assert mm.choose(field, {0, 1}, {}, 0.0) is None  # 0 and 1 play: 2 and 3 wait for them
    choice = mm.choose(field, set(), {}, 0.0)
    assert choice is not None and len(choice.seats) in (3, 4)
    small = Matchmaker(MatchmakingSection(), games, random.Random(7))
    pair = small.choose(field[:2], set(), {}, 0.0)
    assert pair is not None and len(pair.seats) == 2  # two entrants in all: they still play
