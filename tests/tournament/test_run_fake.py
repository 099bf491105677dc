"""The local executor and the store with in-process fake bots: completion, lanes, resume, fault attribution."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import trio

from referee.tournament import (
    DealSecret,
    EntrantInfo,
    LocalExecutor,
    RaceOutcome,
    Requested,
    ResultsStore,
    resolve_params,
    run_tournament,
    standings_from_store,
)

from .fakes import FakePlayer, fake_play, make_factory


def params_for(names: list[str], **kw: object) -> object:
    entrants = tuple(EntrantInfo(n, ("python3", f"{n}.py"), "/tmp") for n in names)
    return resolve_params(None, Requested(entrants=entrants, seed=11, **kw))  # type: ignore[arg-type]


#: Every run here deals from one secret, so that a whole run and an interrupted one deal alike.
SECRET = DealSecret(bytes(32))


def start(tmp: Path, names: list[str], **kw: object) -> tuple[ResultsStore, object]:
    store = ResultsStore(tmp)
    params = store.params() or params_for(names, **kw)
    if store.params() is None:
        store.initialise(params, SECRET)  # type: ignore[arg-type]
    return store, params


class Stop(Exception):
    pass


def test_full_run_stores_every_game_and_closes_every_bot(tmp_path: Path) -> None:
    created: list[FakePlayer] = []
    store, params = start(tmp_path, ["a", "b", "zed", "c"], table_size=3, repeats=2)
    outcome = run_tournament(store, params, LocalExecutor(2, play=fake_play, factory=make_factory(created)))  # type: ignore[arg-type]
    assert outcome.total == 4 * 3 * 2 == outcome.played and not outcome.interrupted
    assert store.game_count() == 24
    # Processes stay up across deals, but none plays a deal twice (the rotations of a table share one deal, and
    # a process that remembered its hand would know another player's in the next rotation); all closed at the end.
    assert all(len(set(p.deals)) == len(p.deals) for p in created)
    assert any(p.games > 1 for p in created)
    assert len(created) <= 2 * 4 + 8 * 2 * 3
    assert sum(p.games for p in created) == 24 * 3
    assert all(p.closed for p in created)
    assert store.declared_names() == {n: f"{n}-declared" for n in ["a", "b", "zed", "c"]}
    assert sorted(p.name for p in (tmp_path / "games").iterdir()) == [f"g{i:06d}.jsonl.zst" for i in range(1, 25)]
    s = standings_from_store(store)
    assert s.games == 24 and sum(e.games for e in s.entrants) == 72
    store.close()
    with sqlite3.connect(tmp_path / "results.sqlite") as db:
        assert db.execute("SELECT count(*) FROM seats").fetchone()[0] == 72
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        logs = {r[0] for r in db.execute("SELECT log_path FROM games")}
    assert logs == {f"games/g{i:06d}.jsonl.zst" for i in range(1, 25)}


def test_a_bot_process_never_plays_a_deal_twice_but_carries_on_to_the_next_deal(tmp_path: Path) -> None:
    """Two entrants, three deals, two seat rotations each, one lane: the first rotation of every deal, then the
    second of every deal; each bot gets a new process once, when the second pass begins."""
    created: list[FakePlayer] = []
    store, params = start(tmp_path, ["a", "b"], repeats=3)
    run_tournament(store, params, LocalExecutor(1, play=fake_play, factory=make_factory(created)))  # type: ignore[arg-type]
    for name in ("a", "b"):
        assert [p.games for p in created if p.name == name] == [3, 3]
    assert all(len(set(p.deals)) == p.games for p in created)
    assert all(p.closed for p in created)


def test_two_lanes_swap_deals_between_passes_so_each_process_plays_two_passes(tmp_path: Path) -> None:
    """Four entrants at one table, 30 deals, four rotations, two lanes: a lane's processes play the deals the other
    lane played in the pass before, so each process plays two rotations of different deals and is restarted once:
    4 entrants x 2 lanes x 2 processes (one process per pass and lane would be 32)."""
    created: list[FakePlayer] = []
    store, params = start(tmp_path, ["a", "b", "c", "d"], repeats=30)
    run_tournament(store, params, LocalExecutor(2, play=fake_play, factory=make_factory(created)))  # type: ignore[arg-type]
    assert store.game_count() == 120
    assert all(len(set(p.deals)) == len(p.deals) for p in created)
    assert len(created) == 16
    assert sum(p.games for p in created) == 120 * 4
    assert all(p.closed for p in created)


def test_fresh_processes_start_one_player_per_seat_per_game(tmp_path: Path) -> None:
    created: list[FakePlayer] = []
    store, params = start(tmp_path, ["a", "b", "c"], repeats=2)
    run_tournament(store, params, LocalExecutor(1, play=fake_play, factory=make_factory(created), fresh=True))  # type: ignore[arg-type]
    assert len(created) == 6 * 3
    assert all(p.games == 1 and p.closed for p in created)


def test_interrupted_run_resumes_to_the_same_standings(tmp_path: Path) -> None:
    names = ["a", "b", "zed", "c", "d"]
    whole, params = start(tmp_path / "whole", names, repeats=2)
    run_tournament(whole, params, LocalExecutor(2, play=fake_play, factory=make_factory([])))  # type: ignore[arg-type]
    expected = standings_from_store(whole).to_dict()

    part, params2 = start(tmp_path / "part", names, repeats=2)
    count = 0

    def boom(_: object) -> None:
        nonlocal count
        count += 1
        if count == 13:
            raise Stop

    created: list[FakePlayer] = []
    with pytest.raises(Stop):
        run_tournament(
            part, params2, LocalExecutor(2, play=fake_play, factory=make_factory(created)), on_committed=boom
        )  # type: ignore[arg-type]
    assert all(p.closed for p in created), "bots are closed even when the run fails"
    stopped_at = part.game_count()
    assert 13 <= stopped_at < 40
    # Unfinished: only the commitment is shown; the secret would give the remaining deals away.
    assert part.deals() == {
        "scheme": "hmac-sha256/v1",
        "commitment": SECRET.commitment,
        "secret": None,
        "chain_head": None,
    }
    part.close()
    again, params3 = start(tmp_path / "part", names)
    assert params3 == params2
    outcome = run_tournament(again, params3, LocalExecutor(2, play=fake_play, factory=make_factory([])))  # type: ignore[arg-type]
    assert (outcome.done_before, outcome.played, outcome.total) == (stopped_at, 40 - stopped_at, 40)
    assert standings_from_store(again).to_dict() == expected
    assert again.deals()["secret"] == SECRET.hex, "revealed once the last game is stored"
    # Nothing left: a third run plays nothing and changes nothing.
    outcome = run_tournament(again, params3, LocalExecutor(2, play=fake_play, factory=make_factory([])))  # type: ignore[arg-type]
    assert outcome.played == 0 and again.game_count() == 40


def test_faults_are_attributed_to_the_entrant(tmp_path: Path) -> None:
    store, params = start(tmp_path, ["a", "crashy", "b"], repeats=1)
    run_tournament(store, params, LocalExecutor(2, play=fake_play, factory=make_factory([])))  # type: ignore[arg-type]
    s = {e.name: e for e in standings_from_store(store).entrants}
    assert s["crashy"].forfeits == {"crash": 3}
    assert s["a"].forfeits == {} and s["b"].forfeits == {}
    assert s["crashy"].mean_rank == 3.0
    store.close()
    with sqlite3.connect(tmp_path / "results.sqlite") as db:
        rows = db.execute("SELECT DISTINCT entrant, kind FROM faults").fetchall()
        seats = db.execute("SELECT f.seat, s.seat FROM faults f JOIN seats s USING (game_id, entrant)").fetchall()
    assert rows == [("crashy", "crash")]
    assert all(a == b for a, b in seats)


@pytest.mark.parametrize("terminal", [False, True])
def test_live_progress_reports_every_game_with_its_rate_and_eta(tmp_path: Path, terminal: bool) -> None:
    import io

    from rich.console import Console

    from referee.tournament import LiveProgress

    out = io.StringIO()
    console = Console(file=out, force_terminal=terminal, width=120)
    store, params = start(tmp_path, ["a", "b", "zed"], repeats=4)
    progress = LiveProgress(console, refresh=0.0)
    run_tournament(store, params, LocalExecutor(2, play=fake_play, factory=make_factory([])), progress=progress)  # type: ignore[arg-type]
    text = out.getvalue()
    if terminal:
        assert "Live standings" in text and "ETA" in text and "12/12" in text and "games/s" in text
    else:
        lines = text.splitlines()
        assert lines[0] == "12 games to play"
        played = [ln for ln in lines if "games played" in ln]
        assert played[-1].startswith("12/12 games played (100%): ") and "games/s, elapsed 0:00:" in played[-1]
        assert re.fullmatch(r"1/12 games played \(8%\): [\d.]+ games/s, elapsed 0:00:\d\d, ETA 0:\d\d:\d\d", played[0])


def test_json_progress_is_one_event_a_line(tmp_path: Path) -> None:
    import io
    import json

    from referee.tournament.live import JsonProgress

    out = io.StringIO()
    store, params = start(tmp_path, ["a", "b", "zed"], repeats=4)
    executor = LocalExecutor(2, play=fake_play, factory=make_factory([]))
    run_tournament(store, params, executor, progress=JsonProgress(out))  # type: ignore[arg-type]
    events = [json.loads(line) for line in out.getvalue().splitlines()]
    assert events[0] == {"event": "start", "total": 12, "games": 0}
    progress = [e for e in events if e["event"] == "progress"]
    assert [e["games"] for e in progress] == list(range(1, 13))  # a tenth of 12 games is one game
    assert progress[-1]["total"] == 12 and progress[-1]["eta"] == 0 and progress[-1]["rate"] > 0
    assert events[-1]["event"] == "stop" and events[-1]["games"] == 12


@pytest.mark.parametrize(("names", "games"), [(["a", "b"], 1), (["a", "b"], 3), (["a", "b", "c"], 2)])
def test_two_rotations_of_one_deal_never_run_at_the_same_time(tmp_path: Path, names: list[str], games: int) -> None:
    """With more lanes than deals in play, a second lane must wait rather than play another rotation of a deal
    being played (two processes of one entrant could pass each other their hands). The lanes still run at once
    when there are other deals to play."""
    store, params = start(tmp_path, names, repeats=games, table_size=2)
    playing: dict[int, int] = {}
    most = {"deal": 0, "all": 0}

    async def slow_play(players: list[FakePlayer], **kw: Any) -> Any:
        seed = kw["seed"]
        playing[seed] = playing.get(seed, 0) + 1
        most["deal"] = max(most["deal"], playing[seed])
        most["all"] = max(most["all"], sum(playing.values()))
        try:
            await trio.sleep(0.05)
            return await fake_play(players, **kw)
        finally:
            playing[seed] -= 1

    outcome = run_tournament(store, params, LocalExecutor(3, play=slow_play, factory=make_factory([])))  # type: ignore[arg-type]
    assert outcome.played == outcome.total == len(names) * (len(names) - 1) // 2 * games * 2
    assert most["deal"] == 1
    assert most["all"] == min(3, len(names) * (len(names) - 1) // 2 * games)  # lanes run at once on other deals


def race_rounds(store: ResultsStore, params: Any) -> dict[int, int]:
    """Deal seed → the race round that dealt it, replayed from the stored results."""
    from referee.tournament import race_of, replay_race

    results = {g.game_id: g.seats for g in store.games()}
    race = race_of(params, store.deal_secret())
    rounds: list[Any] = []
    replay_race(race, results, rounds)
    first = {}
    for batch in rounds:
        first.setdefault(batch.games[0].seed, batch.games[0].game_id)
    order = {g.game_id: g.repeat for b in rounds for g in b.games}  # a race's "repeat" is its round
    return {seed: order[gid] for seed, gid in first.items()}


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_race_keeps_its_bots_up_across_rounds_and_never_deals_a_process_a_deal_twice(
    tmp_path: Path, jobs: int
) -> None:
    """Every round of a race brings new deals, so a bot process carries on from round to round: one process per
    seat rotation and entrant in each lane, never more, and none of them is dealt a deal twice."""
    created: list[FakePlayer] = []
    names = ["a", "b", "c", "d", "e", "zed"]
    store, params = start(tmp_path, names, table_size=3, format="race", top=2, max_games=240)
    outcome = run_tournament(store, params, LocalExecutor(jobs, play=fake_play, factory=make_factory(created)))  # type: ignore[arg-type]
    race = outcome.decided
    assert isinstance(race, RaceOutcome) and race.rounds >= 3
    games = race.games
    assert outcome.played == store.game_count() == games
    assert all(len(set(p.deals)) == len(p.deals) for p in created), "a process never plays a deal twice"
    assert all(p.closed for p in created)
    assert sum(p.games for p in created) == games * 3
    rounds = race_rounds(store, params)
    for name in names:
        mine = [p for p in created if p.name == name]
        assert len(mine) <= 3 * jobs, (name, len(mine))  # at most a table's worth of processes per lane
        played = {rounds[s] for p in mine for s in p.deals}
        assert any(len({rounds[s] for s in p.deals}) == len(played) for p in mine), "a process in all its rounds"
    if jobs == 1:
        assert len(created) == 3 * len(names)  # no restart at all after the first round


def test_a_bot_left_out_of_a_round_is_closed_when_the_round_begins(tmp_path: Path) -> None:
    """The local executor asks for the next round once every game of this one is committed, keeps its bots across
    rounds, and closes the processes of an entrant that the new round leaves out (a race's eliminated entrants)."""
    from referee.contest.schedule import table_batches
    from referee.engine import Ruleset
    from referee.runner import RunnerConfig
    from referee.tournament import PlaySetup

    created: list[FakePlayer] = []
    entrants = tuple(EntrantInfo(n, ("true",), str(tmp_path)) for n in ("a", "b", "c"))
    first = table_batches([(0, ("a", "b", "c")), (0, ("c", "a", "b"))], 1, SECRET)
    second = table_batches([(1, ("a", "b"))], 1, SECRET, first_batch=2, first_ordinal=6)
    rounds = [first, second, []]
    committed: list[str] = []
    closed_at_second_round: list[bool] = []

    def more() -> list[Any]:
        assert len(committed) == {3: 0, 2: 6, 1: 8}[len(rounds)], "asked once every game handed out is committed"
        return rounds.pop(0)

    async def play(players: list[FakePlayer], **kw: Any) -> Any:
        if kw["game_id"] == "g000007":
            closed_at_second_round.extend(p.closed for p in created if p.name == "c")
        return await fake_play(players, **kw)

    def on_game(p: Any) -> None:
        committed.append(p.game.game_id)

    setup = PlaySetup(entrants, RunnerConfig(), Ruleset(), tmp_path, set(), on_game, keep=3)
    LocalExecutor(2, play=play, factory=make_factory(created)).run(setup, more)
    assert sorted(committed) == [f"g{i:06d}" for i in range(1, 9)] and rounds == []
    assert closed_at_second_round and all(closed_at_second_round), "c's processes closed when round 2 began"
    assert all(p.closed for p in created) and all(len(set(p.deals)) == len(p.deals) for p in created)


@pytest.mark.parametrize("terminal", [False, True])
def test_a_races_progress_shows_its_rounds_entrants_left_and_open_places_not_the_cap(
    tmp_path: Path, terminal: bool
) -> None:
    """A race has no total (it stops once its order is settled): its progress says the round and the games it holds,
    the games played, the entrants left and the places still open, never ``--max-games`` as if it were the number
    of games to play; its only estimate is the round's."""
    import io
    import json

    from rich.console import Console

    from referee.tournament import LiveProgress
    from referee.tournament.live import JsonProgress

    out = io.StringIO()
    console = Console(file=out, force_terminal=terminal, width=200)
    store, params = start(tmp_path, ["a", "b", "c", "d", "e", "zed"], table_size=3, format="race", max_games=200)
    progress = LiveProgress(console, refresh=0.0)
    executor = LocalExecutor(2, play=fake_play, factory=make_factory([]))
    outcome = run_tournament(store, params, executor, progress=progress)  # type: ignore[arg-type]
    race = outcome.decided
    assert isinstance(race, RaceOutcome) and race.rounds >= 2
    rounds, games = race.rounds, race.games
    text = out.getvalue()
    assert "/200" not in text and "200 games to play" not in text and "ETA" not in text.replace("round ETA", "")
    shown = [
        (int(r), int(n), int(g))
        for r, n, g in re.findall(r"round (\d+) \((\d+) games\), \d+ entrants left, [^;]+; (\d+) games in all", text)
    ]
    if terminal:
        assert {r for r, _, _ in shown} == set(range(1, rounds + 1))
        assert [g for _, _, g in shown] == sorted(g for _, _, g in shown) and games in [g for _, _, g in shown]
    else:
        lines = text.splitlines()
        assert lines[0] == "Race: it plays until the order is settled"
        assert lines[1].startswith("Race: round 1 (")
        assert "6 entrants left, places 1, 2, 3 of the top 3 open" in lines[1]
        assert not any("games played" in ln for ln in lines)
        # each round's games are the games it played: the next round starts that many games later
        starts = {r: (n, g) for r, n, g in shown}
        assert all(starts[r][1] + starts[r][0] == starts[r + 1][1] for r in starts if r + 1 in starts)
    # the same as JSON events, resumed from the stored games (nothing left to play: no round begins)
    events = io.StringIO()
    run_tournament(store, params, executor, progress=JsonProgress(events))  # type: ignore[arg-type]
    lines = [json.loads(line) for line in events.getvalue().splitlines()]
    assert lines[0] == {"event": "start", "total": None, "games": games}


def test_a_lane_holds_at_most_one_process_per_entrant_or_max_live(tmp_path: Path, monkeypatch: Any) -> None:
    """A race keeps a process per entrant and seat rotation, but never more than ``max(entrants, MAX_LIVE)`` in a
    lane (a large field would otherwise hold four times as many bots as before): beyond that, the least recently
    used process of another entrant is closed. Still no process is dealt a deal twice."""
    from referee.tournament import PlayerPool

    monkeypatch.setattr(PlayerPool, "MAX_LIVE", 8)
    created: list[FakePlayer] = []
    most = 0

    async def counting_play(players: list[FakePlayer], **kw: Any) -> Any:
        nonlocal most
        most = max(most, sum(1 for p in created if not p.closed))
        return await fake_play(players, **kw)

    names = ["a", "b", "c", "d", "e", "zed"]
    store, params = start(tmp_path, names, table_size=3, format="race", top=2, max_games=200)
    outcome = run_tournament(store, params, LocalExecutor(1, play=counting_play, factory=make_factory(created)))  # type: ignore[arg-type]
    assert isinstance(outcome.decided, RaceOutcome) and outcome.decided.games > 100
    assert most == 8, "one lane: at most max(6 entrants, 8) live processes, and the cap is reached"
    assert len(created) > 3 * len(names), "so some are restarted"
    assert all(len(set(p.deals)) == len(p.deals) for p in created) and all(p.closed for p in created)


def test_fresh_bots_in_a_race_start_one_process_per_seat_and_game(tmp_path: Path) -> None:
    """``--fresh-bots`` still means a new process for every game in a race, whose lanes otherwise keep theirs."""
    created: list[FakePlayer] = []
    store, params = start(tmp_path, ["a", "b", "c", "d"], table_size=3, format="race", top=1, max_games=60)
    outcome = run_tournament(store, params, LocalExecutor(2, play=fake_play, factory=make_factory(created), fresh=True))  # type: ignore[arg-type]
    assert outcome.played > 0 and len(created) == 3 * outcome.played
    assert all(p.games == 1 and p.closed for p in created)


def test_a_lost_worker_is_one_line_kept_for_the_summary_and_standings(tmp_path: Path) -> None:
    """An executor that loses a worker (as ``DaskExecutor`` hears from the scheduler) reports it through the run:
    one line naming the worker, when, the tables it had and the workers left; the run's outcome and the store keep
    it, for the summary and standings.json."""
    import io

    from rich.console import Console

    from referee.contest.workers_lost import WorkerLost, lost_workers
    from referee.tournament import LiveProgress

    class Losing(LocalExecutor):
        def run(self, setup: Any, rounds: Any) -> None:
            setup.on_lost(WorkerLost("tcp://127.0.0.1:4242", 1_700_000_000.0, ("g000003", "g000007"), left=1))
            super().run(setup, rounds)

    out = io.StringIO()
    store, params = start(tmp_path, ["a", "b", "zed"], repeats=1)
    progress = LiveProgress(Console(file=out, width=200), refresh=0.0)
    outcome = run_tournament(store, params, Losing(1, play=fake_play, factory=make_factory([])), progress=progress)  # type: ignore[arg-type]
    line = next(ln for ln in out.getvalue().splitlines() if ln.startswith("Cluster:"))
    assert line == (
        "Cluster: worker tcp://127.0.0.1:4242 lost at 22:13:20 UTC, playing 2 table(s) (g000003, g000007), "
        "played again on the others; 1 worker(s) now"
    )
    assert [w.worker for w in outcome.lost] == ["tcp://127.0.0.1:4242"]
    assert lost_workers(store) == [
        {"worker": "tcp://127.0.0.1:4242", "at": "2023-11-14T22:13:20Z", "tables": ["g000003", "g000007"],
         "expected": False}
    ]  # fmt: skip
