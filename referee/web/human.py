"""The human seat's pages: ``/play`` to choose opponents and start, ``/play/ID`` to play (and, once over, the
replay), its forms to move and to leave. Plain forms and page loads: no script is needed to play (while the bots
move, the page reloads itself each second with a ``<meta http-equiv="refresh">``, which the CSP allows).

Only the person who started a game sees it while it is played: starting it sets a cookie that holds the game's
secret (HttpOnly, SameSite=Strict, for ``/play/ID`` only), and every request of the game is checked against it.
Its log and replay (which hold every hand) are given to no one until the game is over. The forms post to this
site only (``origin.SameOrigin`` refuses a post from another origin before it gets here). The games themselves
are run by ``human_games``.
"""

from __future__ import annotations

from typing import Annotated, Any
from urllib.parse import quote

import trio
from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import RedirectResponse, Response
from markupsafe import Markup

from referee.ladder.errors import Refused, SeatRefused
from referee.report import REPLAY_MARKUP, encode_replay, read_game_log
from referee.web import views
from referee.web.access import caller
from referee.web.human_games import HumanGame, opponents
from referee.web.pages import render

router = APIRouter(include_in_schema=False)

Caller = Annotated[Any, Depends(caller)]
#: Seconds a move's post waits for the bots to come back to the person (or the game to end) before its answer.
SETTLE = 5.0
#: The cookie of a game's secret (its path: the game's own pages).
SEAT_COOKIE = "referee_seat"


def _games(request: Request) -> Any:
    return request.app.state.web.humans


def _owner(request: Request, who: Any) -> tuple[str, str]:
    """Who a game counts against (the caller's rate key: an entrant, the organiser, or a signed-out address) and
    the name shown at the table."""
    if who is None:
        return request.state.caller_key, "guest"
    return request.state.caller_key, "organiser" if who.admin else who.name


@router.get("/play")
async def play_page(request: Request, who: Caller) -> Response:
    games = _games(request)
    access = request.app.state.web.ladder
    choices = [v.key for v in await access.run(opponents)]
    mine = games.of(_owner(request, who)[0])
    finished = await access.run_in_thread(lambda _ladder: games.finished())
    return render(
        request, "human.html", title="Play", refused=games.may_play(who), choices=choices, mine=mine,
        finished=finished, sizes=[k - 1 for k in access.ladder.config.games.table_sizes], config=games.config,
        message=None,
    )  # fmt: skip


@router.post("/play")
async def start_game(
    request: Request, who: Caller, opponent: Annotated[list[str] | None, Form(max_length=200)] = None
) -> Response:
    games = _games(request)
    refused = games.may_play(who)
    if refused is not None:
        raise HTTPException(401 if who is None else 403, refused)
    chosen = [key for key in (opponent or [])[:4] if key]
    access = request.app.state.web.ladder
    by_key = {v.key: v for v in await access.run(opponents)}
    unknown = [key for key in chosen if key not in by_key]
    if unknown:
        raise Refused(f"{unknown[0][:60]!r} is not a ranked version of this ladder: choose from the list")
    owner, person = _owner(request, who)
    try:
        game = games.start(owner, person, [by_key[key] for key in chosen])
    except SeatRefused as exc:
        raise HTTPException(exc.status, str(exc), {"Retry-After": "60"} if exc.status == 503 else None) from None
    response = RedirectResponse(f"/play/{game.id}", status_code=303)
    secure = request.app.state.web.settings.behind_proxy
    response.set_cookie(
        SEAT_COOKIE, game.secret, httponly=True, samesite="strict", secure=secure, path=f"/play/{game.id}",
        max_age=86400,
    )  # fmt: skip
    return response


def _held(request: Request, game_id: str) -> HumanGame | None:
    """The live game ``game_id`` when the caller holds its secret; None when it is not played now. Raises 403 for a
    game played by someone else."""
    game: HumanGame | None = _games(request).live.get(game_id)
    if game is None:
        return None
    if not game.held_by(request.cookies.get(SEAT_COOKIE)):
        raise HTTPException(403, "this game is played by someone else now: its replay is shown here once it is over")
    return game


@router.get("/play/{game_id}")
async def game_page(request: Request, who: Caller, game_id: str, every: bool = False) -> Response:
    game = _held(request, game_id)
    if game is not None:
        return _playing(request, game, every)
    summary = await request.app.state.web.ladder.run_in_thread(lambda _ladder: _games(request).summary(game_id))
    markup = Markup(REPLAY_MARKUP)
    return render(request, "human_over.html", title=f"Game {game_id}", summary=summary, replay_markup=markup)


def _playing(request: Request, game: HumanGame, every: bool, message: str | None = None, status: int = 200) -> Response:
    seat = game.seat
    return render(
        request, "human_game.html", status, title="Your game", game=game, seat=seat, asked=seat.asked,
        moves=seat.moves(every), every=every, more=0 if every else seat.more(), happened=seat.happened(),
        message=message, bots=request.app.state.web.ladder.ladder.config.games,
    )  # fmt: skip


@router.post("/play/{game_id}/move")
async def move(
    request: Request,
    who: Caller,
    game_id: str,
    at: Annotated[int, Form(ge=0)],
    move: Annotated[str, Form(max_length=40)] = "",
    typed: Annotated[str, Form(max_length=40)] = "",
    card: Annotated[list[int] | None, Form()] = None,
) -> Response:
    game = _held(request, game_id)
    if game is None:
        return RedirectResponse(f"/play/{quote(game_id, safe='')}", status_code=303)
    problem = game.seat.answer(at, move or typed, (card or [])[:30])  # a clicked move, else the one typed
    if problem is not None:
        return _playing(request, game, False, problem, 422)
    with trio.move_on_after(SETTLE):  # the bots' replies take milliseconds: the next page is the person's turn
        while game.seat.asked is None and not game.ended.is_set():
            await game.seat.changed.wait()
    return RedirectResponse(f"/play/{quote(game_id, safe='')}", status_code=303)


@router.post("/play/{game_id}/leave")
async def leave(request: Request, who: Caller, game_id: str) -> Response:
    game = _held(request, game_id)
    if game is not None:
        game.abandon("the person left the game")
        with trio.move_on_after(SETTLE):
            await game.ended.wait()  # its bots are ended and its summary written
    return RedirectResponse(f"/play/{quote(game_id, safe='')}", status_code=303)


@router.get("/api/play/{game_id}/replay")
async def replay(request: Request, who: Caller, game_id: str) -> dict[str, Any]:
    """A finished human game as the replay viewer shows it (``views.replay``'s shape, no fault details)."""
    games = _games(request)

    def read(_ladder: Any) -> dict[str, Any]:
        summary = games.summary(game_id)
        logged = read_game_log(games.log_path(game_id))
        names = summary["names"]
        return views.viewer_payload(
            game_id, names, encode_replay(len(names), logged.ruleset, logged.steps, deal=logged.deal)
        )

    found: dict[str, Any] = await request.app.state.web.ladder.run_in_thread(read)
    return found
