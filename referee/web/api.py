"""The JSON API under ``/api``: every body a pydantic model (``models.py``), every refusal an ``ErrorBody``.

Reading the standings, entrants, blocks, games, replays, public logs, epochs and the export needs no token;
submitting, and reading a version's stderr and fault details, needs its entrant's token (or the organiser's).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Annotated, Any
from urllib.parse import quote

from fastapi import APIRouter, Depends, HTTPException, Path, Query, Request
from fastapi.responses import JSONResponse, Response, StreamingResponse

from referee.web import views
from referee.web.access import caller, may_see, signed_in
from referee.web.models import (
    BlockBody,
    EntrantBody,
    EpochBody,
    ErrorBody,
    FaultBody,
    GameBody,
    LeaderboardBody,
    LogFile,
    Me,
    NoticeBody,
    VersionBody,
)
from referee.web.reads import LOGS_SHARE, LadderAccess
from referee.web.uploads import UploadRefused, received_upload

__all__ = ["NUMBER_MAX", "Before", "Number", "activate_version", "ladder_of", "router", "submit_upload"]

Caller = Annotated[Any, Depends(caller)]
#: The largest number a block id or version number can be (SQLite's integers): a larger one is refused with 422.
NUMBER_MAX = 2**63 - 1
#: A version number or a block id in a path; ``Before`` pages the blocks.
Number = Annotated[int, Path(ge=1, le=NUMBER_MAX)]
Before = Annotated[int | None, Query(ge=1, le=NUMBER_MAX, description="only blocks with a lower id (paging)")]

ERRORS: dict[int | str, dict[str, Any]] = {
    code: {"model": ErrorBody, "description": what}
    for code, what in {
        401: "no token, or a wrong one",
        403: "another entrant's things, or a form from another site",
        404: "no such entrant, version, block or game",
        408: "a body sent too slowly",
        413: "a body over the size limit",
        422: "a parameter or a submission that does not fit (the first problem, one line)",
        429: "over the rate limit (see Retry-After)",
        503: "too many exports, logs or replays at once (see Retry-After)",
    }.items()
}

router = APIRouter(prefix="/api", responses=ERRORS)


def ladder_of(request: Request) -> LadderAccess:
    """The ladder's read and submit side of the app serving ``request``."""
    access: LadderAccess = request.app.state.web.ladder
    return access


@router.get("/me", response_model=Me, tags=["entrants"])
async def me(who: Caller) -> Me:
    """Who the token belongs to."""
    principal = signed_in(who)
    return Me(name=principal.name, admin=principal.admin)


@router.get("/me/notices", response_model=list[NoticeBody], tags=["author"])
async def my_notices(
    request: Request, who: Caller, limit: Annotated[int, Query(ge=1, le=200)] = 50
) -> list[NoticeBody]:
    """The caller's latest notices, newest first: a version that failed its gate, was suspended or started
    faulting, and a suspension by the organiser (the organiser gets everyone's)."""
    from referee.ladder.notices import notices_of, recent_notices

    principal = signed_in(who)

    def read(ladder: Any) -> list[Any]:
        store = ladder.store
        return recent_notices(store, limit) if principal.admin else notices_of(store, principal.entrant_id, limit)

    found = await ladder_of(request).run(read)
    return [NoticeBody(**{**n.to_json(), "id": n.id}) for n in found]


@router.get("/leaderboard", response_model=LeaderboardBody, tags=["standings"])
async def leaderboard(request: Request, who: Caller) -> Response:
    """The official standing (matchpoints over deals, with intervals, rank intervals and separations) and the live
    ratings, as of the last committed block."""
    web = request.app.state.web
    return Response(web.board_json(await web.leaderboard()), media_type="application/json")


async def submit_upload(request: Request, principal: Any, entrant: str | None) -> VersionBody:
    """Receive the upload in ``request`` (capped, ``uploads.py``) and submit it as a new version of ``entrant`` (the
    caller's own; the organiser names one). Raises ``UploadRefused`` or the ladder's refusals."""
    principal = signed_in(principal)
    name = entrant if principal.admin and entrant else principal.name
    if name is None:
        raise UploadRefused(400, "the organiser submits for an entrant: add ?entrant=NAME")
    if not principal.admin and entrant not in (None, principal.name):
        raise UploadRefused(403, f"a token of {principal.name} submits only versions of {principal.name}")
    access = ladder_of(request)
    web = request.app.state.web
    async with received_upload(request, web.settings) as upload, web.intakes.held(name):  # the daily cap holds
        v = await access.run_in_thread(lambda ladder: ladder.submit(name, upload.path, label=upload.filename))
    body: VersionBody = await access.run(views.version, principal, name, v.number)
    return body


@router.post(
    "/versions",
    response_model=VersionBody,
    status_code=201,
    tags=["versions"],
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {
                "multipart/form-data": {
                    "schema": {
                        "type": "object",
                        "required": ["file"],
                        "properties": {"file": {"type": "string", "format": "binary"}},
                    }
                }
            },
        }
    },
)
async def submit(
    request: Request, who: Caller, entrant: Annotated[str | None, Query(max_length=48)] = None
) -> JSONResponse:
    """Submit a new version: a bot file, or a .tar.gz/.zip with a bot.toml, as the multipart file part ``file``
    (streamed; refused with 413 past the ladder's size limit before anything is stored). The version then waits
    for its gate; follow its ``state`` at the URL in ``Location``."""
    body = await submit_upload(request, who, entrant)
    return JSONResponse(
        body.model_dump(mode="json"),
        status_code=201,
        headers={"Location": f"/api/entrants/{quote(body.entrant, safe='')}/versions/{body.version}"},
    )


@router.get("/entrants/{name}", response_model=EntrantBody, tags=["entrants"])
async def entrant(request: Request, who: Caller, name: str) -> EntrantBody:
    """An entrant and its versions (newest first) with their states and fault counts by kind."""
    body: EntrantBody = await ladder_of(request).run(views.entrant, who, name)
    return body


@router.get("/entrants/{name}/versions/{number}", response_model=VersionBody, tags=["versions"])
async def version(request: Request, who: Caller, name: str, number: Number) -> VersionBody:
    """A version's status: building, gating, placement, ranked, or failed (with the reasons, for its author)."""
    body: VersionBody = await ladder_of(request).run(views.version, who, name, number)
    return body


async def activate_version(request: Request, principal: Any, name: str, number: int) -> VersionBody:
    """Make version ``number`` of ``name`` active again (``referee.ladder.rollback``): its author, or the organiser.
    Raises 401/403 for anyone else, the ladder's refusals."""
    from referee.ladder.rollback import activate

    principal = signed_in(principal)
    if not principal.admin and principal.name != name:
        raise HTTPException(403, f"only {name} and the organiser may choose {name}'s active version")
    access = ladder_of(request)
    await access.run_in_thread(lambda ladder: activate(ladder, name, number, organiser=principal.admin))
    body: VersionBody = await access.run(views.version, principal, name, number)
    return body


@router.post("/entrants/{name}/versions/{number}/activate", response_model=VersionBody, tags=["author"])
async def activate(request: Request, who: Caller, name: str, number: Number) -> VersionBody:
    """Make an earlier version that passed its gate active again (a rollback): its author's or the organiser's
    choice. It plays again where it left off (ranked, or the rest of its placement), its blocks and rating as they
    were; the entrant's active version it replaces is retired, as a newer version retires it. 409 with the reason
    when it cannot be (it failed its gate, it was retired by the organiser or suspended for its faults, the entrant
    is suspended, submissions are closed)."""
    return await activate_version(request, who, name, number)


@router.get("/entrants/{name}/versions/{number}/faults", response_model=list[FaultBody], tags=["author"])
async def faults(request: Request, who: Caller, name: str, number: Number) -> list[FaultBody]:
    """The version's latest faults with their details and the offending lines: its author's and the organiser's
    only."""
    may_see(who, name)
    found: list[FaultBody] = await ladder_of(request).run(views.faults, name, number)
    return found


@router.get("/entrants/{name}/versions/{number}/stderr", response_model=list[LogFile], tags=["author"])
async def stderr(request: Request, who: Caller, name: str, number: Number) -> list[LogFile]:
    """The version's stderr (ranked play and its gate), each file's end: its author's and the organiser's only."""
    may_see(who, name)
    found: list[LogFile] = await ladder_of(request).run(views.stderr, name, number)
    return found


@router.get("/blocks", response_model=list[BlockBody], tags=["games"])
async def blocks(
    request: Request,
    who: Caller,
    before: Before = None,
    limit: Annotated[int, Query(ge=1, le=200)] = 50,
    entrant: Annotated[str | None, Query(max_length=48)] = None,
    version: Annotated[int | None, Query(ge=1, le=NUMBER_MAX)] = None,
) -> list[BlockBody]:
    """Blocks newest first with their results: of one entrant's versions with ``entrant``, of one version with
    ``entrant`` and ``version``."""
    if version is not None and entrant is None:
        raise HTTPException(422, "version: give entrant too (a version number names a version only with its entrant)")
    found: list[BlockBody] = await ladder_of(request).run(
        lambda ladder: views.blocks(ladder, before=before, limit=limit, name=entrant, number=version)
    )
    return found


@router.get("/blocks/{block_id}", response_model=BlockBody, tags=["games"])
async def block(request: Request, who: Caller, block_id: Number) -> BlockBody:
    """A block: its deal's seed, its epoch, each version's result on it, and its games."""
    body: BlockBody = await ladder_of(request).run(views.block, block_id)
    return body


@router.get("/games/{game_id}", response_model=GameBody, tags=["games"])
async def game(request: Request, who: Caller, game_id: str) -> GameBody:
    """A game's seats, scores, ranks and forfeits."""
    body: GameBody = await ladder_of(request).run(views.game, game_id)
    return body


@router.get("/games/{game_id}/log", tags=["games"], response_class=Response)
async def game_log(request: Request, who: Caller, game_id: str) -> Response:
    """The game's public log (JSON lines, the format of PROTOCOL.md's game logs, without the wire lines and the
    fault details): enough to replay it (``referee replay``) and re-rate it. Streamed; two logs or replays are read
    at once in all, one per caller (429 or 503 with ``Retry-After`` past that)."""
    access = ladder_of(request)
    await access.run(lambda ladder: ladder.game_log(game_id))  # 404 before anything is sent
    release = request.app.state.web.logs.take(request.state.caller_key, "a game's log")
    try:
        lines = access.stream(views.public_log, game_id, share=LOGS_SHARE)
        return _Releasing(lines, release, media_type="application/x-ndjson")
    except BaseException:
        release()
        raise


@router.get("/games/{game_id}/replay", tags=["games"])
async def game_replay(request: Request, who: Caller, game_id: str) -> dict[str, Any]:
    """The game as the replay viewer shows it: the compact replay (``referee.runner.replay``'s format), the seats'
    names, the faults (details only of the caller's own seats) and ``stderr``: what the caller's own seats' bots
    wrote on stderr, request by request (``{seat, round, step, at, text}``: ``at`` is start, deal, turn or end; a
    turn's ``step`` is the number of the round's events before its move). Read in a worker thread, in the logs'
    slots, paced (``reads.Pace``)."""
    release = request.app.state.web.logs.take(request.state.caller_key, "a game's replay")
    try:
        found: dict[str, Any] = await ladder_of(request).run_paced(views.replay, who, game_id, share=LOGS_SHARE)
    finally:
        release()
    return found


@router.get("/epochs", response_model=list[EpochBody], tags=["standings"])
async def epochs(request: Request, who: Caller) -> list[EpochBody]:
    """Every epoch, newest first: the SHA-256 commitment of its deal secret, and the secret once it closed."""
    found: list[EpochBody] = await ladder_of(request).run(views.epochs)
    return found


@router.get("/export.jsonl", tags=["standings"], response_class=StreamingResponse)
async def export(request: Request, who: Caller) -> StreamingResponse:
    """Every finished game as one JSON object a line (game, block, epoch, seed, rotation, seats with version, score,
    rank, forfeit), streamed in block order, so anyone can re-rate the ladder. One at a time per caller and two in
    all (429 or 503 with ``Retry-After`` past that)."""
    release = request.app.state.web.exports.take(request.state.caller_key, "the export")
    try:
        return _Releasing(ladder_of(request).stream(views.export_lines), release, media_type="application/x-ndjson")
    except BaseException:
        release()
        raise


class _Releasing(StreamingResponse):
    """A streamed response that gives its slot back (``slots.Slots``) when it ends, however it ends."""

    def __init__(self, content: Any, release: Callable[[], None], **kwargs: Any) -> None:
        super().__init__(content, **kwargs)
        self._release = release

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        try:
            await super().__call__(scope, receive, send)
        finally:
            self._release()
