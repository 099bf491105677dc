"""Tournaments on real Dask clusters: the same standings as a local run, no game lost or duplicated when a worker
dies, resume without re-submitting stored games, and clear errors naming the worker and the entrant."""

from __future__ import annotations

import os
import signal
import sqlite3
import time
from pathlib import Path
from typing import Any

import pytest
from distributed import Client, LocalCluster

from referee.contest.play_order import rotation_order
from referee.contest.schedule import ScheduledGame
from referee.contest.workers_lost import lost_workers
from referee.runner.gamelog import log_content
from referee.tournament import ClusterError, PlayedGame, ResultsStore, WorkerSetupError, make_schedule
from referee.tournament import cluster as cluster_mod
from referee.tournament.execute import wire_id

from .conftest import NAMES, SECRET, make_params, play, stored_games

pytestmark = pytest.mark.timeout(240)


def all_games(params: Any) -> list[ScheduledGame]:
    """Every game of ``params``'s schedule, in schedule order."""
    batches = make_schedule(
        params.names, table_size=params.table_size, repeats=params.repeats, seed=params.seed, secret=SECRET
    )
    return [g for b in batches for g in b.games]


def all_game_ids(params: Any) -> list[str]:
    return [g.game_id for g in all_games(params)]


def test_local_cluster_gives_the_local_standings_and_every_log(tmp_path: Path, bot_dir: Path) -> None:
    params = make_params(bot_dir, repeats=2, env={n: {"NOTE": f"{n} plays"} for n in NAMES})
    local = play(tmp_path / "local", params)
    delivered: list[str] = []
    on_cluster = play(
        tmp_path / "cluster", params, cluster="local:2", on_committed=lambda p: delivered.append(p.game.game_id)
    )
    assert on_cluster == local
    assert stored_games(tmp_path / "cluster") == stored_games(tmp_path / "local")
    ids = all_game_ids(params)
    assert sorted(delivered) == ids  # each game committed once
    logs = tmp_path / "cluster" / "games"
    assert sorted(p.name.removesuffix(".jsonl.zst") for p in logs.glob("*.jsonl.zst")) == ids
    for game_id in ids:  # the coordinator wrote the worker's log: one game, the same as played locally
        assert log_content(logs / f"{game_id}.jsonl.zst").count(b'"game_start"') == log_content(
            tmp_path / "local" / "games" / f"{game_id}.jsonl.zst"
        ).count(b'"game_start"')
    with sqlite3.connect(tmp_path / "cluster" / "results.sqlite") as db:
        paths = {r[0] for r in db.execute("SELECT log_path FROM games")}
    assert paths == {f"games/{g}.jsonl.zst" for g in ids}
    seen_as = {g.game_id: wire_id(g) for g in all_games(params)}  # the opaque id each game's bots were told
    for name in NAMES:  # each bot's stderr came back once, whichever worker lane ran it
        lines = [ln for f in (tmp_path / "cluster" / "bots").glob(f"{name}.*.log") for ln in f.read_text().splitlines()]
        mine = [g for g, seats in stored_games(tmp_path / "cluster") if name in {s[0] for s in seats}]
        assert sorted(lines) == sorted(f"{name} plays {seen_as[g]}" for g in mine)


@pytest.fixture
def process_cluster() -> Any:
    """Two worker processes under nannies (a killed worker is replaced), one thread each."""
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, **cluster_mod.LOCAL_PORTS) as cluster:
        yield cluster


def test_a_worker_killed_mid_tournament_loses_no_game_and_duplicates_none(
    tmp_path: Path, bot_dir: Path, process_cluster: Any
) -> None:
    slow = {name: {"PAUSE": "0.004"} for name in ("alpha", "beta", "gamma", "delta")}
    params = make_params(bot_dir, repeats=3, env=slow)
    expected = play(tmp_path / "local", params)
    address = process_cluster.scheduler_address
    with Client(address) as client:
        pids: dict[str, int] = client.run(os.getpid)
    scheduler = process_cluster.scheduler  # in this process: read which worker is busy, without another client
    killed: list[str] = []
    delivered: list[str] = []

    def kill_a_busy_worker() -> None:
        for _ in range(500):
            busy = [a for a, w in list(scheduler.workers.items()) if w.processing and a in pids]
            if busy:
                os.kill(pids[busy[0]], signal.SIGKILL)
                killed.append(busy[0])
                return
            time.sleep(0.01)

    def on_committed(p: PlayedGame) -> None:
        delivered.append(p.game.game_id)
        if not killed:
            kill_a_busy_worker()

    result = play(tmp_path / "cluster", params, cluster=address, on_committed=on_committed)
    assert killed, "no worker was busy to be killed"
    ids = all_game_ids(params)
    assert len(delivered) == len(set(delivered)) == len(ids)
    assert [g for g, _ in stored_games(tmp_path / "cluster")] == ids
    assert result == expected
    # the loss is reported (which worker, the tables it had, to be played again) and kept for the summary
    with ResultsStore(tmp_path / "cluster", create=False) as store:
        lost = lost_workers(store)
    # (under load another worker may miss its heartbeats and be dropped too: only the killed one is certain)
    (reported,) = [w for w in lost if w["worker"] == killed[0]]
    assert reported["expected"] is False and reported["tables"] and set(reported["tables"]) <= set(ids)


def test_resume_plays_only_the_games_missing_from_the_store(tmp_path: Path, bot_dir: Path) -> None:
    params = make_params(bot_dir)
    full = play(tmp_path / "t", params)
    ids = all_game_ids(params)
    dropped = ids[3:9]  # batches 1 and 2
    with sqlite3.connect(tmp_path / "t" / "results.sqlite") as db:
        marks = ",".join("?" * len(dropped))
        db.execute(f"DELETE FROM seats WHERE game_id IN ({marks})", dropped)
        db.execute(f"DELETE FROM faults WHERE game_id IN ({marks})", dropped)
        db.execute(f"DELETE FROM games WHERE game_id IN ({marks})", dropped)
    with LocalCluster(n_workers=1, threads_per_worker=2, processes=False, **cluster_mod.LOCAL_PORTS) as cluster:
        replayed: list[str] = []
        again = play(
            tmp_path / "t",
            params,
            cluster=cluster.scheduler_address,
            on_committed=lambda p: replayed.append(p.game.game_id),
        )
    assert sorted(replayed) == dropped
    assert again == full


@pytest.fixture
def thread_cluster() -> Any:
    """One in-process worker with one thread: batches run one after another, in schedule order."""
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False, **cluster_mod.LOCAL_PORTS) as cluster:
        yield cluster


def test_a_worker_without_an_entrants_files_is_named_and_finished_games_are_kept(
    tmp_path: Path, bot_dir: Path, thread_cluster: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    params = make_params(bot_dir)
    # One worker thread plays the games one by one, in rotation order: the entrant missing on the worker is one
    # the first game leaves out, so that game is played (and kept) before the first game it is in fails.
    order = [
        g
        for b in rotation_order(make_schedule(params.names, table_size=3, repeats=1, seed=params.seed, secret=SECRET))
        for g in b.games
    ]
    missing = next(n for n in NAMES if n not in order[0].seats)
    played = order[: next(i for i, g in enumerate(order) if missing in g.seats)]
    real = cluster_mod.required_files
    elsewhere = str(tmp_path / "only-on-the-coordinator" / f"{missing}.py")

    def files(info: Any, python: str) -> tuple[str, ...]:  # the coordinator sees a file the worker does not have
        return (*real(info, python), elsewhere) if info.name == missing else real(info, python)

    monkeypatch.setattr(cluster_mod, "required_files", files)
    with pytest.raises(WorkerSetupError) as caught:
        play(tmp_path / "t", params, cluster=thread_cluster.scheduler_address)
    error = caught.value
    worker = next(iter(thread_cluster.scheduler_info["workers"]))
    assert error.entrant == missing and error.worker == worker
    assert f"worker {worker}: entrant {missing}: {elsewhere} does not exist on this worker" in str(error)
    assert played and sorted(g for g, _ in stored_games(tmp_path / "t")) == sorted(g.game_id for g in played)


def test_a_worker_that_cannot_start_a_bot_is_named(
    tmp_path: Path, bot_dir: Path, thread_cluster: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    gate = tmp_path / "gamma-cannot-start"
    params = make_params(bot_dir, env={"gamma": {"NO_HELLO_IF": str(gate)}})
    real = cluster_mod.startable_entrants

    def probe_then_break(*args: Any) -> frozenset[str]:  # gamma starts on the coordinator, not on the worker
        ok = real(*args)
        gate.touch()
        return ok

    monkeypatch.setattr(cluster_mod, "startable_entrants", probe_then_break)
    with pytest.raises(WorkerSetupError) as caught:
        play(tmp_path / "t", params, cluster=thread_cluster.scheduler_address)
    assert caught.value.entrant == "gamma"
    assert "cannot start the bot here" in str(caught.value)
    assert "though the coordinator could start it" in str(caught.value)


def test_a_bot_that_starts_nowhere_forfeits_as_in_a_local_run(
    tmp_path: Path, bot_dir: Path, thread_cluster: Any
) -> None:
    gate = tmp_path / "always"
    gate.touch()
    params = make_params(bot_dir, env={"beta": {"NO_HELLO_IF": str(gate)}})
    local = play(tmp_path / "local", params)
    assert play(tmp_path / "cluster", params, cluster=thread_cluster.scheduler_address) == local
    beta = next(e for e in local["entrants"] if e["name"] == "beta")
    assert beta["forfeits"] and beta["games"] == 9


def test_an_unreachable_scheduler_is_a_cluster_error(
    tmp_path: Path, bot_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT", "1s")
    import dask.config

    dask.config.refresh()
    try:
        with pytest.raises(ClusterError, match=r"cannot reach the Dask scheduler at tcp://127\.0\.0\.1:9 within 1 s"):
            play(tmp_path / "t", make_params(bot_dir), cluster="tcp://127.0.0.1:9")
    finally:
        monkeypatch.delenv("DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT")
        dask.config.refresh()
    with sqlite3.connect(tmp_path / "t" / "results.sqlite") as db:
        assert db.execute("SELECT count(*) FROM games").fetchone()[0] == 0
