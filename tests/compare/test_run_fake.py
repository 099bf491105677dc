"""Comparisons with in-process fake bots of known difference: verdicts, the stored games, resume, forfeits."""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.compare import BlockResult, Design, Settings, run_compare
from referee.compare.run import META_KEY, stored_settings
from referee.tournament import (
    DealSecret,
    EntrantInfo,
    LocalExecutor,
    Requested,
    ResultsStore,
    TournamentParams,
    resolve_params,
)
from tests.tournament.fakes import FakePlayer, make_factory

from .fakes import known_difference, ranks_of

#: One deal secret for every test here, so two comparisons of one seed deal the same cards.
SECRET = DealSecret(bytes(range(32)))


def setup(
    tmp: Path, panel: tuple[str, ...] = ("p1", "p2", "p3"), k: int = 4, **kw: object
) -> tuple[ResultsStore, TournamentParams, Settings]:
    names = ("new", "old", *panel)
    entrants = tuple(EntrantInfo(n, ("python3", f"{n}.py"), "/tmp") for n in names)
    params = resolve_params(None, Requested(entrants=entrants, table_size=k, seed=5))
    settings = Settings(Design(min_blocks=8), "points", **kw)  # type: ignore[arg-type]
    store = ResultsStore(tmp)
    if store.params() is None:
        store.initialise(params, SECRET)
        store.set_meta(META_KEY, settings.to_json())
    return store, params, settings


@pytest.mark.parametrize(("edge", "verdict"), [(8.0, "stronger"), (-8.0, "not stronger")])
def test_a_clear_difference_is_decided_at_the_first_allowed_block(tmp_path: Path, edge: float, verdict: str) -> None:
    created: list[FakePlayer] = []
    store, params, settings = setup(tmp_path)
    outcome = run_compare(
        store, params, settings, LocalExecutor(2, play=known_difference(edge), factory=make_factory(created))
    )
    state = outcome.state
    assert (state.verdict, state.blocks, state.games) == (verdict, 8, 64)
    assert state.points.mean == pytest.approx(edge, abs=1.5)
    ci = state.points.ci95()
    assert ci is not None and ci[0] < edge < ci[1]
    assert outcome.played == 64 == store.game_count() and not outcome.interrupted
    assert all(p.closed for p in created)
    assert all(len(set(p.deals)) == len(p.deals) for p in created), "no process plays a deal twice"
    ids = sorted(store.finished_game_ids())
    assert ids == [f"g{i:06d}" for i in range(1, 65)]


def test_new_and_old_play_the_same_deal_seats_and_opponents(tmp_path: Path) -> None:
    store, params, settings = setup(tmp_path)
    run_compare(store, params, settings, LocalExecutor(1, play=known_difference(5.0), factory=make_factory([])))
    games = list(store.games())
    for block in range(8):
        new_games, old_games = games[block * 8 : block * 8 + 4], games[block * 8 + 4 : block * 8 + 8]
        for g_new, g_old in zip(new_games, old_games, strict=True):
            seats_new = [("X" if r.entrant == "new" else r.entrant) for r in g_new.seats]
            seats_old = [("X" if r.entrant == "old" else r.entrant) for r in g_old.seats]
            assert seats_new == seats_old and "X" in seats_new
        assert sorted(r.entrant for r in new_games[0].seats) == sorted(r.entrant for r in new_games[1].seats)
        assert [r.entrant for r in new_games[0].seats].index("new") == 0
    # a block is one deal and one batch (so the executor never plays two of its games at once); blocks differ
    dealt = store.dealt_games()
    assert [batch for _, batch, _, _ in dealt] == [i // 8 for i in range(64)]
    seeds = [seed for _, _, seed, _ in dealt]
    assert all(len(set(seeds[b * 8 : b * 8 + 8])) == 1 for b in range(8)) and len(set(seeds)) == 8
    # every table of three panel bots out of three is the same; blocks cycle through the panel's tables
    assert {r.entrant for r in games[0].seats} == {"new", "p1", "p2", "p3"}


def test_tables_cycle_through_the_panel(tmp_path: Path) -> None:
    store, params, settings = setup(tmp_path, panel=("p1", "p2", "p3"), k=3)
    run_compare(store, params, settings, LocalExecutor(2, play=known_difference(5.0), factory=make_factory([])))
    games = list(store.games())
    tables = [frozenset(r.entrant for r in games[b * 6].seats) - {"new"} for b in range(3)]
    assert tables == [frozenset({"p1", "p2"}), frozenset({"p1", "p3"}), frozenset({"p2", "p3"})]


def test_no_difference_with_a_small_budget_is_inconclusive(tmp_path: Path) -> None:
    store, params, settings = setup(tmp_path, max_games=60)
    outcome = run_compare(
        store, params, settings, LocalExecutor(2, play=known_difference(0.3), factory=make_factory([]))
    )
    assert (outcome.state.verdict, outcome.state.blocks, outcome.state.games) == ("inconclusive", 7, 56)
    assert store.game_count() == 56, "only whole blocks within --max-games are played"


class Stop(Exception):
    pass


def test_an_interrupted_comparison_resumes_to_the_same_verdict(tmp_path: Path) -> None:
    whole, params, settings = setup(tmp_path / "whole")
    expected = run_compare(
        whole, params, settings, LocalExecutor(2, play=known_difference(1.0), factory=make_factory([]))
    )
    assert expected.state.verdict is not None and expected.state.blocks > 8

    part, params2, settings2 = setup(tmp_path / "part")
    inner = known_difference(1.0)
    count = 0

    async def failing(*args: object, **kwargs: object) -> object:
        nonlocal count
        count += 1
        if count == 45:
            raise Stop
        return await inner(*args, **kwargs)

    created: list[FakePlayer] = []
    with pytest.raises(Stop):
        run_compare(part, params2, settings2, LocalExecutor(2, play=failing, factory=make_factory(created)))
    assert all(p.closed for p in created), "bots are closed even when the run fails"
    assert 40 <= part.game_count() < 48, "stopped midway, in the sixth block"
    part.close()
    again = ResultsStore(tmp_path / "part")
    assert again.params() == params and stored_settings(again) == settings
    outcome = run_compare(again, params, settings, LocalExecutor(2, play=inner, factory=make_factory([])))
    assert outcome.state.to_dict() == expected.state.to_dict()
    assert again.game_count() == whole.game_count()
    # a finished comparison replays its verdict and plays nothing
    replay = run_compare(again, params, settings, LocalExecutor(2, play=inner, factory=make_factory([])))
    assert replay.played == 0 and replay.state.to_dict() == expected.state.to_dict()


@pytest.mark.parametrize(("crash", "verdict"), [("new", "not stronger"), ("old", "stronger")])
def test_forfeits_count_against_the_version_that_forfeits(tmp_path: Path, crash: str, verdict: str) -> None:
    store, params, settings = setup(tmp_path, panel=("p1", "p2"), k=3)
    play = known_difference(0.0, crash=frozenset({crash}))
    outcome = run_compare(store, params, settings, LocalExecutor(2, play=play, factory=make_factory([])))
    assert outcome.state.verdict == verdict
    assert outcome.state.forfeits == {"new": 0, "old": 0} | {crash: 8 * 3}
    assert outcome.state.ranks.mean == pytest.approx(-1.0 if crash == "new" else 1.0, abs=0.5)


def test_a_panel_bot_that_forfeits_hurts_neither_version(tmp_path: Path) -> None:
    store, params, settings = setup(tmp_path, panel=("p1", "p2"), k=3)
    play = known_difference(5.0, crash=frozenset({"p2"}))
    outcome = run_compare(store, params, settings, LocalExecutor(2, play=play, factory=make_factory([])))
    assert outcome.state.forfeits == {"new": 0, "old": 0}
    assert outcome.state.verdict == "stronger"


def test_ranks_put_forfeiters_below_everyone() -> None:
    assert ranks_of([5, 3, 3, 9], set()) == (3, 1, 1, 4)
    assert ranks_of([5, 3, 3, 9], {1}) == (2, 4, 1, 3)


def test_state_refuses_blocks_after_the_verdict(tmp_path: Path) -> None:
    store, params, settings = setup(tmp_path)
    state = run_compare(
        store, params, settings, LocalExecutor(2, play=known_difference(5.0), factory=make_factory([]))
    ).state
    with pytest.raises(ValueError, match="already ended"):
        state.add(BlockResult(8, 1.0, 0.5, {"new": 0, "old": 0}))


def test_a_bound_crossed_before_the_minimum_is_said_once_with_why_it_goes_on() -> None:
    """The LLR may pass a bound in the first blocks; the test gives no verdict before ``min_blocks``, and the block
    lines say so once, instead of playing on without a word (issue 27)."""
    import io

    from rich.console import Console

    from referee.compare import CompareState
    from referee.compare.display import BlockLines

    out = io.StringIO()
    lines = BlockLines(Console(file=out, width=300))
    state = CompareState(4, Settings(Design(min_blocks=8), "points", 10_000))
    for i in range(8):
        state.add(BlockResult(i, 30.0 + (i % 2), 2.0, {}))
        lines.block_done(state)
    text = out.getvalue().splitlines()
    notes = [ln for ln in text if "past its upper bound" in ln]
    assert len(notes) == 1 and "decides no earlier than block 8" in notes[0] and "plays on" in notes[0]
    assert text.index(notes[0]) < 8  # said before the verdict's block
    assert state.verdict == "stronger" and state.blocks == 8
