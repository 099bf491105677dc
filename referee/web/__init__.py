"""The ladder's HTTP side: the pages, the JSON API and the sign-in, served with the scheduler in one trio process.

``serve_ladder(ladder, listen)`` serves an open ladder in the caller's nursery (what ``referee ladder serve``
starts beside the scheduler); underneath, ``create_app(access, settings)`` builds the ASGI app, ``serve_web`` runs
it under Hypercorn's trio worker, and ``LadderAccess`` runs the app's store reads in worker threads.
"""

from typing import TYPE_CHECKING

from referee.lazy import lazy_names
from referee.web.settings import DEFAULT_LISTEN, ListenError, WebSettings, parse_listen

if TYPE_CHECKING:
    from referee.web.app import create_app
    from referee.web.reads import LadderAccess
    from referee.web.server import serve_ladder, serve_web, serve_with_web

#: Where each lazy name lives, imported on first use (PEP 562).
_WHERE: dict[str, str] = {
    "create_app": "referee.web.app",
    "LadderAccess": "referee.web.reads",
    "serve_ladder": "referee.web.server",
    "serve_web": "referee.web.server",
    "serve_with_web": "referee.web.server",
}

__getattr__, __dir__ = lazy_names(__name__, _WHERE, globals())

__all__ = sorted([*_WHERE, "DEFAULT_LISTEN", "ListenError", "WebSettings", "parse_listen"])
