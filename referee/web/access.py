"""Who may do what: every route asks ``caller`` first (the token, then the rate limit), and the routes that show
or change an entrant's own things ask ``signed_in`` or ``may_see``.

An entrant sees and changes only its own things: its bots' stderr, fault details, build output and gate reports,
and its submissions. The organiser's token sees everything. Everyone, signed in or not, reads the leaderboard,
the entrants' public pages, the blocks, the games and their replays, the epochs and the export.
"""

from __future__ import annotations

from typing import Any

from fastapi import HTTPException, Request

from referee.web.auth import bearer_token, cookie_name

__all__ = ["caller", "checked", "may_see", "organiser", "signed_in"]


async def caller(request: Request) -> Any:
    """The verified principal of the request (``Authorization: Bearer`` first, else the sign-in cookie) or None.

    Raises 401 for a Bearer token that is wrong (a wrong cookie only signs the browser out: the page says so), and
    429 with ``Retry-After`` when the caller is over its rate: requests are counted per principal (an entrant or
    the organiser) or per client address when signed out, and checks of tokens not seen before per address too
    (each costs a scrypt), at a tenth of the rate.
    """
    web = request.app.state.web
    bearer = bearer_token(request.headers.get("authorization"))
    token = bearer if bearer is not None else request.cookies.get(cookie_name(web.settings.behind_proxy))
    principal = await checked(request, token) if token else None
    request.state.caller_key = _who(principal, _address(request))
    _count(web, web.rate, request.state.caller_key, web.settings.rate)
    if bearer is not None and principal is None:
        raise HTTPException(
            401, "the token is not valid: use the one `referee ladder add` printed", {"WWW-Authenticate": "Bearer"}
        )
    request.state.principal = principal
    return principal


async def checked(request: Request, token: str) -> Any:
    """The principal of ``token`` (None when it is wrong). A token not verified before costs a scrypt, so such
    checks are counted per client address, at a tenth of the rate: 429 with ``Retry-After`` past that."""
    web = request.app.state.web
    principal = web.auth.remembered(token)
    if principal is None:
        _count(web, web.checks, f"check:{_address(request)}", web.settings.rate // 10 or 1)
        principal = await web.auth.principal(token)
    return principal


def _address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _who(principal: Any, address: str) -> str:
    if principal is None:
        return f"addr:{address}"
    return "admin" if principal.admin else f"entrant:{principal.entrant_id}"


def _count(web: Any, limit: Any, key: str, per_minute: int) -> None:
    wait = limit.hit(key)
    if wait is not None:
        raise HTTPException(
            429, f"too many requests: at most {per_minute} a minute; wait {wait} s", headers={"Retry-After": str(wait)}
        )


def signed_in(principal: Any) -> Any:
    """``principal``, or 401 when there is none."""
    if principal is None:
        raise HTTPException(
            401,
            "sign in first: send Authorization: Bearer TOKEN, or sign in on /signin",
            {"WWW-Authenticate": "Bearer"},
        )
    return principal


def organiser(principal: Any, what: str) -> Any:
    """``principal`` when it is the organiser's; else 401 (signed out) or 403 saying only the organiser may ``what``."""
    signed_in(principal)
    if not principal.admin:
        raise HTTPException(403, f"only the organiser's token may {what}")
    return principal


def may_see(principal: Any, entrant: str) -> None:
    """Refuse with 401 (signed out) or 403 (another entrant) unless ``principal`` may read ``entrant``'s own things."""
    signed_in(principal)
    if not (principal.admin or principal.name == entrant):
        raise HTTPException(403, f"only {entrant} and the organiser may read {entrant}'s logs and faults")
