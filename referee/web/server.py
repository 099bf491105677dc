"""Serving the app: Hypercorn's trio worker, in the caller's nursery, beside the ladder's scheduler and lanes.

``await nursery.start(serve_web, app, settings)`` listens on ``settings.host:port`` and returns the URL it
listens on once it accepts connections (port 0: the port the system chose); cancelling the nursery stops it
(open connections get ``graceful_timeout`` seconds). No HTTP is parsed here: Hypercorn does it (h11, h2).
"""

from __future__ import annotations

import contextlib
import logging
import threading
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Any

import trio
from hypercorn.config import Config
from hypercorn.middleware import ProxyFixMiddleware
from hypercorn.trio import serve

from referee.web.contained import Contained
from referee.web.settings import DEFAULT_LISTEN, ListenError, WebSettings, parse_listen

if TYPE_CHECKING:
    from referee.ladder import Ladder

__all__ = ["WebThread", "hypercorn_config", "serve_ladder", "serve_web", "serve_with_web"]


def hypercorn_config(settings: WebSettings) -> Config:
    """Hypercorn's settings for the ladder: one bind, bounded headers and keep-alive, no access log on stdout."""
    config = Config()
    host = f"[{settings.host}]" if ":" in settings.host else settings.host
    config.bind = [f"{host}:{settings.port}"]
    config.accesslog = None
    config.errorlog = logging.getLogger("referee.web.server")
    config.keep_alive_timeout = 20
    config.graceful_timeout = 3
    config.h11_max_incomplete_size = 16 * 1024  # a request line and its headers, at most
    config.include_server_header = False
    return config


async def serve_web(app: Any, settings: WebSettings, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
    """Serve ``app`` until cancelled (no request's failure reaches the server: ``contained.Contained``);
    ``task_status.started(URL)`` once it listens. ``settings.behind_proxy``: the
    client's address and scheme come from the proxy's ``X-Forwarded-For`` and ``X-Forwarded-Proto`` (one hop).
    Raises ``ListenError`` when the address cannot be listened on."""
    config = hypercorn_config(settings)
    app = Contained(app)
    if settings.behind_proxy:
        app = ProxyFixMiddleware(app, mode="legacy", trusted_hops=1)

    listening = False

    class _Started:
        @staticmethod
        def started(binds: list[str] | None = None) -> None:
            nonlocal listening
            listening = True
            task_status.started(binds[0] if binds else f"http://{config.bind[0]}")

    try:
        await serve(app, config, task_status=_Started(), mode="asgi")
    except (OSError, BaseExceptionGroup) as exc:  # Hypercorn binds inside its nursery: the error may come grouped
        error = _alone(exc) if isinstance(exc, BaseExceptionGroup) else exc
        if listening or not isinstance(error, OSError):
            raise
        raise ListenError(f"cannot listen on {config.bind[0]}: {error.strerror or error}") from None


async def serve_ladder(
    ladder: Ladder,
    listen: str = DEFAULT_LISTEN,
    *,
    settings: WebSettings | None = None,
    inline: bool = False,
    task_status: Any = trio.TASK_STATUS_IGNORED,
) -> None:
    """Serve the pages and API of ``ladder`` (an open ``referee.ladder.Ladder``) on ``listen`` (``HOST:PORT``) until
    cancelled: what ``referee ladder serve`` starts in its nursery beside the scheduler. Uploads are capped at the
    ladder's ``submissions.max_bytes``. ``inline``: the pages' store reads run on this loop (it is the web's own:
    ``WebThread``). ``task_status.started(URL)`` once it listens. Raises ``ListenError`` for a bad
    ``listen`` or one that cannot be listened on."""
    from referee.web.app import create_app
    from referee.web.reads import LadderAccess

    host, port = parse_listen(listen)
    base = settings or WebSettings()
    settings = replace(base, host=host, port=port, max_upload=int(ladder.config.submissions.max_bytes))
    await serve_web(create_app(LadderAccess(ladder, inline=inline), settings), settings, task_status=task_status)


async def serve_with_web(
    directory: Any,
    options: Any = None,
    listen: str = DEFAULT_LISTEN,
    *,
    settings: WebSettings | None = None,
    task_status: Any = trio.TASK_STATUS_IGNORED,
) -> None:
    """``referee ladder serve``: the ladder's ``serve`` (scheduler, gate, lanes) and its web server in one process,
    until cancelled. The scheduler starts first, so a second ``serve`` of the folder is refused (``FolderBusy``)
    before it takes the port; ``task_status.started(URL)`` once both run. The web server runs on a trio loop of its
    own in a thread of this process (``WebThread``): the scheduler does its store work on its loop between games,
    and a page must not wait for that. Raises what ``serve`` and ``serve_ladder`` raise."""
    from referee.ladder import Ladder
    from referee.ladder.serve import serve

    try:
        async with trio.open_nursery() as nursery:
            await nursery.start(serve, directory, options)
            ladder = Ladder.open(directory)
            try:
                web = WebThread(partial(serve_ladder, ladder, listen, settings=settings, inline=True))
                url = await nursery.start(web.run)
                task_status.started(url)
                await trio.sleep_forever()
            finally:
                nursery.cancel_scope.cancel()
                ladder.close()
    except BaseExceptionGroup as group:
        raise _alone(group) from None


class WebThread:
    """An async server (``start(task_status=...)``, reporting its URL) on a trio loop of its own in a thread of this
    process. ``run`` (for ``nursery.start``) returns its URL once it listens and stops it when cancelled; what the
    server raises is raised by ``run``."""

    def __init__(self, start: Any) -> None:
        self._start = start
        self._ready = threading.Event()
        self._url = ""
        self._error: BaseException | None = None
        self._token: trio.lowlevel.TrioToken | None = None
        self._scope: trio.CancelScope | None = None
        self._thread = threading.Thread(target=self._main, name="referee-web", daemon=True)

    def _main(self) -> None:
        async def loop() -> None:
            with trio.CancelScope() as scope:
                self._token, self._scope = trio.lowlevel.current_trio_token(), scope
                async with trio.open_nursery() as nursery:
                    self._url = await nursery.start(self._start)
                    self._ready.set()

        try:
            trio.run(loop)
        except BaseException as exc:
            self._error = _alone(exc) if isinstance(exc, BaseExceptionGroup) else exc
        finally:
            self._ready.set()

    def _stop(self) -> None:
        if self._token is not None and self._scope is not None:
            with contextlib.suppress(trio.RunFinishedError):
                self._token.run_sync_soon(self._scope.cancel)

    async def run(self, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        self._thread.start()
        try:
            await trio.to_thread.run_sync(self._ready.wait, abandon_on_cancel=True)
            if self._error is not None:
                raise self._error
            task_status.started(self._url)
            await trio.to_thread.run_sync(self._thread.join, abandon_on_cancel=True)
            if self._error is not None:
                raise self._error
        finally:
            self._stop()
            with trio.CancelScope(shield=True):
                await trio.to_thread.run_sync(self._thread.join)


def _alone(group: BaseExceptionGroup[Any]) -> BaseException:
    """The one error inside ``group`` (nested groups of one opened), or the group itself when it holds several."""
    while len(group.exceptions) == 1:
        inner: BaseException = group.exceptions[0]
        if not isinstance(inner, BaseExceptionGroup):
            return inner
        group = inner
    return group
