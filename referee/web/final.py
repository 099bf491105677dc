"""The ladder's final on the site: ``/final`` (its standings with their intervals, its verdict against the ladder,
its deals, its report and its games, each with its replay) and the same under ``/api/final``.

The final is a normal tournament in its own results folder (``referee ladder final``; the ladder keeps where,
``referee.ladder.final.final_folder``). Its standings are read from that folder's results database as ``referee
standings`` reads them (recomputed only when the database changed), the ladder's rank intervals from the current
leaderboard, so the verdict is ``ladder final``'s own. The report is a self-contained page with inline scripts,
which this site's Content-Security-Policy forbids: it is offered as a download, to open from the disk.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi import Path as PathPart
from fastapi.responses import FileResponse, Response
from markupsafe import Markup
from pydantic import BaseModel, ConfigDict

from referee.ladder import NotFound
from referee.memo import Memo, Policy
from referee.report import REPLAY_MARKUP
from referee.web import views
from referee.web.access import caller

__all__ = ["FinalBody", "FinalGameBody", "FinalRowBody", "api_router", "page_router"]

Caller = Annotated[Any, Depends(caller)]
#: A game id in a path (the final's are g000001 and the like).
GameId = Annotated[str, PathPart(max_length=32)]
Start = Annotated[int, Query(ge=0, le=10**9, description="the first game shown (paging)")]
#: Games a page of the final's game list shows.
PAGE = 100

page_router = APIRouter(include_in_schema=False)
api_router = APIRouter(prefix="/api", tags=["final"])


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FinalRowBody(_Body):
    """A version in the final's order: its ``matchpoints`` over the final's deals with a 95% interval, the race's
    confidence sequence (``race_bounds``, at the race's level) and whether it was proven ahead of the next
    (``ahead_of_next``); ``ladder_rank_interval``: its joint 95% rank interval on the ladder."""

    place: int
    name: str
    games: int
    deals: int
    matchpoints: float | None
    matchpoints_ci95: list[float] | None
    race_bounds: list[float] | None
    ahead_of_next: bool | None
    ladder_rank_interval: list[int] | None


class FinalGameBody(_Body):
    """A game of the final: its seats (names), scores and ranks."""

    id: str
    ordinal: int
    names: list[str]
    scores: list[int]
    ranks: list[int]


class FinalBody(_Body):
    """The ladder's final: its format and table sizes, how it ended (``verdict``: what it proved and whether its order
    agrees with the ladder's rank intervals, as ``referee ladder final`` said it), its standings, its deal commitment,
    secret (once revealed) and results chain head, and where its report is."""

    format: str
    table_sizes: str
    games: int
    settled: bool | None
    verdict: list[str]
    rows: list[FinalRowBody]
    commitment: str | None
    secret: str | None
    chain_head: str | None
    report: str | None


@dataclass(frozen=True)
class _Read:
    """The final's results folder as last read: its database's change stamp, its standings (JSON form), its
    parameters' table sizes and its games."""

    stamp: tuple[int, ...]
    standings: dict[str, Any]
    table_sizes: str
    games: tuple[FinalGameBody, ...]


#: The final's results as last read, by folder (one ladder's: one entry; renewed when a read finds it stale).
_cache: Memo[Path, _Read] = Memo("referee.web.final.read", 4, Policy.RENEW)
_lock = threading.Lock()


def _stamp(folder: Path) -> tuple[int, ...]:
    from referee.tournament import DB_NAME

    out = []
    for name in (DB_NAME, f"{DB_NAME}-wal"):
        try:
            st = (folder / name).stat()
        except OSError:
            st = None
        out += [0, 0] if st is None else [st.st_mtime_ns, st.st_size]
    return tuple(out)


def _read(ladder: Any) -> _Read | None:
    """The final's standings and games (None: no final yet, or its folder holds no results). Raises the tournament
    store's ``StoreError`` for an unreadable one."""
    from referee.ladder.final import final_folder
    from referee.tournament import DB_NAME, ResultsStore, standings_from_store
    from referee.tournament.formats.race import TABLE_MIX

    folder = final_folder(ladder)
    if folder is None or not (folder / DB_NAME).is_file():
        return None
    stamp = _stamp(folder)
    with _lock:
        known = _cache.get(folder)
        if known is not None and known.stamp == stamp:
            return known
        with ResultsStore(folder, read_only=True) as store, store.snapshot():
            params = store.tournament()
            standings = {**standings_from_store(store).to_dict(), "deals": store.deals()}
            games = tuple(_game(g) for g in store.games())
        mix = TABLE_MIX.of(params)
        read = _Read(stamp, standings, mix or str(params.table_size), games)
        _cache.pop(folder, None)
        return _cache.keep(folder, read)


def _game(g: Any) -> FinalGameBody:
    seats = g.seats
    return FinalGameBody(
        id=g.game_id,
        ordinal=g.ordinal,
        names=[s.entrant for s in seats],
        scores=[s.score for s in seats],
        ranks=[s.rank for s in seats],
    )


def _body(read: _Read, ranks: dict[str, tuple[int, int]]) -> FinalBody:
    from referee.ladder.final import verdict_lines

    s = read.standings
    race = s.get("race") or {}
    bounds = race.get("bounds") or {}
    rows = []
    for place, e in enumerate(s.get("entrants", []), start=1):
        name = str(e["name"])
        ahead = e.get("separated_from_next")
        rank = ranks.get(name)
        rows.append(
            FinalRowBody(
                place=place, name=name, games=int(e.get("games", 0)), deals=int(e.get("deals", 0)),
                matchpoints=e.get("matchpoints"), matchpoints_ci95=e.get("matchpoints_ci95"),
                race_bounds=bounds.get(name), ahead_of_next=None if ahead is None else bool(ahead),
                ladder_rank_interval=None if rank is None else list(rank),
            )
        )  # fmt: skip
    deals = s.get("deals") or {}
    return FinalBody(
        format=str(s.get("format")), table_sizes=read.table_sizes, games=int(s.get("games", 0)),
        settled=race.get("settled") if race else None, verdict=verdict_lines(s, ranks), rows=rows,
        commitment=deals.get("commitment"), secret=deals.get("secret"), chain_head=deals.get("chain_head"),
        report="/final/report.html",
    )  # fmt: skip


async def _final(request: Request) -> tuple[FinalBody, _Read] | None:
    web = request.app.state.web
    read = await web.ladder.run_in_thread(_read)
    if read is None:
        return None
    board = await web.leaderboard()
    ranks = {r.key: (r.rank_interval[0], r.rank_interval[1]) for r in board.ranked if r.rank_interval}
    return _body(read, ranks), read


def _no_final() -> NotFound:
    return NotFound("no final has been played on this ladder yet (the organiser plays it with referee ladder final)")


@api_router.get("/final", response_model=FinalBody)
async def final_api(request: Request, who: Caller) -> FinalBody:
    """The ladder's final: its standings with their intervals, its verdict against the ladder, its deals (404 before
    a final)."""
    found = await _final(request)
    if found is None:
        raise _no_final()
    return found[0]


@api_router.get("/final/games", response_model=list[FinalGameBody])
async def final_games_api(request: Request, who: Caller, start: Start = 0) -> list[FinalGameBody]:
    """The final's games in the order played, ``PAGE`` (100) from ``start``."""
    found = await _final(request)
    if found is None:
        raise _no_final()
    return list(found[1].games[start : start + PAGE])


def _replay(ladder: Any, game_id: str) -> dict[str, Any]:
    """What the replay viewer needs for a game of the final (its stored replay). Raises ``Refused`` (no final, no
    such game, no replay kept)."""
    from referee.ladder.final import final_folder
    from referee.tournament import ResultsStore

    read = _read(ladder)
    game = None if read is None else next((g for g in read.games if g.id == game_id), None)
    if read is None or game is None:
        raise NotFound(f"the final has no game {game_id!r}")
    folder = final_folder(ladder)
    assert folder is not None
    with ResultsStore(folder, read_only=True) as store:
        text = store.replay(game_id)
    if text is None:
        raise NotFound(f"the final's game {game_id!r} has no replay (its log was not kept)")
    return views.viewer_payload(f"final {game_id}", game.names, json.loads(text))


@api_router.get("/final/games/{game_id}/replay")
async def final_replay_api(request: Request, who: Caller, game_id: GameId) -> dict[str, Any]:
    """A game of the final as the replay viewer shows it (its compact replay and the seats' names); read in the logs'
    slots, paced."""
    web = request.app.state.web
    release = web.logs.take(request.state.caller_key, "a game's replay")
    try:
        found: dict[str, Any] = await web.ladder.run_paced(_replay, game_id)
    finally:
        release()
    return found


def _render(request: Request, name: str, **values: Any) -> Response:
    from referee.web.pages import render

    return render(request, name, **values)


@page_router.get("/final")
async def final_page(request: Request, who: Caller, start: Start = 0) -> Response:
    found = await _final(request)
    if found is None:
        return _render(request, "final.html", title="Final", final=None, games=[], start=0, page=PAGE, total=0)
    body, read = found
    games = read.games[start : start + PAGE]
    return _render(
        request, "final.html", title="Final", final=body, games=games, start=start, page=PAGE, total=len(read.games)
    )


@page_router.get("/final/games/{game_id}")
async def final_game_page(request: Request, who: Caller, game_id: GameId) -> Response:
    found = await _final(request)
    game = None if found is None else next((g for g in found[1].games if g.id == game_id), None)
    if game is None:
        raise NotFound(f"the final has no game {game_id!r}")
    replay = Markup(REPLAY_MARKUP)
    return _render(request, "final_game.html", title=f"Final game {game.id}", game=game, replay_markup=replay)


@page_router.get("/final/report.html")
async def final_report(request: Request, who: Caller) -> Response:
    from referee.ladder.final import final_folder

    folder = await request.app.state.web.ladder.run(final_folder)
    report = None if folder is None else folder / "report.html"
    if report is None or not report.is_file():
        raise NotFound("the final has no report yet: it is written when the final ends")
    return FileResponse(report, media_type="text/html", filename="final-report.html")
