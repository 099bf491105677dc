"""The organiser's actions in the JSON API, for the organiser's token only: suspend an entrant, lift its suspension,
retire one of its versions or the entrant itself. Each goes through the ``Ladder`` method that ``referee ladder
suspend/retire`` and the organiser's page call, and answers with the entrant's or the version's body as it is after.
Anyone else gets 401 (no token) or 403; a refusal of the ladder's (already suspended, already retired) is 409.
"""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, HTTPException, Path, Request
from pydantic import BaseModel, ConfigDict, Field

from referee.web import views
from referee.web.access import organiser
from referee.web.api import ERRORS, Caller, Number, ladder_of
from referee.web.models import EntrantBody, VersionBody

__all__ = ["RetireEntrant", "Suspension", "router"]

router = APIRouter(prefix="/api", responses=ERRORS, tags=["organiser"])

#: An entrant's name in a path (the names ``referee ladder add`` accepts are shorter).
Name = Annotated[str, Path(min_length=1, max_length=48)]


class Suspension(BaseModel):
    """Why the entrant is suspended: shown to it on its pages and in its notice."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    reason: str = Field(default="", max_length=500)


class RetireEntrant(BaseModel):
    """Retiring an entrant is for good (its versions stop; its games and ratings stay): ``for_good`` must say so."""

    model_config = ConfigDict(frozen=True, extra="forbid")
    for_good: bool = False


async def _entrant_after(request: Request, who: Any, name: str, act: Any) -> EntrantBody:
    access = ladder_of(request)
    await access.run_in_thread(act)
    body: EntrantBody = await access.run(views.entrant, who, name)
    return body


@router.post("/entrants/{name}/suspend", response_model=EntrantBody)
async def suspend(request: Request, who: Caller, name: Name, body: Suspension) -> EntrantBody:
    """Stop every version of the entrant from playing until its suspension is lifted (409 if it is already)."""
    organiser(who, "suspend an entrant")
    return await _entrant_after(request, who, name, lambda ladder: ladder.suspend(name, body.reason.strip()))


@router.post("/entrants/{name}/lift", response_model=EntrantBody)
async def lift(request: Request, who: Caller, name: Name) -> EntrantBody:
    """Let a suspended entrant play again; a version suspended for its faults starts its placement again while the
    entrant has fewer than ``active_versions`` active (else it is retired, replaced by the active one)."""
    organiser(who, "lift a suspension")
    return await _entrant_after(request, who, name, lambda ladder: ladder.reinstate(name))


@router.post("/entrants/{name}/retire", response_model=EntrantBody)
async def retire_entrant(request: Request, who: Caller, name: Name, body: RetireEntrant) -> EntrantBody:
    """Retire the entrant and every version of it, for good (send ``{"for_good": true}``)."""
    organiser(who, "retire an entrant")
    if not body.for_good:
        raise HTTPException(422, f'retiring the entrant {name} is for good: send {{"for_good": true}} to do it')
    return await _entrant_after(request, who, name, lambda ladder: ladder.retire(name))


@router.post("/entrants/{name}/versions/{number}/retire", response_model=VersionBody)
async def retire_version(request: Request, who: Caller, name: Name, number: Number) -> VersionBody:
    """Retire one version: it plays no block after (one it is playing ends and counts); only the organiser brings
    it back (``activate``)."""
    organiser(who, "retire a version")
    access = ladder_of(request)
    await access.run_in_thread(lambda ladder: ladder.retire(name, number))
    body: VersionBody = await access.run(views.version, who, name, number)
    return body
