"""Every refusal and failure as a clear status and one line, never a traceback.

The API answers ``{"error": MESSAGE, "status": CODE}`` (``models.ErrorBody``); a page answers the error page with
the same line. The ladder's own refusals (``LadderError``: an unknown name, the daily cap, a refused archive) keep
their message; a request that does not fit the API's models gets the first problem in one line; anything else is
logged on the server in one line (``contained.log_failure``) and the client gets 500 with no detail.
"""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.exceptions import HTTPException as StarletteHTTPException

from referee.engine.errors import RefereeError
from referee.web.contained import log_failure
from referee.web.uploads import UploadRefused

__all__ = ["install_error_handlers", "is_api"]

#: The status of each kind of the ladder's refusals, by class name (the ladder package is imported lazily).
LADDER_STATUS = {"IntakeError": 422, "Refused": 409, "NotFound": 404}


def is_api(request: Request) -> bool:
    """Whether the request is one of the API's (JSON answers) rather than a page's."""
    return request.url.path.startswith("/api/")


def error_response(request: Request, status: int, message: str, headers: dict[str, str] | None = None) -> Response:
    """The API's JSON error or the error page, with ``status`` and the one-line ``message``."""
    if is_api(request):
        return JSONResponse({"error": message, "status": status}, status_code=status, headers=headers)
    web = request.app.state.web
    page: Response = web.templates.TemplateResponse(
        request,
        "error.html",
        web.context(request, title=f"Error {status}", status=status, message=message),
        status_code=status,
        headers=headers,
    )
    return page


def _validation_line(exc: RequestValidationError) -> str:
    errors = exc.errors()
    if not errors:
        return "the request does not fit the API"
    first: dict[str, Any] = errors[0]
    where = ".".join(str(p) for p in first.get("loc", ()) if p != "body") or "request"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{where}: {first.get('msg', 'invalid')}{more}"


def install_error_handlers(app: FastAPI) -> None:
    """Register the handlers that turn each kind of error into ``error_response``."""

    async def http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        headers = dict(exc.headers) if exc.headers else None
        detail = exc.detail if isinstance(exc.detail, str) else "request refused"
        if exc.status_code == 404 and detail == "Not Found":
            detail = f"nothing at {request.url.path}"
        elif exc.status_code == 405:
            detail = f"{request.method} is not allowed on {request.url.path}"
        return error_response(request, exc.status_code, detail, headers)

    async def invalid(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        return error_response(request, 422, _validation_line(exc))

    async def refused_upload(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, UploadRefused)
        return error_response(request, exc.status, exc.message, {"Connection": "close"})

    async def referee_error(request: Request, exc: Exception) -> Response:
        status = LADDER_STATUS.get(type(exc).__name__, 400)
        said = getattr(exc, "public", None) or str(exc)  # NotFound's, without the organiser's command
        return error_response(request, status, said.splitlines()[0] if said else type(exc).__name__)

    async def unexpected(request: Request, exc: Exception) -> Response:
        log_failure(request.scope, exc)
        return error_response(request, 500, "the server failed on this request; the organiser has the details")

    app.add_exception_handler(StarletteHTTPException, http_error)
    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(RequestValidationError, invalid)
    app.add_exception_handler(UploadRefused, refused_upload)
    app.add_exception_handler(RefereeError, referee_error)
    app.add_exception_handler(Exception, unexpected)
