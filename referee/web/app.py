"""The ladder's web application: ``create_app`` wires the pages, the JSON API, the sign-in, the static files, the
security headers, the rate limit and the error handling around one ladder.

FastAPI (on Starlette) gives the routes, pydantic models for every JSON body and the OpenAPI document
(``/api/openapi.json``, shown at ``/api/docs``); Hypercorn serves it on trio (``server.py``).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import trio
from fastapi import FastAPI
from fastapi.staticfiles import StaticFiles

from referee import __version__
from referee.report.viewer import ASSETS as VIEWER_ASSETS
from referee.web.bodies import SmallBodies
from referee.web.errors import install_error_handlers
from referee.web.headers import SecurityHeaders
from referee.web.openapi import declare_bearer_scheme
from referee.web.origin import SameOrigin
from referee.web.reads import LadderAccess
from referee.web.settings import WebSettings
from referee.web.site import Web

__all__ = ["STATIC", "UPLOAD_PATHS", "create_app"]

STATIC = Path(__file__).with_name("static")
#: The routes that take a submission (their bodies are capped by ``uploads.py``, the rest by ``bodies.py``).
UPLOAD_PATHS = frozenset({"/api/versions", "/submit"})


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
