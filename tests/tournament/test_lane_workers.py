"""Lanes in worker processes (``LocalExecutor`` with ``workers=True``), driven with the in-process fake bots.

The fakes run in the forked workers; each game's result says which worker and which fake process played each seat,
so the rules on bot processes can be checked from here. ``test_worker_lanes_real.py`` has the real-bot lifecycles.
"""

from __future__ import annotations

import itertools
import os
import signal
import time
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import pytest
import trio

from referee.tournament import LaneError, LocalExecutor, RaceOutcome, ResultsStore, run_tournament
from referee.tournament.lane_workers import workers_cpu_seconds

from .fakes import FakePlayer, FakeResult, fake_play
from .test_run_fake import start

_serials = itertools.count()


def traced_factory(spec: Any, config: Any, stderr_path: Path) -> FakePlayer:
    """A fake bot process with a serial number (unique within its worker)."""
    player = FakePlayer(spec.name, first=not spec.name.startswith("z"))
    player.serial = next(_serials)  # type: ignore[attr-defined]
    return player


@dataclass(frozen=True)
class TracedResult(FakeResult):
    """A fake game's result with, by seat, the (worker pid, process serial) that played it."""

    procs: tuple[tuple[int, int], ...] = ()


async def traced_play(players: list[FakePlayer], **kw: Any) -> TracedResult:
    result = await fake_play(players, **kw)
    procs = tuple((os.getpid(), p.serial) for p in players)  # type: ignore[attr-defined]
    return TracedResult(**{f.name: getattr(result, f.name) for f in fields(result)}, procs=procs)


def stored(store: ResultsStore) -> dict[str, Any]:
    return {g.game_id: g.seats for g in store.games()}


def children() -> set[int]:
    """Pids of this process's children that have not been reaped."""
    me = str(os.getpid())
    found = set()
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                stat = (proc / "stat").read_text()
            except OSError:
                continue
            if stat.rsplit(")", 1)[1].split()[1] == me:
                found.add(int(proc.name))
    return found


@pytest.fixture
def live_children() -> Any:
    """A function giving the children of this process that the test started and that are not reaped yet (other
    tests of a full run may leave processes of their own, such as a Dask cluster's)."""
    before = children()
    return lambda: sorted(children() - before)


class Traced:
    """Collects every traced game as it is stored (``on_committed``)."""

    def __init__(self) -> None:
        self.games: list[Any] = []

    def __call__(self, played: Any) -> None:
        self.games.append(played)

    def processes(self) -> dict[tuple[int, int], list[int | None]]:
        """Each fake process (worker pid, serial) → the deal seeds it played, in order."""
        out: dict[tuple[int, int], list[int | None]] = {}
        for p in self.games:
            for proc in p.result.procs:
                out.setdefault(proc, []).append(p.game.seed)
        return out


def test_worker_lanes_store_the_games_lanes_in_this_process_store(tmp_path: Path, live_children: Any) -> None:
    """Same games, same results, played in two other processes; no process plays a deal twice; each lane keeps
    its bots across deals and passes, so the queue's copy of each lane's pool (which says which games fit it) is
    right: as few processes as in one process (4 per entrant at the least; a lane that runs ahead restarts once
    more), not one generation per pass over the deals (8 passes here)."""
    here, _ = start(tmp_path / "here", ["a", "b", "c", "zed"], table_size=4, repeats=30)
    there, params = start(tmp_path / "there", ["a", "b", "c", "zed"], table_size=4, repeats=30)
    run_tournament(here, params, LocalExecutor(2, play=traced_play, factory=traced_factory, workers=False))  # type: ignore[arg-type]
    traced = Traced()
    before = workers_cpu_seconds()
    outcome = run_tournament(
        there,
        params,  # type: ignore[arg-type]
        LocalExecutor(2, play=traced_play, factory=traced_factory, workers=True),
        on_committed=traced,
    )
    assert outcome.played == outcome.total == 120 and not outcome.interrupted
    assert stored(there) == stored(here)
    processes = traced.processes()
    pids = {pid for pid, _ in processes}
    assert len(pids) == 2 and os.getpid() not in pids, "two workers played"
    assert all(len(set(deals)) == len(deals) for deals in processes.values()), "no process plays a deal twice"
    assert 16 <= len(processes) <= 24, len(processes)
    assert workers_cpu_seconds() > before, "each worker reported its CPU time"
    assert live_children() == []


def test_a_race_in_worker_lanes_keeps_its_bots_across_rounds(tmp_path: Path, live_children: Any) -> None:
    """A race's rounds come from this process (the workers retire the entrants a round leaves out); the stored
    games are the in-process lanes' own, and a lane holds at most a table's worth of processes per entrant."""
    names = ["a", "b", "c", "d", "e", "zed"]
    here, params = start(tmp_path / "here", names, table_size=3, format="race", top=2, max_games=180)
    there, _ = start(tmp_path / "there", names, table_size=3, format="race", top=2, max_games=180)
    first = run_tournament(here, params, LocalExecutor(2, play=traced_play, factory=traced_factory, workers=False))  # type: ignore[arg-type]
    traced = Traced()
    executor = LocalExecutor(2, play=traced_play, factory=traced_factory, workers=True)
    outcome = run_tournament(there, params, executor, on_committed=traced)  # type: ignore[arg-type]
    assert isinstance(outcome.decided, RaceOutcome) and first.decided is not None and outcome.decided.rounds >= 3
    assert outcome.decided == first.decided
    assert stored(there) == stored(here)
    processes = traced.processes()
    assert all(len(set(deals)) == len(deals) for deals in processes.values())
    by_lane_and_entrant: dict[tuple[int, str], set[int]] = {}
    for p in traced.games:
        for name, (pid, serial) in zip(p.game.seats, p.result.procs, strict=True):
            by_lane_and_entrant.setdefault((pid, name), set()).add(serial)
    assert max(len(s) for s in by_lane_and_entrant.values()) <= 3
    assert live_children() == []


async def dying_play(players: list[FakePlayer], **kw: Any) -> Any:
    if kw["game_id"] == "g000030":
        os.kill(os.getpid(), signal.SIGKILL)  # as the out-of-memory killer would
    return await traced_play(players, **kw)


def test_a_worker_that_dies_ends_the_run_with_one_error_and_keeps_the_finished_games(
    tmp_path: Path, live_children: Any
) -> None:
    store, params = start(tmp_path, ["a", "b", "c", "zed"], table_size=4, repeats=30)
    traced = Traced()
    executor = LocalExecutor(2, play=dying_play, factory=traced_factory, workers=True)
    with pytest.raises(
        LaneError, match=r"worker process of lane \d \(pid \d+\) ended unexpectedly: killed by signal SIGKILL"
    ):
        run_tournament(store, params, executor, on_committed=traced)  # type: ignore[arg-type]
    assert live_children() == [], "the other worker is stopped and both are reaped"
    assert 20 <= store.game_count() < 120
    assert store.game_count() == len(traced.games)
    assert "g000030" not in stored(store)
    resumed = run_tournament(store, params, LocalExecutor(2, play=traced_play, factory=traced_factory))  # type: ignore[arg-type]
    assert resumed.played == 120 - len(traced.games) and store.game_count() == 120


async def failing_play(players: list[FakePlayer], **kw: Any) -> Any:
    if kw["game_id"] == "g000030":
        raise OSError(28, "No space left on device")
    return await traced_play(players, **kw)


def test_a_workers_own_error_is_raised_here_as_itself(tmp_path: Path, live_children: Any) -> None:
    """A full disk in a worker is the same ``OSError`` here (the command says it in one line), with the worker's
    traceback as a note."""
    store, params = start(tmp_path, ["a", "b", "c", "zed"], table_size=4, repeats=30)
    executor = LocalExecutor(2, play=failing_play, factory=traced_factory, workers=True)
    with pytest.raises(OSError, match="No space left on device") as caught:
        run_tournament(store, params, executor)  # type: ignore[arg-type]
    assert any("in the worker process of lane" in note for note in caught.value.__notes__)
    assert live_children() == []
    assert 20 <= store.game_count() < 120


async def interrupting_play(players: list[FakePlayer], **kw: Any) -> Any:
    if kw["game_id"] == "g000030":
        os.kill(os.getppid(), signal.SIGINT)  # a Ctrl-C to the referee (the workers ignore their own)
        os.kill(os.getpid(), signal.SIGINT)
    return await traced_play(players, **kw)


def test_sigint_stops_worker_lanes_and_stores_every_finished_game(tmp_path: Path, live_children: Any) -> None:
    store, params = start(tmp_path, ["a", "b", "c", "zed"], table_size=4, repeats=30)
    traced = Traced()
    executor = LocalExecutor(2, play=interrupting_play, factory=traced_factory, workers=True)
    outcome = run_tournament(store, params, executor, on_committed=traced)  # type: ignore[arg-type]
    assert outcome.interrupted
    assert live_children() == []
    assert 20 <= store.game_count() == outcome.played == len(traced.games) < 120
    resumed = run_tournament(store, params, LocalExecutor(2, play=traced_play, factory=traced_factory))  # type: ignore[arg-type]
    assert not resumed.interrupted and store.game_count() == 120


def test_fresh_bots_in_worker_lanes_start_a_process_for_every_seat_of_every_game(
    tmp_path: Path, live_children: Any
) -> None:
    store, params = start(tmp_path, ["a", "b", "c", "zed"], table_size=3, repeats=4)
    traced = Traced()
    executor = LocalExecutor(2, play=traced_play, factory=traced_factory, fresh=True, workers=True)
    outcome = run_tournament(store, params, executor, on_committed=traced)  # type: ignore[arg-type]
    assert outcome.played == outcome.total == 48
    processes = traced.processes()
    assert len(processes) == 3 * 48 and all(len(deals) == 1 for deals in processes.values())
    assert live_children() == []


class Boom(Exception):
    pass


def test_a_failure_here_stops_the_workers_and_raises_it(tmp_path: Path, live_children: Any) -> None:
    """Storing a game fails in this process (here a callback after the commit): the workers are stopped, every
    game stored so far stays, the failure is raised as itself."""
    store, params = start(tmp_path, ["a", "b", "c", "zed"], table_size=4, repeats=30)
    seen: list[str] = []

    def boom(played: Any) -> None:
        seen.append(played.game.game_id)
        if len(seen) == 25:
            raise Boom

    executor = LocalExecutor(2, play=traced_play, factory=traced_factory, workers=True)
    with pytest.raises(Boom):
        run_tournament(store, params, executor, on_committed=boom)  # type: ignore[arg-type]
    assert live_children() == []
    assert store.game_count() >= 25 and set(seen) <= set(stored(store))


async def stuck_play(players: list[FakePlayer], **kw: Any) -> Any:
    if kw["game_id"] == "g000030":
        os.kill(os.getppid(), signal.SIGTERM)
        time.sleep(60)  # blocks the worker's event loop: it cannot hear ``stop``
    return await traced_play(players, **kw)


def test_a_worker_that_does_not_stop_in_time_is_killed(tmp_path: Path, monkeypatch: Any, live_children: Any) -> None:
    from referee.tournament import lane_workers

    monkeypatch.setattr(lane_workers, "STOP_MARGIN", 1.0)
    store, params = start(tmp_path, ["a", "b", "c", "zed"], table_size=4, repeats=30)
    executor = LocalExecutor(2, play=stuck_play, factory=traced_factory, workers=True)
    started = time.monotonic()
    outcome = run_tournament(store, params, executor)  # type: ignore[arg-type]
    assert outcome.interrupted
    assert time.monotonic() - started < 30, "killed at its deadline, not after its minute of sleep"
    assert live_children() == []
    assert "g000030" not in stored(store)


#: Where ``timed_play`` notes when each game starts and ends (set before the workers are forked).
TIMES: list[Path] = []


async def timed_play(players: list[FakePlayer], **kw: Any) -> Any:
    """``traced_play`` that notes ``start``/``end`` (an abandoned game ends when it is cancelled), its deal and the
    monotonic clock (one clock for every process of the machine); a SIGINT to the referee at the 40th game."""
    seed = kw["seed"]
    with TIMES[0].open("a") as f:
        f.write(f"{time.monotonic_ns()} start {seed} {os.getpid()}\n")
    try:
        if kw["game_id"] == "g000040":
            os.kill(os.getppid(), signal.SIGINT)
        await trio.sleep(0.002 * (seed % 3))
        return await traced_play(players, **kw)
    finally:
        with TIMES[0].open("a") as f:
            f.write(f"{time.monotonic_ns()} end {seed} {os.getpid()}\n")


def test_two_rotations_of_a_deal_never_run_at_once_in_two_workers_even_when_stopped(
    tmp_path: Path, live_children: Any
) -> None:
    """The deal queue's rule holds across worker processes, and when a signal stops the run: a game's deal is free
    again only once its worker has stopped playing it."""
    TIMES[:] = [tmp_path / "times.txt"]
    store, params = start(tmp_path, ["a", "b", "c", "zed"], table_size=4, repeats=60)
    executor = LocalExecutor(3, play=timed_play, factory=traced_factory, workers=True)
    outcome = run_tournament(store, params, executor)  # type: ignore[arg-type]
    assert outcome.interrupted and 40 <= outcome.played < 240
    events = [line.split() for line in TIMES[0].read_text().splitlines()]
    running: dict[str, str] = {}  # deal -> the worker playing it
    for _, what, seed, pid in sorted(events, key=lambda e: int(e[0])):
        if what == "start":
            assert seed not in running, f"deal {seed} in two workers at once"
            running[seed] = pid
        else:
            assert running.pop(seed) == pid
    assert running == {} and live_children() == []
