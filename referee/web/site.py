"""What every route of one web app shares (``Web``): the settings, the templates, the token check, the rate limits,
the leaderboard with its rendered tables and JSON, the human seats' games, and the ladder's read and submit side.
``app.create_app`` makes one and keeps it on ``app.state.web``; the routes' modules read it from there.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from fastapi import Request
from markupsafe import Markup
from starlette.templating import Jinja2Templates

from referee import __version__
from referee.web.auth import Authenticator
from referee.web.board import Board
from referee.web.human_games import HumanGames
from referee.web.intake import OnePerKey
from referee.web.models import LeaderboardBody
from referee.web.ratelimit import RateLimit
from referee.web.reads import LadderAccess
from referee.web.settings import WebSettings
from referee.web.slots import Slots
from referee.web.templating import make_templates

__all__ = ["EXPORTS", "LOGS", "LOGS_RETRY", "Web"]

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
