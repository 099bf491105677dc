"""No traceback from any request: the outermost layer of the served app (``server.serve_web``).

The app answers every refusal and failure itself (``errors.py``); what still comes out of it is a client that
went away (mid-upload, mid-stream: nothing to answer, nothing to say) or a failure of the server, which the app
already answered with a 500 and which is logged here in one line naming the request, instead of the server's
(Hypercorn's) traceback of sixty lines in ``referee ladder serve``'s output for every such request. The traceback
is logged at DEBUG level only.
"""

from __future__ import annotations

import logging

from starlette.requests import ClientDisconnect
from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["Contained", "log_failure", "one_line"]

log = logging.getLogger("referee.web")
#: Set in a request's scope once its failure is logged.
_LOGGED = "referee.failure_logged"


def one_line(exc: BaseException) -> str:
    """``exc`` as ``Kind: its message's first line`` (at most 200 characters)."""
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0][:200]}" if text else type(exc).__name__


def log_failure(scope: Scope, exc: BaseException) -> None:
    """Log the failure ``exc`` of the request ``scope`` in one line (once: ``Contained`` sees it again)."""
    if not scope.get(_LOGGED):
        scope[_LOGGED] = True
        log.error("web: %s %s failed: %s", scope.get("method"), scope.get("path"), one_line(exc))
        log.debug("web: the failure's traceback", exc_info=exc)


class Contained:
    """ASGI wrapper: what the app raises for a request is logged in one line (a client's disconnect not at all),
    never passed on to the server."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    def __getattr__(self, name: str) -> object:  # the wrapped app's ``state``, ``routes`` ...
        return getattr(self.app, name)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        try:
            await self.app(scope, receive, send)
        except ClientDisconnect:
            return
        except Exception as exc:
            log_failure(scope, exc)
