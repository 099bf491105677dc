"""Fixtures of the web tests: a ladder with real and simulated blocks, the app in-process (FastAPI's test client on
trio) and served for real (Hypercorn on a loopback port) for the slow-client and browser tests."""

from __future__ import annotations

import shutil
import threading
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import pytest
import trio
from fastapi.testclient import TestClient

from referee.ladder import Ladder
from referee.web import LadderAccess, WebSettings, create_app
from referee.web.server import serve_web
from tests.web.ladderdata import Built, build


@pytest.fixture(scope="session")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    """The shared ladder (read-only for the tests that use it)."""
    return build(tmp_path_factory.mktemp("web") / "ladder")


@pytest.fixture
def own_ladder(built: Built, tmp_path: Path) -> Built:
    """A copy of the shared ladder for a test that changes it."""
    root = tmp_path / "ladder"
    shutil.copytree(built.root, root)
    return Built(
        root, built.admin, built.tokens, built.versions, built.real_block, built.faulted_game, built.clean_game
    )


def open_client(root: Path, settings: WebSettings | None = None) -> tuple[TestClient, Ladder]:
    ladder = Ladder.open(root)
    app = create_app(LadderAccess(ladder), settings or WebSettings())
    return TestClient(app, backend="trio", raise_server_exceptions=False), ladder


@pytest.fixture
def client(built: Built) -> Iterator[TestClient]:
    """The app of the shared ladder, in-process, signed out."""
    c, ladder = open_client(built.root)
    with c:
        yield c
    ladder.close()


@pytest.fixture
def make_client() -> Iterator[Callable[..., TestClient]]:
    """``make_client(root, settings)``: an app of another ladder folder (closed at the end)."""
    opened: list[tuple[TestClient, Ladder]] = []

    def make(root: Path, settings: WebSettings | None = None) -> TestClient:
        c, ladder = open_client(root, settings)
        c.__enter__()
        opened.append((c, ladder))
        return c

    yield make
    for c, ladder in opened:
        c.__exit__(None, None, None)
        ladder.close()


def count_token_checks(client: TestClient) -> list[str]:
    """The tokens the app behind ``client`` checks from now on, in order (each check costs a scrypt)."""
    auth = client.app.state.web.auth  # type: ignore[attr-defined]
    checked: list[str] = []
    real = auth._verify

    def counting(token: str) -> Any:
        checked.append(token)
        return real(token)

    auth._verify = counting
    return checked


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class InThread:
    """An async server (``start(task_status=...)`` reports its URL) run in a thread with its own trio loop until
    ``__exit__``; what it raises is raised there."""

    def __init__(self, start: Callable[..., Any]) -> None:
        self.url = ""
        self._start = start
        self._ready = threading.Event()
        self._stop: trio.lowlevel.TrioToken | None = None
        self._cancel: trio.CancelScope | None = None
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            trio.run(self._main)
        except BaseException as exc:
            self._error = exc
            self._ready.set()

    async def _main(self) -> None:
        with trio.CancelScope() as scope:
            self._cancel = scope
            self._stop = trio.lowlevel.current_trio_token()
            async with trio.open_nursery() as nursery:
                self.url = await nursery.start(self._start)
                self._ready.set()

    def __enter__(self) -> InThread:
        self._thread.start()
        assert self._ready.wait(60), "the server did not start"
        if self._error is not None:
            raise self._error
        return self

    def __exit__(self, *exc: object) -> None:
        if self._stop is not None and self._cancel is not None:
            self._stop.run_sync_soon(self._cancel.cancel)
        self._thread.join(30)
        assert not self._thread.is_alive(), "the server did not stop"
        if self._error is not None:
            raise self._error


class LiveServer(InThread):
    """The app of a ladder folder served by Hypercorn on a loopback port, in a thread with its own trio loop."""

    def __init__(self, root: Path, settings: WebSettings) -> None:
        self.ladder = Ladder.open(root)
        self.app = create_app(LadderAccess(self.ladder), settings)
        self.settings = settings
        super().__init__(partial(serve_web, self.app, settings))

    def __exit__(self, *exc: object) -> None:
        super().__exit__()
        self.ladder.close()


@pytest.fixture
def live_server(own_ladder: Built) -> Iterator[Callable[..., LiveServer]]:
    """``live_server(**settings)``: the app of a copy of the ladder, served on 127.0.0.1 (a free port)."""
    servers: list[LiveServer] = []

    def start(**settings: Any) -> LiveServer:
        server = LiveServer(own_ladder.root, WebSettings(port=0, **settings))
        servers.append(server)
        server.__enter__()
        return server

    yield start
    for server in servers:
        server.__exit__()
