"""The OpenAPI document with the API's one security scheme declared: a bearer token (the token ``referee ladder add``
or ``init`` printed). Declared once for every operation as optional (reads need no token; what needs one says so and
answers 401 or 403 without it), so that ``/api/docs`` shows an Authorize button that sends the header."""

from __future__ import annotations

from typing import Any

from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

__all__ = ["SCHEME", "declare_bearer_scheme"]

#: The scheme's name in the document.
SCHEME = "bearer"


def declare_bearer_scheme(app: FastAPI) -> None:
    """Make ``app.openapi`` write (once, then cached) the framework's document with the bearer scheme added."""

    def document() -> dict[str, Any]:
        if app.openapi_schema is None:
            schema = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
            schema.setdefault("components", {})["securitySchemes"] = {
                SCHEME: {
                    "type": "http",
                    "scheme": "bearer",
                    "description": "A token as `referee ladder add` or `init` printed it.",
                }
            }
            schema["security"] = [{SCHEME: []}, {}]  # optional: every read works without it
            app.openapi_schema = schema
        return app.openapi_schema

    app.openapi = document  # type: ignore[method-assign]
