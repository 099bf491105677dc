"""The ladder's web application: ``create_app`` wires the pages, the JSON API, the sign-in, the static files, the
security headers, the rate limit and the error handling around one ladder.

FastAPI (on Starlette) gives the routes, pydantic models for every JSON body and the OpenAPI document
(``/api/openapi.json``, shown at ``/api/docs``); Hypercorn serves it on trio (``server.py``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio
from fastapi import FastAPI, Request
from fastapi.staticfiles import StaticFiles
from markupsafe import Markup
from starlette.templating import Jinja2Templates

from referee import __version__
from referee.report.viewer import ASSETS as VIEWER_ASSETS
from referee.web.auth import Authenticator
from referee.web.board import Board
from referee.web.bodies import SmallBodies
from referee.web.errors import install_error_handlers
from referee.web.headers import SecurityHeaders
from referee.web.human_games import HumanGames
from referee.web.intake import OnePerKey
from referee.web.models import LeaderboardBody
from referee.web.openapi import declare_bearer_scheme
from referee.web.origin import SameOrigin
from referee.web.ratelimit import RateLimit
from referee.web.reads import LadderAccess
from referee.web.settings import WebSettings
from referee.web.slots import Slots
from referee.web.templating import make_templates

__all__ = ["EXPORTS", "LOGS", "STATIC", "UPLOAD_PATHS", "Web", "create_app"]

STATIC = Path(__file__).with_name("static")
#: The routes that take a submission (their bodies are capped by ``uploads.py``, the rest by ``bodies.py``).
UPLOAD_PATHS = frozenset({"/api/versions", "/submit"})
#: Exports streamed at once (each reads every stored game), one per caller.
EXPORTS = 2
#: Game logs and replays read at once (a flooding bot's log is hundreds of megabytes), one per caller; a refused
#: one is told to come back after ``LOGS_RETRY`` seconds. Each uses at most ``reads.LOGS_SHARE`` of a core.
LOGS, LOGS_RETRY = 2, 5


@dataclass
class Web:
    """What every route of one app shares: the settings, the templates, the token check, the rate limits, the
    leaderboard and ``ladder``, the ladder's read and submit side (``reads.LadderAccess``)."""

    settings: WebSettings
    ladder: LadderAccess
    templates: Jinja2Templates = field(default_factory=make_templates)
    auth: Authenticator[Any] = field(init=False)
    rate: RateLimit = field(init=False)
    checks: RateLimit = field(init=False)
    board: Board = field(init=False)
    exports: Slots = field(default_factory=lambda: Slots(EXPORTS, 1))
    logs: Slots = field(default_factory=lambda: Slots(LOGS, 1, LOGS_RETRY))
    intakes: OnePerKey = field(default_factory=OnePerKey)
    humans: HumanGames = field(init=False)  # the human seats' games (human_games.py)
    _tables: tuple[LeaderboardBody, dict[str, Markup]] | None = field(init=False, default=None)
    _json: tuple[LeaderboardBody, bytes] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.auth = Authenticator(self.ladder.remembered, self.ladder.authenticate)
        self.rate = RateLimit(self.settings.rate)
        self.checks = RateLimit(max(1, self.settings.rate // 10))
        self.board = Board(self.ladder, self.settings.poll_seconds)
        self.humans = HumanGames(self.ladder.ladder)

    async def leaderboard(self) -> LeaderboardBody:
        """The latest computed leaderboard (``board.py``)."""
        return await self.board.latest()

    def board_json(self, board: LeaderboardBody) -> bytes:
        """``board`` as the API's JSON, serialized once per computed leaderboard (every open page polls it)."""
        if self._json is None or self._json[0] is not board:
            self._json = (board, board.model_dump_json().encode())
        return self._json[1]

    def board_tables(self, board: LeaderboardBody) -> dict[str, Markup]:
        """The leaderboard page's two tables for ``board``, rendered once per computed leaderboard (they are the same
        for every reader; the page around them is not)."""
        if self._tables is None or self._tables[0] is not board:
            module = self.templates.env.get_template("_board.html").module
            tables = {"ranked": Markup(module.ranked_table(board)), "placement": Markup(module.placement_table(board))}  # type: ignore[attr-defined]
            self._tables = (board, tables)
        return self._tables[1]

    def context(self, request: Request, **values: Any) -> dict[str, Any]:
        """A template's values: ``values`` plus the caller, the site's title and the live-update period."""
        return {
            "principal": getattr(request.state, "principal", None),
            "site": self.settings.title,
            "poll_ms": int(self.settings.poll_seconds * 1000),
            "version": __version__,
            **values,
        }


def _swagger_assets() -> Path:
    """The Swagger UI files fastapi-offline ships (served from this site: no CDN, no inline script)."""
    import fastapi_offline

    return Path(fastapi_offline.__file__).with_name("static")


def create_app(ladder: LadderAccess, settings: WebSettings | None = None) -> FastAPI:
    """The web app of ``ladder`` with ``settings`` (defaults: ``WebSettings()``). While it runs (its lifespan), a
    task keeps the leaderboard current."""
    from referee.web import api, api_organiser, final, human, pages

    settings = settings or WebSettings()
    web = Web(settings, ladder)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(web.board.run)
            await nursery.start(web.humans.run)
            yield
            nursery.cancel_scope.cancel()

    app = FastAPI(
        title=f"{settings.title} API",
        version=__version__,
        description="The ladder's JSON API: submit versions, follow their status, read the standings, games and "
        "logs. Authenticate with `Authorization: Bearer TOKEN` (the token `referee ladder add` printed).",
        docs_url=None,
        redoc_url=None,
        openapi_url="/api/openapi.json",
        lifespan=lifespan,
    )
    app.state.web = web
    declare_bearer_scheme(app)
    install_error_handlers(app)
    app.include_router(api.router)
    app.include_router(api_organiser.router)
    app.include_router(pages.router)
    app.include_router(human.router)
    app.include_router(final.api_router)
    app.include_router(final.page_router)
    app.mount("/static/viewer", StaticFiles(directory=VIEWER_ASSETS), name="viewer")
    app.mount("/static/swagger", StaticFiles(directory=_swagger_assets()), name="swagger")
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.add_middleware(SameOrigin)
    app.add_middleware(
        SmallBodies, upload_paths=UPLOAD_PATHS, idle=settings.upload_idle, total=settings.upload_total,
        rate=settings.upload_rate,
    )  # fmt: skip
    app.add_middleware(SecurityHeaders)
    return app
