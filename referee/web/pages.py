"""The pages: server-rendered HTML, readable without JavaScript; scripts only add live updates and the replay.

Every page asks ``access.caller`` first (token and rate limit). Signing in sets the token as an HttpOnly,
SameSite=Strict cookie (Secure behind TLS); a form posted from another origin, a sibling subdomain too, is
refused before it gets here (``origin.SameOrigin``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, Form, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from markupsafe import Markup

from referee.ladder import LadderError
from referee.ladder.final import final_folder
from referee.ladder.notices import notices_of
from referee.report import REPLAY_MARKUP
from referee.web import api, charts, views
from referee.web.access import caller, checked, organiser, signed_in
from referee.web.auth import cookie_name
from referee.web.errors import LADDER_STATUS
from referee.web.organiser import human_bytes, overview
from referee.web.site import Web
from referee.web.uploads import UploadRefused

if TYPE_CHECKING:
    from referee.ladder import Ladder

router = APIRouter(include_in_schema=False)

Caller = Annotated[Any, Depends(caller)]


def _web(request: Request) -> Web:
    web: Web = request.app.state.web
    return web


def render(request: Request, name: str, status: int = 200, **values: Any) -> HTMLResponse:
    web = _web(request)
    page: HTMLResponse = web.templates.TemplateResponse(
        request, name, web.context(request, **values), status_code=status
    )
    return page


@router.get("/signin")
async def signin_page(request: Request, who: Caller) -> Response:
    return render(request, "signin.html", title="Sign in", message=None)


@router.post("/signin")
async def signin(request: Request, who: Caller, token: Annotated[str, Form(max_length=200)]) -> Response:
    principal = await checked(request, token.strip())
    if principal is None:
        request.state.principal = None
        return render(
            request, "signin.html", 401, title="Sign in", message="That token is not valid: check it and try again."
        )
    response = RedirectResponse("/me", status_code=303)
    secure = _web(request).settings.behind_proxy
    response.set_cookie(
        cookie_name(secure),
        token.strip(),
        httponly=True,
        samesite="strict",
        secure=secure,
        path="/",
        max_age=30 * 86400,
    )
    return response


@router.post("/signout")
async def signout(request: Request, who: Caller) -> Response:
    response = RedirectResponse("/", status_code=303)
    secure = _web(request).settings.behind_proxy
    response.delete_cookie(cookie_name(secure), path="/", httponly=True, samesite="strict", secure=secure)
    return response


@router.get("/api/docs")
async def api_docs(request: Request, who: Caller) -> Response:
    return render(request, "docs.html", title="API")


# ---------------------------------------------------------------------------------------------- reading pages


def _access(request: Request) -> Any:
    return _web(request).ladder


@router.get("/")
async def leaderboard_page(request: Request, who: Caller) -> Response:
    web = _web(request)
    board = await web.leaderboard()
    final_played = await _access(request).run(lambda ladder: final_folder(ladder) is not None)
    return render(
        request, "leaderboard.html", title="Leaderboard", board=board, tables=web.board_tables(board),
        final_played=final_played,
    )  # fmt: skip


@router.get("/entrants/{name}")
async def entrant_page(request: Request, who: Caller, name: str) -> Response:
    access = _access(request)
    body = await access.run(views.entrant, who, name)
    chart, h2h, recent = await access.run(_entrant_extras, name, [v.version for v in body.versions])
    return render(
        request, "entrant.html", title=name, entrant=body, chart=chart, h2h=h2h, recent=recent,
        mine=_mine(who, name),
    )  # fmt: skip


def _entrant_extras(ladder: Ladder, name: str, numbers: list[int]) -> tuple[str, list[Any], list[Any]]:
    """The entrant page's rating chart (SVG), head-to-head rows and recent blocks (of the version it follows:
    ``views.followed_version``)."""
    history = {n: views.rating_history(ladder, name, n) for n in numbers}
    chart = charts.rating_chart(name, history)
    followed = views.followed_version(ladder, name)
    h2h = views.head_to_head(ladder, name, followed) if followed is not None else []
    recent = views.blocks(ladder, name=name, number=followed, limit=20) if followed is not None else []
    return chart, h2h, recent


def _mine(principal: Any, name: str) -> bool:
    return principal is not None and (principal.admin or principal.name == name)


@router.get("/entrants/{name}/versions/{number}")
async def version_page(request: Request, who: Caller, name: str, number: api.Number) -> Response:
    access = _access(request)
    body = await access.run(views.version, who, name, number)
    mine = _mine(who, name)
    faults = await access.run(views.faults, name, number, 50) if mine else []
    logs = await access.run(views.stderr, name, number) if mine else []
    return render(
        request, "version.html", title=body.key, v=body, mine=mine, faults=faults, logs=logs,
        activatable=mine and _activatable(who, body),
    )  # fmt: skip


def _activatable(principal: Any, v: Any) -> bool:
    """Whether the caller may make version ``v`` (its ``VersionBody``) active again: the page then offers it."""
    from referee.ladder import VersionState
    from referee.ladder.rollback import may_activate

    passed = None if v.gate is None else v.gate.passed
    return may_activate(VersionState(v.state), v.reason, passed, organiser=principal.admin) is None


@router.post("/entrants/{name}/versions/{number}/activate")
async def activate_form(request: Request, who: Caller, name: str, number: api.Number) -> Response:
    await api.activate_version(request, who, name, number)
    return RedirectResponse(f"/entrants/{quote(name, safe='')}/versions/{number}", status_code=303)


@router.get("/blocks")
async def blocks_page(request: Request, who: Caller, before: api.Before = None) -> Response:
    found = await _access(request).run(lambda ladder: views.blocks(ladder, before=before, limit=50))
    older = found[-1].id if len(found) == 50 else None
    return render(request, "blocks.html", title="Blocks", blocks=found, older=older)


@router.get("/blocks/{block_id}")
async def block_page(request: Request, who: Caller, block_id: api.Number) -> Response:
    body = await _access(request).run(views.block, block_id)
    return render(request, "block.html", title=f"Block {block_id}", block=body)


@router.get("/games/{game_id}")
async def game_page(request: Request, who: Caller, game_id: str) -> Response:
    body = await _access(request).run(views.game, game_id)
    return render(request, "game.html", title=f"Game {game_id}", game=body, replay_markup=Markup(REPLAY_MARKUP))


@router.get("/epochs")
async def epochs_page(request: Request, who: Caller) -> Response:
    found = await _access(request).run(views.epochs)
    return render(request, "epochs.html", title="Epochs", epochs=found)


# ---------------------------------------------------------------------------------------------- the author's pages


@router.get("/me")
async def me_page(request: Request, who: Caller) -> Response:
    if who is None:
        return RedirectResponse("/signin", status_code=303)
    if who.admin:
        return await organiser_page(request, who)
    body = await _access(request).run(views.entrant, who, who.name)
    notes = await _access(request).run(lambda ladder: notices_of(ladder.store, who.entrant_id))
    return render(request, "me.html", title="My bots", entrant=body, notices=notes)


@router.get("/submit")
async def submit_page(request: Request, who: Caller) -> Response:
    if who is None:
        return RedirectResponse("/signin", status_code=303)
    limit = _web(request).settings.max_upload
    return render(request, "submit.html", title="Submit", max_upload=limit, message=None)


@router.post("/submit")
async def submit_form(request: Request, who: Caller) -> Response:
    signed_in(who)
    try:
        body = await api.submit_upload(request, who, None)
    except UploadRefused as exc:
        limit = _web(request).settings.max_upload
        return render(request, "submit.html", exc.status, title="Submit", max_upload=limit, message=exc.message)
    except LadderError as exc:
        limit = _web(request).settings.max_upload
        status = LADDER_STATUS.get(type(exc).__name__, 400)
        return render(request, "submit.html", status, title="Submit", max_upload=limit, message=str(exc))
    return RedirectResponse(f"/entrants/{quote(body.entrant, safe='')}/versions/{body.version}", status_code=303)


# ---------------------------------------------------------------------------------------------- the organiser's page

Name = Annotated[str, Form(min_length=1, max_length=48)]


def _organiser(principal: Any) -> Any:
    """``principal`` when it is the organiser's; else 401 (signed out) or 403."""
    return organiser(principal, "open the organiser's page or act from it")


@router.get("/admin")
async def organiser_page(request: Request, who: Caller) -> Response:
    if who is None:
        return RedirectResponse("/signin", status_code=303)
    _organiser(who)
    found = await _access(request).run_in_thread(overview)
    return render(request, "admin.html", title="Organiser", o=found, size=human_bytes)


async def _act(request: Request, who: Any, act: Any) -> Response:
    """Run ``act(ladder)`` (a ``Ladder`` method the shell commands call too) for the organiser; back to the page."""
    _organiser(who)
    await _access(request).run_in_thread(act)
    return RedirectResponse("/admin", status_code=303)


@router.post("/admin/suspend")
async def suspend_form(
    request: Request, who: Caller, name: Name, reason: Annotated[str, Form(max_length=500)] = ""
) -> Response:
    return await _act(request, who, lambda ladder: ladder.suspend(name, reason.strip()))


@router.post("/admin/lift")
async def lift_form(request: Request, who: Caller, name: Name) -> Response:
    return await _act(request, who, lambda ladder: ladder.reinstate(name))


@router.post("/admin/retire")
async def retire_form(
    request: Request,
    who: Caller,
    name: Name,
    version: Annotated[int | None, Form(ge=1, le=api.NUMBER_MAX)] = None,
    sure: Annotated[str, Form(max_length=8)] = "",
) -> Response:
    if version is None and sure != "yes":
        raise HTTPException(422, f"retiring the entrant {name} is for good: tick the box beside the button")
    return await _act(request, who, lambda ladder: ladder.retire(name, version))
