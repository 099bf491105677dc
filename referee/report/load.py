"""Read a tournament folder for the report: the results database (read-only) and the game logs.

The database is opened with SQLite's ``mode=ro`` and read in one transaction, so a tournament that is still
running is seen as a consistent snapshot and is never written to. Schema: ``referee.tournament.store``.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import quote

from referee.report.errors import NoTournament, ReplayError, ReportError
from referee.report.gamelog import read_game_log
from referee.report.model import Entrant, Fault, Game, Tournament
from referee.report.replay import encode_replay
from referee.tournament.designs import planned_games
from referee.tournament.params import TournamentParams
from referee.tournament.standings import Tally, with_format
from referee.tournament.store import DB_NAME, SCHEMA_VERSION, SeatRow, deals_record


def load_tournament(
    directory: Path, *, replays: bool = True, on_game: Callable[[int], None] | None = None
) -> Tournament:
    """Everything the report shows about the tournament in ``directory``.

    With ``replays`` each game's log is re-run through the engine (``on_game`` is called with the count done).
    Raises ``ReportError`` with one line when the folder holds no tournament or its database cannot be read.
    A game whose log is missing or does not replay keeps its result and gets a note instead of a replay.
    """
    if not directory.is_dir():
        raise NoTournament(f"{directory}: no such folder")
    db_path = directory / DB_NAME
    if not db_path.is_file():
        raise NoTournament(
            f"{directory} holds no tournament ({DB_NAME} not found); run one with: referee run BOT... --out {directory}"
        )
    try:
        raw = _read_db(db_path)
    except sqlite3.Error as exc:
        raise ReportError(f"cannot read the results database {db_path}: {exc}") from None
    meta, entrant_rows, game_rows, fault_rows = raw
    version = meta.get("schema_version")
    if version is None or "params" not in meta:
        raise NoTournament(f"{directory} holds no tournament (its results database is empty)")
    if version != SCHEMA_VERSION:
        raise ReportError(f"{db_path} has schema version {version}; this referee reads version {SCHEMA_VERSION}")
    try:
        params = TournamentParams.from_json(meta["params"])
    except (ValueError, KeyError, TypeError) as exc:
        raise ReportError(f"{db_path}: the stored tournament parameters are unreadable ({exc})") from None

    entrants = tuple(
        Entrant(key, name, declared, " ".join(json.loads(argv)) if argv else "")
        for key, (name, argv, declared) in enumerate(entrant_rows)
    )
    key_of = {e.name: e.key for e in entrants}
    games: list[Game] = []
    faults: list[Fault] = []
    first_kind: dict[tuple[str, int], str] = {}
    ordinal_of: dict[str, int] = {}
    for game_id, seat, _entrant, kind, *_ in fault_rows:
        first_kind.setdefault((game_id, seat), kind)
    tally = Tally([e.name for e in entrants], {e.name: e.declared for e in entrants})
    results: dict[str, list[SeatRow]] = {}
    for done, (game_id, ordinal, batch, seed, log_path, seats) in enumerate(_group(game_rows), start=1):
        ordinal_of[game_id] = ordinal
        rows = [
            SeatRow(entrant, score, rank, first_kind.get((game_id, seat), "unknown") if forfeit else None)
            for seat, entrant, score, rank, forfeit in seats
        ]
        tally.add(rows, batch)
        results[game_id] = rows
        game = Game(
            key=ordinal,
            label=game_id,
            seats=tuple(key_of[r.entrant] for r in rows),
            scores=tuple(r.score for r in rows),
            ranks=tuple(r.rank for r in rows),
            forfeits=tuple(r.forfeit_kind is not None for r in rows),
            seed=seed,
        )
        if replays:
            game = _with_replay(directory, game, log_path)
            if on_game is not None:
                on_game(done)
        games.append(game)
    for game_id, seat, entrant, kind, rnd, turn, detail, line in fault_rows:
        if game_id in ordinal_of and entrant in key_of:
            faults.append(Fault(ordinal_of[game_id], key_of[entrant], seat, kind, detail, rnd, turn or None, line))
    with_format(tally, params, results)
    table = params.table_size
    planned = planned_games(params) if 0 < table <= len(entrants) else None
    if params.format == "race" and tally.race is not None:
        planned = tally.race["games"] if tally.race.get("settled") or "max-games" in str(tally.race["reason"]) else None
    return Tournament(
        name=directory.resolve().name,
        entrants=entrants,
        games=tuple(games),
        standings=tally.standings(),
        faults=tuple(faults),
        planned=planned,
        ruleset=dict(params.ruleset),
        deals=deals_record(meta),
    )


def _read_db(path: Path) -> tuple[dict[str, str], list[Any], list[Any], list[Any]]:
    """Every row the report needs, read in one read-only transaction (a consistent snapshot)."""
    uri = f"file:{quote(str(path.resolve()))}?mode=ro"
    db = sqlite3.connect(uri, uri=True, isolation_level=None)
    try:
        db.execute("PRAGMA busy_timeout=10000")
        db.execute("BEGIN")
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if not {"meta", "entrants", "games", "seats", "faults"} <= tables:
            return {}, [], [], []
        meta = dict(db.execute("SELECT key, value FROM meta").fetchall())
        entrants = db.execute("SELECT name, argv, declared_name FROM entrants ORDER BY position").fetchall()
        games = db.execute(
            "SELECT g.game_id, g.ordinal, g.batch, g.seed, g.log_path, s.seat, s.entrant, s.score, s.rank, s.forfeit "
            "FROM games g JOIN seats s ON s.game_id = g.game_id ORDER BY g.ordinal, s.seat"
        ).fetchall()
        faults = db.execute(
            "SELECT game_id, seat, entrant, kind, round, turn, detail, line FROM faults ORDER BY rowid"
        ).fetchall()
        db.execute("COMMIT")
    finally:
        db.close()
    return meta, entrants, games, faults


_Grouped = tuple[str, int, int, int | None, str | None, list[tuple[int, str, int, int, bool]]]


def _group(rows: list[Any]) -> list[_Grouped]:
    """Join rows (one per seat) grouped into games: (id, ordinal, batch, seed, log path, seats)."""
    out: list[_Grouped] = []
    for game_id, ordinal, batch, seed, log_path, seat, entrant, score, rank, forfeit in rows:
        if not out or out[-1][0] != game_id:
            out.append((game_id, ordinal, batch, seed, log_path, []))
        out[-1][5].append((seat, entrant, score, rank, bool(forfeit)))
    return out


def _with_replay(directory: Path, game: Game, log_path: str | None) -> Game:
    if not log_path:
        return replace(game, replay_note="no game log was kept")
    try:
        logged = read_game_log(directory / log_path)
        replay = encode_replay(len(logged.names), logged.ruleset, logged.steps, deal=logged.deal)
    except ReplayError as exc:
        return replace(game, replay_note=f"the game log does not replay: {exc}")
    if tuple(replay.get("s", ())) != game.scores:
        return replace(game, replay_note="the game log does not match the stored result")
    return replace(game, replay=replay)
