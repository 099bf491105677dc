"""The results store: one SQLite database per tournament, ``DIR/results.sqlite``.

Written by the local executor (and by any other executor, e.g. a Dask one, through ``ResultsStore``); read by
``referee standings`` and the report generator. Each finished game is committed in one transaction with its
seats and faults, so the database only ever holds whole games; journal mode WAL, so a crashed or killed
referee leaves it intact, and a resume skips exactly the games present in ``games``.

Schema (version 1)::

    meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)
        schema_version  "1"
        params          JSON of TournamentParams: {"entrants": [{"name", "argv", "cwd", "env"}...],
                        "table_size", "repeats", "seed", "ruleset": {...}, "move_time", "startup_time",
                        "time_bank", "sandbox"}
        created_at      ISO 8601 UTC time the tournament was created
        deal_scheme     how deal seeds come from the secret ("hmac-sha256/v1", see referee.contest.deal_secret)
        deal_commitment SHA-256 of the deal secret, hex: published before the first game
        deal_secret     the deal secret, hex (the results folder is hidden from bots; revealed when it ends)
        revealed_at     ISO 8601 UTC time the last game finished and the secret was revealed (absent before)
        chain_scheme    how the games are chained ("sha256/v1", see referee.contest.chain)
        deal_secret_given  "1" when the secret came from --deal-secret (chosen, or revealed, before), not drawn
        chain_head      the last link of the chain, stored (and printed) with the revealed secret
        compare         (a ``referee compare`` folder only) JSON of its test's settings
    entrants(name TEXT PRIMARY KEY,          -- unique tournament name (file stem or manifest name, deduplicated)
             position INTEGER UNIQUE,        -- 0-based order given on the command line / in the manifest
             argv TEXT,                      -- JSON list: the command
             cwd TEXT, env TEXT,             -- working directory (or NULL); JSON object of extra environment
             declared_name TEXT,             -- the name the bot gave in its hello (NULL until it said hello)
             declared_version TEXT)
    games(game_id TEXT PRIMARY KEY,          -- "g000001"...: stable ids from the schedule
          ordinal INTEGER UNIQUE NOT NULL,   -- schedule order; ORDER BY ordinal replays games in schedule order
          batch INTEGER NOT NULL,            -- table batch (all rotations of one table on one deal)
          repeat INTEGER NOT NULL, rotation INTEGER NOT NULL,
          players INTEGER NOT NULL, seed INTEGER NOT NULL,   -- the deal seed (same for a batch's rotations)
          log_path TEXT,                     -- relative to DIR (games/<game_id>.jsonl) or NULL
          duration REAL NOT NULL,            -- seconds of wall time
          finished_at TEXT NOT NULL)         -- ISO 8601 UTC
    seats(game_id TEXT REFERENCES games, seat INTEGER,   -- PRIMARY KEY (game_id, seat)
          entrant TEXT REFERENCES entrants,
          score INTEGER NOT NULL, rank INTEGER NOT NULL, -- final score (lower is better); shared rank, 1 = winner
          forfeit INTEGER NOT NULL)                      -- 1 when the seat forfeited the game
    faults(game_id TEXT REFERENCES games, seat INTEGER, entrant TEXT REFERENCES entrants,
           kind TEXT NOT NULL,               -- one of referee.runner.FAULT_KINDS ("timeout", "crash", "startup",
                                             -- "illegal_move", "invalid_json", ...)
           round INTEGER, turn INTEGER,      -- round 1-based (0: before the first deal); turn 1-based within
                                             -- the round (0: outside a turn, e.g. a discard or start-up)
           detail TEXT NOT NULL, line TEXT)  -- the explanation, and the offending line when there was one
    replays(game_id TEXT PRIMARY KEY REFERENCES games,
            replay TEXT NOT NULL)            -- the game's compact replay for the report (referee.runner.replay),
                                             -- JSON, recorded as the game was played; committed with its game

    chain(position INTEGER PRIMARY KEY,      -- 1, 2, ...: the order the games were stored in
          game_id TEXT UNIQUE NOT NULL,      -- the game (its rows may be gone: the audit says so)
          record TEXT NOT NULL,              -- SHA-256 of the game's rows as stored (``game_record``), hex
          log TEXT NOT NULL,                 -- SHA-256 of its game log's bytes, hex ("-": no log)
          link TEXT NOT NULL)                -- SHA-256 of the previous link, record and log (referee.contest.chain)

``replays`` came after version 1 without changing it: an older referee ignores the table, and a database without
it (or a game without a row, stored by an older referee) has its replays re-run from the game logs by the report.
So did ``chain`` (with the meta keys ``chain_scheme``, and ``chain_head`` once revealed): a tournament begun by an
older referee has none, and ``referee audit`` says so.

Opening, transactions, snapshots and error wrapping are ``referee.contest.database``'s; ``SCHEMA`` declares the
migrations (one so far: every table), applied when the database is opened to write, counted in ``user_version``.
"""

from __future__ import annotations

import contextlib
import json
import os
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol

from referee.contest.chain import (
    CHAIN_SCHEME,
    NO_LOG,
    ChainAudit,
    ChainEntry,
    audit,
    canonical,
    digest,
    genesis,
    link,
)
from referee.contest.database import Database, Migration, Schema, create_tables
from referee.contest.deal_secret import DEAL_SCHEME, DealSecret
from referee.contest.errors import DealSecretError
from referee.contest.schedule import ScheduledGame
from referee.runner.layout import DB_NAME
from referee.tournament.errors import EmptyStore, StoreError
from referee.tournament.params import TournamentParams

__all__ = [
    "DB_NAME",
    "SCHEMA_VERSION",
    "FaultLike",
    "GameResultLike",
    "ResultsStore",
    "SeatRow",
    "StoredEntrant",
    "StoredFault",
    "StoredGame",
    "deals_record",
    "game_record",
    "log_digest",
    "record_digest",
    "seat_rows",
]

SCHEMA_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entrants(
    name TEXT PRIMARY KEY, position INTEGER UNIQUE NOT NULL, argv TEXT NOT NULL, cwd TEXT, env TEXT NOT NULL,
    declared_name TEXT, declared_version TEXT);
CREATE TABLE IF NOT EXISTS games(
    game_id TEXT PRIMARY KEY, ordinal INTEGER UNIQUE NOT NULL, batch INTEGER NOT NULL, repeat INTEGER NOT NULL,
    rotation INTEGER NOT NULL, players INTEGER NOT NULL, seed INTEGER NOT NULL, log_path TEXT,
    duration REAL NOT NULL, finished_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS seats(
    game_id TEXT NOT NULL REFERENCES games(game_id), seat INTEGER NOT NULL,
    entrant TEXT NOT NULL REFERENCES entrants(name), score INTEGER NOT NULL, rank INTEGER NOT NULL,
    forfeit INTEGER NOT NULL, PRIMARY KEY (game_id, seat));
CREATE TABLE IF NOT EXISTS faults(
    game_id TEXT NOT NULL REFERENCES games(game_id), seat INTEGER NOT NULL,
    entrant TEXT NOT NULL REFERENCES entrants(name), kind TEXT NOT NULL, round INTEGER, turn INTEGER,
    detail TEXT NOT NULL, line TEXT);
CREATE INDEX IF NOT EXISTS faults_by_game ON faults(game_id);
CREATE TABLE IF NOT EXISTS replays(game_id TEXT PRIMARY KEY REFERENCES games(game_id), replay TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS chain(
    position INTEGER PRIMARY KEY, game_id TEXT UNIQUE NOT NULL, record TEXT NOT NULL, log TEXT NOT NULL,
    link TEXT NOT NULL);
"""

#: The schema's history (``Database.migrate``): one step so far, every table (``replays`` and ``chain`` came after
#: the first tournaments, which get them when opened to write).
SCHEMA = Schema(SCHEMA_VERSION, (Migration("tables", create_tables(_SCHEMA)),))


class FaultLike(Protocol):
    """What the store needs of a fault (the runner's ``Fault`` has these fields)."""

    @property
    def seat(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def round(self) -> int | None: ...
    @property
    def turn(self) -> int | None: ...
    @property
    def detail(self) -> str: ...
    @property
    def line(self) -> str | None: ...


class GameResultLike(Protocol):
    """What the store needs of a finished game (the runner's ``GameResult`` has these fields); ``replay`` is its
    compact replay for the report, or None (a game the report replays from its log)."""

    @property
    def scores(self) -> Sequence[int]: ...
    @property
    def ranks(self) -> Sequence[int]: ...
    @property
    def forfeits(self) -> Sequence[int]: ...
    @property
    def faults(self) -> Sequence[FaultLike]: ...
    @property
    def log_path(self) -> Any: ...
    @property
    def replay(self) -> Mapping[str, Any] | None: ...


@dataclass(frozen=True, slots=True)
class SeatRow:
    """One seat of a stored game; ``forfeit_kind`` is the kind of the fault that forfeited it, or None."""

    entrant: str
    score: int
    rank: int
    forfeit_kind: str | None


@dataclass(frozen=True, slots=True)
class StoredGame:
    game_id: str
    ordinal: int
    seats: tuple[SeatRow, ...]
    batch: int | None = None  # the table batch (one deal at one table, every rotation)
    seed: int | None = None  # the deal seed
    log_path: str | None = None  # the game log, relative to the results folder (None: none kept)


@dataclass(frozen=True, slots=True)
class StoredEntrant:
    """An entrant as stored: its tournament ``name``, its command, and the name its bot declared in hello."""

    name: str
    argv: tuple[str, ...]
    declared: str | None


@dataclass(frozen=True, slots=True)
class StoredFault:
    """A recorded fault of ``entrant`` in seat ``seat`` of game ``game_id`` (the columns of ``faults``)."""

    game_id: str
    seat: int
    entrant: str
    kind: str
    round: int | None
    turn: int | None
    detail: str
    line: str | None


def seat_rows(seats: Sequence[str], result: GameResultLike) -> tuple[SeatRow, ...]:
    """A finished game's seats as stored: ``seats[i]`` is the entrant in seat i; a forfeit's kind is the kind of
    the seat's first fault (``"unknown"`` if the runner recorded none)."""
    kinds: dict[int, str] = {}
    for f in result.faults:
        kinds.setdefault(f.seat, f.kind)
    forfeited = set(result.forfeits)
    return tuple(
        SeatRow(name, int(result.scores[i]), int(result.ranks[i]), kinds.get(i, "unknown") if i in forfeited else None)
        for i, name in enumerate(seats)
    )


def deals_record(meta: Mapping[str, str]) -> dict[str, str | None]:
    """The deals entry of standings.json from the ``meta`` table (see ``ResultsStore.deals``), with the head of the
    results' hash chain once revealed (``chain_head``: ``referee audit --head`` checks the results against it)."""
    revealed = meta.get("revealed_at")
    return {
        "scheme": meta.get("deal_scheme"),
        "commitment": meta.get("deal_commitment"),
        "secret": meta.get("deal_secret") if revealed else None,
        "chain_head": meta.get("chain_head") if revealed else None,
    }


def record_digest(
    game: Sequence[Any], seats: Sequence[Sequence[Any]], faults: Sequence[Sequence[Any]], replay: str | None
) -> str:
    """SHA-256 (hex) of one game's rows (its ``games`` row, its ``seats`` rows by seat, its ``faults`` rows in order,
    its replay), as canonical JSON: what the hash chain links for the game's result."""
    rows = {"game": list(game), "seats": [list(r) for r in seats], "faults": [list(r) for r in faults]}
    return digest(canonical({**rows, "replay": replay}))


def game_record(db: sqlite3.Connection, game_id: str) -> str | None:
    """``record_digest`` of one game as the store holds it now (what ``record_game`` linked when it stored it, unless
    someone changed it since); None when the game has no ``games`` row."""
    game = db.execute("SELECT * FROM games WHERE game_id = ?", (game_id,)).fetchone()
    if game is None:
        return None
    seats = db.execute("SELECT * FROM seats WHERE game_id = ? ORDER BY seat", (game_id,)).fetchall()
    faults = db.execute("SELECT * FROM faults WHERE game_id = ? ORDER BY rowid", (game_id,)).fetchall()
    replay = db.execute("SELECT replay FROM replays WHERE game_id = ?", (game_id,)).fetchone()
    return record_digest(game, seats, faults, None if replay is None else replay[0])


def log_digest(path: Path | None) -> str | None:
    """SHA-256 (hex) of a game log's content, uncompressed (``gamelog.log_content``: the bytes the runner's writer
    hashed as it wrote them, however the file is stored); ``NO_LOG`` for a game stored without one (``path`` None),
    None when the file is gone or cannot be read."""
    from referee.runner.gamelog import LogError, log_content  # only an audit, or a result without its digest

    if path is None:
        return NO_LOG
    try:
        return digest(log_content(path))
    except LogError:
        return None


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


class ResultsStore:
    """A tournament's SQLite database. Use as a context manager or call ``close``.

    ``ResultsStore(directory)`` opens (creating the directory and an empty database if needed); raises
    ``StoreError`` when the file is not a results database of a schema this referee reads.
    ``ResultsStore(directory, read_only=True)`` opens an existing database for reading only (SQLite's
    ``mode=ro``: ``referee standings`` and the report), never writing to it, not even its schema; inside
    ``with store.snapshot():`` every read sees one consistent state of a tournament that may still be running.
    """

    def __init__(self, directory: Path | str, *, create: bool = True, read_only: bool = False) -> None:
        self.directory = Path(directory)
        self.path = self.directory / DB_NAME
        self._prefix = str(self.directory) + os.sep
        #: entrant -> the (name, version) its bot declared, as this store last wrote it (record_game)
        self._declared: dict[str, tuple[str | None, str | None]] = {}
        self._chain_start: str | None = None  # the chain's genesis ("" without a chain), once read
        self.read_only = read_only
        if (read_only or not create) and not self.path.exists():
            raise StoreError(f"{self.directory} holds no tournament ({DB_NAME} not found)")
        self._database = Database(self.path, label="results database", error=StoreError, read_only=read_only)
        if not read_only:
            try:
                self.directory.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                raise self._database.failure("open", e) from e
        self._db = self._database.connect()
        try:
            self._empty = read_only and not {"meta", "entrants", "games", "seats", "faults"} <= self._tables()
            if read_only and not self._empty:
                self._database.check(self._db, SCHEMA)
            elif not read_only:
                self._database.migrate(self._db, SCHEMA)
        except StoreError:
            self._db.close()
            raise

    @contextlib.contextmanager
    def snapshot(self) -> Iterator[None]:
        """Reads inside see one state of the database (one read transaction), while a run may go on writing."""
        with self._database.snapshot(self._db):
            yield

    def __enter__(self) -> ResultsStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        with self._guard("close"):
            self._db.close()

    def _guard(self, doing: str) -> contextlib.AbstractContextManager[None]:
        """Every ``sqlite3`` error inside raised as a ``StoreError`` naming the database and what failed."""
        return self._database.guard(doing)

    def _rows(self, sql: str) -> list[Any]:
        """Every row of a query (``StoreError`` when it fails)."""
        return self._database.rows(self._db, sql)

    def _transaction(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` … ``COMMIT`` (``ROLLBACK`` on an exception, unless SQLite already rolled back);
        a failure of the database is a ``StoreError``."""
        return self._database.transaction(self._db)

    # ------------------------------------------------------------------------------------------ parameters

    def params(self) -> TournamentParams | None:
        """The stored tournament's parameters, or None for a new database. Raises ``StoreError`` if unreadable."""
        if self._empty:
            return None
        rows = self._rows("SELECT value FROM meta WHERE key='params'")
        if not rows:
            return None
        try:
            return TournamentParams.from_json(rows[0][0])
        except (ValueError, KeyError, TypeError) as e:
            raise StoreError(f"{self.path}: the stored tournament parameters are unreadable ({e})") from e

    def tournament(self) -> TournamentParams:
        """The stored tournament's parameters. Raises ``EmptyStore`` when the database holds no tournament yet,
        ``StoreError`` when they are unreadable."""
        params = self.params()
        if params is None:
            raise EmptyStore(f"{self.directory} holds no tournament (its results database is empty)")
        return params

    def initialise(self, params: TournamentParams, secret: DealSecret, *, given: bool = False) -> None:
        """Store the parameters, deal secret (and its commitment) and entrants of a new tournament (one
        transaction); ``given``: the secret came from ``--deal-secret`` (chosen, or revealed, before: meta
        ``deal_secret_given``, which ``verify-deals`` reports)."""
        with self._transaction() as db:
            db.execute("INSERT INTO meta VALUES ('schema_version', ?)", (SCHEMA_VERSION,))
            db.execute("INSERT INTO meta VALUES ('params', ?)", (params.to_json(),))
            db.execute("INSERT INTO meta VALUES ('created_at', ?)", (_now(),))
            db.execute("INSERT INTO meta VALUES ('deal_scheme', ?)", (DEAL_SCHEME,))
            db.execute("INSERT INTO meta VALUES ('deal_commitment', ?)", (secret.commitment,))
            db.execute("INSERT INTO meta VALUES ('deal_secret', ?)", (secret.hex,))
            db.execute("INSERT INTO meta VALUES ('chain_scheme', ?)", (CHAIN_SCHEME,))
            if given:
                db.execute("INSERT INTO meta VALUES ('deal_secret_given', '1')")
            db.executemany(
                "INSERT INTO entrants(name, position, argv, cwd, env) VALUES (?, ?, ?, ?, ?)",
                [
                    (e.name, i, json.dumps(list(e.argv)), e.cwd, json.dumps(e.env, sort_keys=True))
                    for i, e in enumerate(params.entrants)
                ],
            )

    def deal_secret(self) -> DealSecret:
        """The tournament's deal secret. Raises ``StoreError`` when the database holds none (a tournament of an
        older referee, whose deals were a public function of its seed) or one that does not match its
        commitment."""
        meta = self.meta()
        if "deal_secret" not in meta or meta.get("deal_scheme") != DEAL_SCHEME:
            raise StoreError(
                f"{self.path} holds a tournament without a deal secret (made by an older referee); "
                "start a new tournament in another folder"
            )
        try:
            secret = DealSecret.from_hex(meta["deal_secret"])
        except DealSecretError as e:
            raise StoreError(f"{self.path}: the stored deal secret is unreadable ({e})") from None
        if secret.commitment != meta.get("deal_commitment"):
            raise StoreError(f"{self.path}: the stored deal secret does not match its commitment")
        return secret

    def meta(self) -> dict[str, str]:
        """Every ``meta`` entry (key → value)."""
        return dict(self._rows("SELECT key, value FROM meta"))

    def deals(self) -> dict[str, str | None]:
        """What standings.json and the report say of the deals: the scheme, the commitment, and the secret once
        revealed (None before the last game, so a published partial result does not give the rest away)."""
        return deals_record(self.meta())

    def mark_revealed(self) -> None:
        """Record that every game has finished, so the deal secret is revealed (kept if already recorded), with the
        head of the hash chain as it stands (``chain_head``)."""
        with self._transaction() as db:
            db.execute("INSERT OR IGNORE INTO meta VALUES ('revealed_at', ?)", (_now(),))
            head = self._head(db)
            if head is not None:
                db.execute("INSERT OR REPLACE INTO meta VALUES ('chain_head', ?)", (head[1],))

    def chain_head(self) -> str | None:
        """The last link of the results' hash chain (its genesis before the first game), or None for a tournament
        begun without a chain (by an older referee)."""
        head = self._head(self._db)
        return None if head is None else head[1]

    def _genesis(self, db: sqlite3.Connection) -> str | None:
        """The chain's first link, from the deal commitment and the parameters; None without ``chain_scheme``."""
        keys = "('chain_scheme', 'deal_commitment', 'params')"
        meta = dict(db.execute(f"SELECT key, value FROM meta WHERE key IN {keys}"))
        if meta.get("chain_scheme") != CHAIN_SCHEME:
            return None
        return genesis(meta.get("deal_commitment", ""), meta.get("params", ""))

    def _head(self, db: sqlite3.Connection) -> tuple[int, str] | None:
        """(position, link) of the last chained game ((0, genesis) before any); None without a chain."""
        if self._chain_start is None:
            self._chain_start = self._genesis(db) or ""
        if not self._chain_start:
            return None
        row = db.execute("SELECT position, link FROM chain ORDER BY position DESC LIMIT 1").fetchone()
        return (0, self._chain_start) if row is None else (int(row[0]), str(row[1]))

    def audit_chain(self, head: str | None = None) -> ChainAudit:
        """Check the stored games against the hash chain (``chain.audit``): every game whose rows or log differ from
        what was chained when it was stored, every game missing, every game added (after the published ``head``, when
        given). Raises ``StoreError`` for a tournament begun without a chain."""
        first = self._genesis(self._db)
        if first is None:
            raise StoreError(f"{self.path} holds a tournament begun without a hash chain (by an older referee)")
        chained = {g: (p, r, lg, lk) for p, g, r, lg, lk in self._db.execute("SELECT * FROM chain ORDER BY position")}
        paths = dict(self._db.execute("SELECT game_id, log_path FROM games").fetchall())
        entries = []
        for key in [*chained, *sorted(set(paths) - set(chained))]:
            position, record, log, link_ = chained.get(key, (None, None, None, None))
            stored = paths.get(key, False)
            log_path = None if stored is None or stored is False else self.directory / stored
            now_log = None if stored is False else log_digest(log_path)
            entries.append(ChainEntry(key, position, record, log, link_, game_record(self._db, key), now_log))
        return audit(first, entries, head)

    def set_meta(self, key: str, value: str) -> None:
        """Store (or replace) a value of the meta table."""
        with self._transaction() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    def names(self) -> list[str]:
        """The entrants' names in their given order."""
        return [r[0] for r in self._rows("SELECT name FROM entrants ORDER BY position")]

    def declared_names(self) -> dict[str, str | None]:
        """Entrant name → the name the bot declared in its hello (None when it never said hello)."""
        return dict(self._rows("SELECT name, declared_name FROM entrants ORDER BY position"))

    # ------------------------------------------------------------------------------------------ games

    def finished_game_ids(self) -> set[str]:
        return {r[0] for r in self._rows("SELECT game_id FROM games")}

    def game_count(self) -> int:
        return int(self._rows("SELECT count(*) FROM games")[0][0])

    def record_game(
        self,
        game: ScheduledGame,
        result: GameResultLike,
        *,
        duration: float,
        declared: Mapping[str, tuple[str | None, str | None]] | None = None,
    ) -> None:
        """Commit one finished game with its seats and faults in one transaction.

        ``declared`` maps entrants to the (name, version) their bots gave in hello; the entrants table keeps the
        latest. A game already stored (same id) is left as it is, so replaying a game cannot duplicate it. The
        result's ``replay`` (when it has one) is stored with it, for the report.
        """
        log_path = None if result.log_path is None else self._relative(result.log_path)
        # the entrants table already holds what this store wrote last: only a bot that said something new is updated
        changed = [(n, said) for n, said in (declared or {}).items() if self._declared.get(n) != said]
        row: tuple[Any, ...] = (game.game_id, game.ordinal, game.batch, game.repeat, game.rotation, len(game.seats))
        row += (game.seed, log_path, float(duration), _now())
        seat_values = [
            (game.game_id, seat, r.entrant, r.score, r.rank, int(r.forfeit_kind is not None))
            for seat, r in enumerate(seat_rows(game.seats, result))
        ]
        fault_values = [
            (game.game_id, f.seat, game.seats[f.seat], f.kind, f.round, f.turn, f.detail, f.line) for f in result.faults
        ]
        replay = result.replay
        replay_text = None if replay is None else json.dumps(replay, separators=(",", ":"))
        with self._transaction() as db:
            cur = db.execute("INSERT OR IGNORE INTO games VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
            if cur.rowcount == 0:
                return
            db.executemany("INSERT INTO seats VALUES (?, ?, ?, ?, ?, ?)", seat_values)
            if changed:
                db.executemany(
                    "UPDATE entrants SET declared_name = ?, declared_version = ? WHERE name = ?",
                    [(said, version, name) for name, (said, version) in changed],
                )
            if fault_values:
                db.executemany("INSERT INTO faults VALUES (?, ?, ?, ?, ?, ?, ?, ?)", fault_values)
            if replay_text is not None:  # a row left by a game whose games row was deleted by hand is its: replaced
                db.execute("INSERT OR REPLACE INTO replays VALUES (?, ?)", (game.game_id, replay_text))
            if self._head(db) is not None:
                path = None if result.log_path is None else Path(os.fspath(result.log_path))
                self._chain(db, game.game_id, row, seat_values, fault_values, replay_text, result, path)
        self._declared.update(changed)

    def _chain(
        self,
        db: sqlite3.Connection,
        game_id: str,
        row: tuple[Any, ...],
        seats: list[tuple[Any, ...]],
        faults: list[tuple[Any, ...]],
        replay: str | None,
        result: GameResultLike,
        log_path: Path | None,
    ) -> None:
        """Link the game just stored (in the same transaction) onto the hash chain: its rows as written (as
        ``game_record`` reads them back) and its log (the digest the runner took as it wrote it, else read)."""
        head = self._head(db)
        assert head is not None
        record = record_digest(row, seats, faults, replay)
        written = getattr(result, "log_sha256", None)
        log = (written if log_path is not None and written else log_digest(log_path)) or NO_LOG
        position, previous = head
        db.execute(
            "INSERT OR REPLACE INTO chain VALUES (?, ?, ?, ?, ?)",
            (position + 1, game_id, record, log, link(previous, record, log)),
        )

    def _relative(self, path: Any) -> str:
        """A game log's path as stored: relative to the results folder when inside it (``games/<id>.jsonl``)."""
        text: str = os.fspath(path)
        if text.startswith(self._prefix):  # the usual case, without pathlib's parsing (a few us a game)
            rest = text[len(self._prefix) :]
            if all(part not in ("", ".", "..") for part in rest.split(os.sep)):
                return rest
        full = Path(text)
        return str(full.relative_to(self.directory) if full.is_relative_to(self.directory) else full)

    def dealt_games(self) -> list[tuple[str, int, int, str | None]]:
        """(game id, batch, deal seed, log path) of every stored game, in schedule order."""
        rows = self._rows("SELECT game_id, batch, seed, log_path FROM games ORDER BY ordinal")
        return [(g, int(b), int(s), p) for g, b, s, p in rows]

    def first_faults(self) -> dict[str, tuple[str, str, str]]:
        """Entrant → (game id, kind, detail) of its first recorded fault, for entrants that faulted."""
        rows = self._rows(
            "SELECT entrant, game_id, kind, detail FROM faults f JOIN games g USING (game_id) "
            "ORDER BY g.ordinal DESC, f.rowid DESC"
        )
        return {entrant: (game_id, kind, detail) for entrant, game_id, kind, detail in rows}

    def games(self) -> Iterator[StoredGame]:
        """Every stored game in schedule order, each with its seats (and the kind of each forfeit: the kind of the
        seat's first fault, ``"unknown"`` when none was recorded); read as they are yielded."""
        with self._guard("read"):
            yield from self._stored_games()

    def _stored_games(self) -> Iterator[StoredGame]:
        kinds: dict[tuple[str, int], str] = {}
        for game_id, seat, kind in self._db.execute("SELECT game_id, seat, kind FROM faults ORDER BY rowid"):
            kinds.setdefault((game_id, seat), kind)
        rows = self._db.execute(
            "SELECT g.game_id, g.ordinal, g.batch, g.seed, g.log_path, s.seat, s.entrant, s.score, s.rank, s.forfeit "
            "FROM games g JOIN seats s ON s.game_id = g.game_id ORDER BY g.ordinal, s.seat"
        )
        current: tuple[str, int, int, int, str | None] | None = None
        seats: list[SeatRow] = []
        for game_id, ordinal, batch, seed, log_path, seat, entrant, score, rank, forfeit in rows:
            if current is not None and current[0] != game_id:
                yield StoredGame(current[0], current[1], tuple(seats), *current[2:])
                seats = []
            current = (game_id, ordinal, batch, seed, log_path)
            kind = kinds.get((game_id, seat), "unknown") if forfeit else None
            seats.append(SeatRow(entrant, score, rank, kind))
        if current is not None:
            yield StoredGame(current[0], current[1], tuple(seats), *current[2:])

    def replays(self) -> dict[str, str]:
        """Game id → its stored replay (JSON text), for the games stored with one; empty for a database written
        before the ``replays`` table."""
        if "replays" not in self._tables():
            return {}
        return dict(self._rows("SELECT game_id, replay FROM replays"))

    def replay(self, game_id: str) -> str | None:
        """The stored replay (JSON text) of one game; None when it has none."""
        if "replays" not in self._tables():
            return None
        with self._guard("read"):
            row = self._db.execute("SELECT replay FROM replays WHERE game_id = ?", (game_id,)).fetchone()
        return None if row is None else str(row[0])

    def _tables(self) -> set[str]:
        return {r[0] for r in self._rows("SELECT name FROM sqlite_master WHERE type='table'")}

    def entrants(self) -> list[StoredEntrant]:
        """The entrants in their given order."""
        rows = self._rows("SELECT name, argv, declared_name FROM entrants ORDER BY position")
        return [StoredEntrant(name, tuple(json.loads(argv)) if argv else (), declared) for name, argv, declared in rows]

    def faults(self) -> list[StoredFault]:
        """Every recorded fault, in the order recorded."""
        rows = self._rows("SELECT game_id, seat, entrant, kind, round, turn, detail, line FROM faults ORDER BY rowid")
        return [StoredFault(*row) for row in rows]
