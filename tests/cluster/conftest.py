"""Helpers for cluster tests: copies of a deterministic bot, tournaments run in-process or through ``referee``."""

from __future__ import annotations

import json
import shutil
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from referee.runner import parse_bot_spec
from referee.tournament import (
    DaskExecutor,
    DealSecret,
    EntrantInfo,
    LocalExecutor,
    PlayedGame,
    Requested,
    ResultsStore,
    TournamentParams,
    resolve_params,
    run_tournament,
    standings_from_store,
)

pytest.importorskip("distributed")

BOT = Path(__file__).resolve().parents[1] / "bots" / "steady_bot.py"
NAMES = ("alpha", "beta", "gamma", "delta")
#: One deal secret for every run here, so that a local and a cluster run of the same tournament deal alike.
SECRET = DealSecret(bytes(range(32)))


@pytest.fixture(scope="session", autouse=True)
def dask_default_ports_taken() -> Iterator[None]:
    """Hold Dask's default ports (8786, 8787) while these tests run, as another cluster on the machine may: a run
    must neither need them nor warn that they are taken. A port already held elsewhere is left to its holder."""
    held = []
    for port in (8786, 8787):
        sock = socket.socket()
        try:
            sock.bind(("127.0.0.1", port))
            sock.listen()
            held.append(sock)
        except OSError:
            sock.close()
    yield
    for sock in held:
        sock.close()


@pytest.fixture
def bot_dir(tmp_path: Path) -> Path:
    """A folder with copies of the steady bot named alpha.py … delta.py."""
    folder = tmp_path / "bots"
    folder.mkdir()
    for name in NAMES:
        shutil.copy(BOT, folder / f"{name}.py")
    return folder


def entrants(bot_dir: Path, env: dict[str, dict[str, str]] | None = None) -> tuple[EntrantInfo, ...]:
    out = []
    for name in NAMES:
        info = EntrantInfo.from_spec(parse_bot_spec(str(bot_dir / f"{name}.py")))
        out.append(EntrantInfo(info.name, info.argv, info.cwd, dict((env or {}).get(name, {}))))
    return tuple(out)


def make_params(bot_dir: Path, *, repeats: int = 1, env: dict[str, dict[str, str]] | None = None) -> TournamentParams:
    requested = Requested(
        entrants(bot_dir, env), table_size=3, repeats=repeats, seed=99, move_time=5.0, startup_time=20.0, sandbox="none"
    )
    return resolve_params(None, requested)


def play(
    directory: Path,
    params: TournamentParams,
    *,
    cluster: str | None = None,
    on_committed: Callable[[PlayedGame], None] | None = None,
) -> dict[str, Any]:
    """Run (or continue) the tournament in ``directory``; returns its standings as in standings.json."""
    with ResultsStore(directory) as store:
        if store.params() is None:
            store.initialise(params, SECRET)
        executor = LocalExecutor(2) if cluster is None else DaskExecutor(cluster)
        run_tournament(store, params, executor, on_committed=on_committed)
        return standings_from_store(store).to_dict()


def stored_games(directory: Path) -> list[tuple[str, tuple[tuple[str, int, int, bool], ...]]]:
    """Every stored game id with its seats (entrant, score, rank, forfeited), in schedule order."""
    with ResultsStore(directory, create=False) as store:
        return [
            (g.game_id, tuple((s.entrant, s.score, s.rank, s.forfeit_kind is not None) for s in g.seats))
            for g in store.games()
        ]


def referee(*args: object, env: dict[str, str] | None = None, timeout: float = 180) -> subprocess.CompletedProcess[str]:
    """Run ``python -m referee ARGS`` to the end; text output."""
    return subprocess.run(
        [sys.executable, "-m", "referee", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def assert_same_standings(folder: Path, expected: Path) -> None:
    """``folder``'s standings.csv and standings.json are ``expected``'s, but for the results chain's head, which
    hashes the game logs (their timings too) in storage order: each run has its own, and both have one."""
    assert (folder / "standings.csv").read_text() == (expected / "standings.csv").read_text()
    got, want = (json.loads((f / "standings.json").read_text()) for f in (folder, expected))
    assert got["deals"].pop("chain_head") is not None and want["deals"].pop("chain_head") is not None
    assert got == want
