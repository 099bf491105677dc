"""The race: its confidence sequences and tests, its schedule, and its verdicts on simulated fields of known round-robin
order, inside and outside the easy model (issue 24): a high-variance leader, a skewed entrant, an entrant that farms
weak tables, cycles at 2 and 4 seats, and near-ties at 2, 3 and 4 seats. The truth is what a round robin finds
(``fields.Field.truth``: expected matchpoints over every table of the field). Races here run at confidence 0.8, so
that "wrong in at most 1 - C of runs" is a bound a few dozen seeds can check (and the races are short)."""

from __future__ import annotations

import itertools
import random
from collections import Counter

import numpy as np
import pytest

from referee.tournament import BettingCSArray, MixtureTests, Race
from referee.tournament.formats.race_rounds import BLOCKS_PER_ROUND, PAIRWISE_FROM

from .fields import Field, cycle_edges, head_to_head, run, wrong_by

CONFIDENCE = 0.8


def test_confidence_sequence_covers_the_mean_at_every_step() -> None:
    """Time-uniform: over 200 sequences of 400 observations, the share that ever excludes the mean is below alpha."""
    rng = np.random.default_rng(0)
    cs = BettingCSArray(200, 0.1)
    missed = np.zeros(200, dtype=bool)
    for _ in range(400):
        cs.update(np.arange(200), (rng.random(200) < 0.3).astype(float))
        missed |= (cs.lower > 0.3) | (cs.upper < 0.3)
    assert missed.sum() <= 0.1 * 200
    assert (cs.upper - cs.lower).max() < 0.25, "and it narrows"


def test_confidence_sequence_rejects_bad_input() -> None:
    cs = BettingCSArray(2, 0.05)
    with pytest.raises(ValueError):
        cs.update([0], [1.5])
    with pytest.raises(ValueError):
        cs.update([0], [0.5], 1.0)
    with pytest.raises(ValueError):
        BettingCSArray(1, 0)


def test_mixture_tests_keep_their_level_and_find_a_real_gap() -> None:
    """Under "mean exactly 1/2" (the edge of the null) at most alpha of 300 streams of 600 ever reject either way;
    with mean 0.65 every stream finds "above" and none "below"."""
    rng = random.Random(7)
    tests = MixtureTests(300, 0.1)
    for _ in range(600):
        tests.update(range(300), [rng.random() for _ in range(300)])
    assert (tests.above | tests.below).sum() <= 0.1 * 300
    gap = MixtureTests(20, 0.05)
    for _ in range(300):
        gap.update(range(20), [1.0 if rng.random() < 0.65 else 0.0 for _ in range(20)])
    assert gap.above.all() and not gap.below.any()
    with pytest.raises(ValueError):
        gap.update([0], [1.5])


# ------------------------------------------------------------------------------------------ the easy model


@pytest.mark.parametrize("k", [2, 3, 4])
def test_race_settles_the_right_top_k_in_the_easy_model(k: int) -> None:
    fld = Field(strength=[0.6 * i for i in range(7)])
    truth = list(np.array(fld.names)[np.argsort(-fld.truth(k))][:2])
    for seed in range(4):
        race = run(fld, k=k, top=2, seed=seed, confidence=0.95)
        outcome = race.outcome()
        assert outcome.settled and list(outcome.order[:2]) == truth and outcome.reason is not None
        assert outcome.games == race.games and outcome.games % k == 0
        assert outcome.ahead_of_next[0] and outcome.to_dict()["estimand"] == "matchpoints"


def test_a_large_field_settles_through_both_phases() -> None:
    """More than PAIRWISE_FROM entrants: random partitions of the whole field with the entrants' own sequences
    first, then common opponents head to head."""
    fld = Field(strength=[0.0] * (PAIRWISE_FROM + 4) + [1.5, 3.0])
    for seed in range(2):
        race = run(fld, k=4, top=2, seed=seed, confidence=0.95)
        assert race.pool is not None and len(race.pool) <= PAIRWISE_FROM
        assert race.settled and race.leaders() == [fld.names[-1], fld.names[-2]]


# ------------------------------------------------------------------------------------------ outside it


def _wrong_share(fld: Field, k: int, top: int, seeds: int, margin: float = 0.0, max_games: int = 40_000) -> float:
    wrong = 0
    for seed in range(seeds):
        race = run(fld, k=k, top=top, seed=seed, confidence=CONFIDENCE, tie_margin=margin, max_games=max_games)
        wrong += wrong_by(fld, race, k, margin)
    return wrong / seeds


def test_a_high_variance_leader_is_judged_by_matchpoints() -> None:
    """e05 is the strongest in points but eight times as erratic as the rest: a round robin puts it third and e04
    first, and so does the race (settled wrong in at most 1 - C of the seeds); a race on points would crown e05."""
    fld = Field(strength=[0.0, 0.5, 1.0, 2.0, 3.0, 3.6], spread=[1, 1, 1, 1, 1, 8])
    m = fld.truth(4)
    assert m[5] < m[3] < m[4], "matchpoints rank the erratic leader below two steadier entrants"
    assert _wrong_share(fld, 4, 1, 10) <= 1 - CONFIDENCE


def test_a_skewed_entrant_does_not_break_the_guarantee() -> None:
    """e04 is usually a little better and now and then much worse (skewed luck)."""
    fld = Field(strength=[0.0, 0.6, 1.2, 1.8, 2.4, 3.0], skew=[False] * 4 + [True])
    assert _wrong_share(fld, 2, 2, 10) <= 1 - CONFIDENCE


def test_an_entrant_that_farms_weak_tables_is_ranked_as_a_round_robin_ranks_it() -> None:
    """e05 crushes the three weakest and is no match for the rest: against the whole field (a round robin) it is
    second, behind e04 and ahead of e03, stronger than it at every table without the weak; a race that measured it
    where the contest is decided (against the strong) would put it third."""
    edge = np.zeros((6, 6))
    edge[5, :3] = 4.0
    fld = Field(strength=[0.0, 0.3, 0.6, 1.2, 3.0, 0.9], edge=edge)
    m = fld.truth(2)
    assert list(np.argsort(-m)[:3]) == [4, 5, 3]
    assert _wrong_share(fld, 2, 2, 10) <= 1 - CONFIDENCE


@pytest.mark.parametrize("k", [2, 4])
def test_a_cycle_is_reported_and_never_settled(k: int) -> None:
    """e00 beats e01 beats e02 beats e00 head to head, the others weaker: their strengths against the field are
    equal, so no order of the top one is right; the race does not settle, and reports the cycle."""
    fld = Field(strength=[0.0, 0.0, 0.0, -1.5, -1.5], edge=cycle_edges(5, [0, 1, 2], 2.0))
    reported = 0
    for seed in range(4):
        race = run(fld, k=k, top=1, seed=seed, confidence=CONFIDENCE, max_games=8_000)
        outcome = race.outcome()
        assert not outcome.settled and "--max-games" in (outcome.reason or "")
        reported += any(set(c) >= {"e00", "e01", "e02"} for c in outcome.cycles)
    assert reported >= 3


def test_duels_are_round_robin_head_to_heads_where_a_farmer_meets_the_strong() -> None:
    """e05 crushes the three weak entrants and beats each of the two equal strong ones on 52% of the deals in a round
    robin (a table of theirs holds two weak entrants half the time). At a race table whose remaining seat is a
    contender (the other strong one) it holds one weak entrant and loses: duels fed from such tables "proved" the
    strong beat it in every race. Fed only from tables whose other seats are a uniform draw, no race claims it."""
    edge = np.zeros((6, 6))
    edge[5, 2:5] = 3.2
    fld = Field(strength=[2.0, 2.0, 0.0, 0.0, 0.0, -2.67], edge=edge)
    h2h = head_to_head(fld, 4, draws=2000)
    assert h2h[5, 0] > 0.5 and h2h[5, 1] > 0.5
    index = {name: i for i, name in enumerate(fld.names)}
    claims = false = 0
    for seed in range(3):
        duels = run(fld, k=4, top=2, seed=seed, confidence=0.95, max_games=12_000).duels()
        claims += len(duels)
        false += any(h2h[index[a], index[b]] <= 0.5 for a, b in duels)
    assert claims >= 20 and false == 0


@pytest.mark.parametrize("k", [2, 3, 4])
def test_near_ties_settle_up_to_the_margin_and_keep_the_guarantee(k: int) -> None:
    """Strengths a tenth of a deal's spread apart (matchpoints about 0.03 apart) and a tie margin of 0.02."""
    fld = Field(strength=[0.0, 0.1, 0.2, 0.3, 0.4])
    settled = wrong = 0
    for seed in range(6):
        race = run(fld, k=k, top=2, seed=seed, confidence=CONFIDENCE, tie_margin=0.02, max_games=40_000)
        outcome = race.outcome()
        settled += outcome.settled
        wrong += wrong_by(fld, race, k, 0.02)
        for a, b in outcome.within_margin:
            assert a in outcome.order[:2] and outcome.order.index(a) < outcome.order.index(b)
            assert not race.ahead(a, b)
    assert settled >= 5 and wrong / 6 <= 1 - CONFIDENCE


# ------------------------------------------------------------------------------------------ the schedule


def test_the_field_phase_partitions_the_whole_field() -> None:
    """Every pass of the field phase is a partition of every entrant, eliminated ones too (the last table completed
    with others); only tables that hold a survivor are played, and every survivor plays every pass."""
    fld = Field(strength=[0.0] * (PAIRWISE_FROM + 7) + [2.0, 2.0])
    race = Race(fld.names, table_size=4, seed=1, top=2, confidence=0.95, max_games=10**6)
    rng = np.random.default_rng(3)
    index = {n: i for i, n in enumerate(fld.names)}
    while race.pool is None:
        plan = race._plan()
        assert plan is not None
        for p in range(BLOCKS_PER_ROUND):
            tables = [t for t in plan if t.pass_no == p]
            counted = Counter(e for t in tables for e, c in zip(t.seats, t.counted, strict=True) if c)
            assert all(counted[index[s]] == 1 for s in race.survivors)
            assert all(any(c and race.alive[e] for e, c in zip(t.seats, t.counted, strict=True)) for t in tables)
        tables = race.next_tables()
        assert tables is not None
        seats = np.array([[index[e] for e in t] for t in tables])
        race.record(
            [dict(zip(t, row.tolist(), strict=True)) for t, row in zip(tables, fld.totals(seats, rng), strict=True)]
        )


def test_pairwise_tables_are_contenders_against_common_opponents() -> None:
    """Every pass of the pairwise phase seats each contender outside the pass's common opponents with them."""
    fld = Field(strength=[0.5 * i for i in range(7)])
    race = Race(fld.names, table_size=3, seed=2, top=2, confidence=0.95, max_games=10**6)
    rng = np.random.default_rng(4)
    index = {n: i for i, n in enumerate(fld.names)}
    while (plan := race._plan()) is not None:
        by_pass: dict[int, list[tuple[int, ...]]] = {}
        for t in plan:
            by_pass.setdefault(t.pass_no, []).append(t.seats)
        for p, tables in by_pass.items():
            common = set(race._common[p])
            assert all(set(t[1:]) == common and t[0] not in common for t in tables)
            assert {t[0] for t in tables} == set(race._contending) - common
        tables = race.next_tables()
        assert tables is not None
        seats = np.array([[index[e] for e in t] for t in tables])
        race.record(
            [dict(zip(t, row.tolist(), strict=True)) for t, row in zip(tables, fld.totals(seats, rng), strict=True)]
        )
    assert race.settled


def test_seat_orders_in_a_race_never_fix_who_sits_after_whom() -> None:
    """Issue 24: in a 60-entrant race one entrant sat right after another at 4,787 of their 4,918 shared tables.
    Over a race's blocks every pair that shares enough tables sits in both orders."""
    fld = Field(strength=[0.1 * i for i in range(12)])
    race = Race(fld.names, table_size=4, seed=3, top=3, confidence=0.95, max_games=30_000)
    rng = np.random.default_rng(5)
    index = {n: i for i, n in enumerate(fld.names)}
    after: Counter[tuple[str, str]] = Counter()
    while (blocks := race.next_round()) is not None:
        for b in blocks:
            first = b.games[0].seats
            for i, a in enumerate(first):
                after[(a, first[(i + 1) % len(first)])] += 1
        seats = np.array([[index[e] for e in b.entrants] for b in blocks])
        totals = fld.totals(seats, rng)
        race.record([dict(zip(b.entrants, row.tolist(), strict=True)) for b, row in zip(blocks, totals, strict=True)])
    for a, b in itertools.permutations(fld.names, 2):
        shared = after[(a, b)] + after[(b, a)]
        if shared >= 40:
            assert 0.25 < after[(a, b)] / shared < 0.75, (a, b, after[(a, b)], shared)


def test_race_stops_at_max_games_with_a_reason() -> None:
    race = run(Field(strength=[0.0] * 8), k=4, top=3, seed=1, max_games=200)
    outcome = race.outcome()
    assert not outcome.settled and outcome.games <= 200
    assert outcome.reason is not None and "--max-games 200" in outcome.reason
    assert outcome.to_dict()["top"] == 3 and outcome.to_dict()["settled"] is False


def test_race_is_a_pure_function_of_results_and_seed() -> None:
    fld = Field(strength=[0.5 * i for i in range(9)])
    one, two = run(fld, k=4, top=2, seed=5), run(fld, k=4, top=2, seed=5)
    assert one.outcome() == two.outcome()
    margin = [run(fld, k=4, top=2, seed=5, tie_margin=0.05).outcome() for _ in range(2)]
    assert margin[0] == margin[1]
    other = Race(fld.names, table_size=4, seed=6, top=2, confidence=0.95, max_games=10**5)
    first = Race(fld.names, table_size=4, seed=5, top=2, confidence=0.95, max_games=10**5)
    assert other.next_round() != first.next_round(), "the seed shapes the tables and the deals"


def test_a_bad_tie_margin_is_refused() -> None:
    for bad in (-0.1, 1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="tie_margin"):
            Race(["a", "b", "c"], table_size=2, seed=1, top=1, confidence=0.95, max_games=10, tie_margin=bad)
