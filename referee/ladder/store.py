"""The ladder's store: one SQLite database, ``DIR/ladder.sqlite``, that owns everything the ladder keeps.

Journal mode WAL (readers never wait for the writer; a killed process leaves it intact), every change in one
``BEGIN IMMEDIATE`` transaction: a block is committed whole (its games, seats, faults, the versions' counters and
ratings), so the database never holds part of a block. Each thread gets its own connection (``serve``, the web
server's worker threads and the shell commands may all use one ``LadderStore``).

Schema (version 1)::

    meta(key TEXT PRIMARY KEY, value TEXT)      schema_version, created_at, admin_token (scrypt hash)
    entrants(id INTEGER PRIMARY KEY, name TEXT UNIQUE, token TEXT (scrypt hash), state, reason, created_at)
    versions(id INTEGER PRIMARY KEY, entrant_id, number,   -- number: 1, 2, ... per entrant
             digest,                                       -- SHA-256 of its files and commands (intake)
             command, build,                               -- JSON lists of words (build: NULL for none)
             kind, files, size, submitted_at,              -- what was submitted (file, folder, tar, zip)
             state, reason, state_at,                      -- model.VersionState, why, since when
             mu, sigma,                                    -- live rating (NULL before its first block)
             blocks, games, forfeits, placement_left)
    gates(version_id PRIMARY KEY, started_at, finished_at, passed, reasons (JSON list), report (JSON), build_log)
    epochs(id INTEGER PRIMARY KEY, scheme, commitment, secret,   -- the secret is shown only once revealed
           opened_at, closed_at, revealed_at,                   -- closed: no new block; revealed: none in play
           rules,                                               -- JSON: the ruleset its deals were dealt for
           chain_head)                                          -- the chain's last link when it was revealed
    blocks(id INTEGER PRIMARY KEY, epoch_id, kind, state, seats (JSON list of version ids), seed, attempts,
           created_at, finished_at, reason)
    block_seats(block_id, version_id, position, total, games, forfeits, matchpoints, relative)
    games(id TEXT PRIMARY KEY "<block>.<rotation>", block_id, rotation, log_path, duration, finished_at)
    seats(game_id, seat, version_id, score, rank, forfeit)
    faults(game_id, seat, version_id, kind, round, turn, detail, line)
    ratings(version_id, block_id, mu, sigma)    -- each version's live rating after each of its blocks
    version_sums(version_id, n, mp, mp2, rel, rel2)   -- exact sums over its done blocks (``standing``: units)
    pair_sums(a, b, n, ab, sa, sb)              -- a < b: their shared done blocks, sums of products and of each
    meta blocks_done, games_done                -- counters kept with each committed block
    chain(position, game_id, record, log, link) -- the hash chain over stored games (referee.contest.chain):
                                                -- each game's rows and log digested and linked, in storage order;
                                                -- meta chain_scheme, and each epoch's chain_head when it is revealed
    voids(block_id, attempt, reason, at)        -- every voided attempt of a block, and why
    notices(id, entrant_id, version_id, kind, text, at,   -- what its author is told (``notices``), and where
            webhook, mail)                                -- each was sent: NULL to send, off, sent, gave up

Opening, transactions, snapshots and error wrapping are ``referee.contest.database``'s: a ladder made by an older
referee is brought up to date by the steps of ``SCHEMA`` (tables, columns and sums added since), once each, counted
in SQLite's ``user_version``.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import sqlite3
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.contest.chain import CHAIN_SCHEME, NO_LOG, ChainAudit, ChainEntry, audit, genesis, link
from referee.contest.database import Database, Migration, Schema, create_tables
from referee.ladder.errors import LadderStoreError, NotFound, Refused
from referee.ladder.model import (
    ACTIVE_STATES,
    ENTRANT_TRANSITIONS,
    VERSION_TRANSITIONS,
    Block,
    BlockKind,
    BlockState,
    Entrant,
    EntrantState,
    Epoch,
    GameRecord,
    GateRecord,
    SeatRecord,
    Version,
    VersionState,
    may_become,
)
from referee.ladder.standing import MP_UNIT, REL_UNIT, PairSums, StandingSums, VersionSums
from referee.tournament.store import log_digest, record_digest

if TYPE_CHECKING:
    from referee.tournament.store import FaultLike

__all__ = ["SCHEMA_VERSION", "GameRow", "LadderStore", "now"]

SCHEMA_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS entrants(
    id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, token TEXT NOT NULL, state TEXT NOT NULL, reason TEXT,
    created_at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS versions(
    id INTEGER PRIMARY KEY, entrant_id INTEGER NOT NULL REFERENCES entrants(id), number INTEGER NOT NULL,
    digest TEXT NOT NULL, command TEXT NOT NULL, build TEXT, kind TEXT NOT NULL, files INTEGER NOT NULL,
    size INTEGER NOT NULL, submitted_at TEXT NOT NULL, state TEXT NOT NULL, reason TEXT, state_at TEXT NOT NULL,
    mu REAL, sigma REAL, blocks INTEGER NOT NULL DEFAULT 0, games INTEGER NOT NULL DEFAULT 0,
    forfeits INTEGER NOT NULL DEFAULT 0, placement_left INTEGER NOT NULL DEFAULT 0,
    UNIQUE(entrant_id, number), UNIQUE(entrant_id, digest));
CREATE INDEX IF NOT EXISTS versions_by_state ON versions(state);
CREATE TABLE IF NOT EXISTS gates(
    version_id INTEGER PRIMARY KEY REFERENCES versions(id), started_at TEXT NOT NULL, finished_at TEXT,
    passed INTEGER, reasons TEXT NOT NULL DEFAULT '[]', report TEXT, build_log TEXT);
CREATE TABLE IF NOT EXISTS epochs(
    id INTEGER PRIMARY KEY, scheme TEXT NOT NULL, commitment TEXT NOT NULL, secret TEXT NOT NULL,
    opened_at TEXT NOT NULL, closed_at TEXT, revealed_at TEXT, rules TEXT NOT NULL DEFAULT '{}', chain_head TEXT);
CREATE TABLE IF NOT EXISTS blocks(
    id INTEGER PRIMARY KEY, epoch_id INTEGER NOT NULL REFERENCES epochs(id), kind TEXT NOT NULL,
    state TEXT NOT NULL, seats TEXT NOT NULL, seed INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL, finished_at TEXT, reason TEXT);
CREATE INDEX IF NOT EXISTS blocks_by_state ON blocks(state);
CREATE INDEX IF NOT EXISTS blocks_by_epoch ON blocks(epoch_id, state);
CREATE TABLE IF NOT EXISTS block_seats(
    block_id INTEGER NOT NULL REFERENCES blocks(id), version_id INTEGER NOT NULL REFERENCES versions(id),
    position INTEGER NOT NULL, total INTEGER NOT NULL, games INTEGER NOT NULL, forfeits INTEGER NOT NULL,
    matchpoints REAL NOT NULL, relative REAL NOT NULL, PRIMARY KEY (block_id, version_id));
CREATE INDEX IF NOT EXISTS block_seats_by_version ON block_seats(version_id, block_id);
CREATE TABLE IF NOT EXISTS games(
    id TEXT PRIMARY KEY, block_id INTEGER NOT NULL REFERENCES blocks(id), rotation INTEGER NOT NULL,
    log_path TEXT, duration REAL NOT NULL, finished_at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS games_by_block ON games(block_id);
CREATE TABLE IF NOT EXISTS seats(
    game_id TEXT NOT NULL REFERENCES games(id), seat INTEGER NOT NULL,
    version_id INTEGER NOT NULL REFERENCES versions(id), score INTEGER NOT NULL, rank INTEGER NOT NULL,
    forfeit INTEGER NOT NULL, PRIMARY KEY (game_id, seat));
CREATE INDEX IF NOT EXISTS seats_by_version ON seats(version_id);
CREATE TABLE IF NOT EXISTS faults(
    game_id TEXT NOT NULL REFERENCES games(id), seat INTEGER NOT NULL,
    version_id INTEGER NOT NULL REFERENCES versions(id), kind TEXT NOT NULL, round INTEGER, turn INTEGER,
    detail TEXT NOT NULL, line TEXT);
CREATE INDEX IF NOT EXISTS faults_by_version ON faults(version_id);
CREATE INDEX IF NOT EXISTS faults_by_game ON faults(game_id);
CREATE TABLE IF NOT EXISTS ratings(
    version_id INTEGER NOT NULL REFERENCES versions(id), block_id INTEGER NOT NULL REFERENCES blocks(id),
    mu REAL NOT NULL, sigma REAL NOT NULL, PRIMARY KEY (version_id, block_id));
CREATE INDEX IF NOT EXISTS ratings_by_version ON ratings(version_id, block_id, mu, sigma);
CREATE TABLE IF NOT EXISTS version_sums(
    version_id INTEGER PRIMARY KEY REFERENCES versions(id), n INTEGER NOT NULL, mp INTEGER NOT NULL,
    mp2 INTEGER NOT NULL, rel INTEGER NOT NULL, rel2 INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS pair_sums(
    a INTEGER NOT NULL REFERENCES versions(id), b INTEGER NOT NULL REFERENCES versions(id), n INTEGER NOT NULL,
    ab INTEGER NOT NULL, sa INTEGER NOT NULL, sb INTEGER NOT NULL, PRIMARY KEY (a, b));
CREATE INDEX IF NOT EXISTS pair_sums_by_b ON pair_sums(b);
CREATE TABLE IF NOT EXISTS chain(
    position INTEGER PRIMARY KEY, game_id TEXT UNIQUE NOT NULL, record TEXT NOT NULL, log TEXT NOT NULL,
    link TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS voids(
    block_id INTEGER NOT NULL REFERENCES blocks(id), attempt INTEGER NOT NULL, reason TEXT NOT NULL,
    at TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS notices(
    id INTEGER PRIMARY KEY, entrant_id INTEGER NOT NULL REFERENCES entrants(id),
    version_id INTEGER REFERENCES versions(id), kind TEXT NOT NULL, text TEXT NOT NULL, at TEXT NOT NULL,
    webhook TEXT, mail TEXT);
CREATE INDEX IF NOT EXISTS notices_by_entrant ON notices(entrant_id, id);
CREATE INDEX IF NOT EXISTS notices_to_send ON notices(id) WHERE webhook IS NULL OR mail IS NULL;
"""

_create = create_tables(_SCHEMA)


def _new_tables(db: sqlite3.Connection) -> None:
    _create(db)
    for key, value in (("schema_version", SCHEMA_VERSION), ("created_at", now()), ("chain_scheme", CHAIN_SCHEME)):
        db.execute("INSERT OR IGNORE INTO meta VALUES (?, ?)", (key, value))


#: (table, column, its declaration): the columns added to a table after ladders were made with it.
_ADDED_COLUMNS = (
    ("epochs", "revealed_at", "TEXT"),
    ("epochs", "rules", "TEXT NOT NULL DEFAULT '{}'"),
    ("epochs", "chain_head", "TEXT"),
)


def _new_columns(db: sqlite3.Connection) -> None:
    for table, column, declaration in _ADDED_COLUMNS:
        if column not in {row[1] for row in db.execute(f"PRAGMA table_info({table})")}:
            db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")


def _sums(db: sqlite3.Connection) -> None:
    if db.execute("SELECT 1 FROM meta WHERE key = 'sums'").fetchone() is None:
        _rebuild_sums(db)


#: The schema's history, applied in order when a ladder is opened (``Database.migrate``); a change adds a step.
SCHEMA = Schema(
    SCHEMA_VERSION,
    (
        # every table and index (a ladder made before one was added gets it), and the meta rows of a new ladder
        Migration("tables", _new_tables),
        Migration("epoch columns", _new_columns),  # revealed_at, rules and chain_head came after the first ladders
        Migration("sums", _sums),  # the standing's sums and counters, for a ladder stored before them
        Migration("notices", _create),  # the notices table and its indexes (issue 34), for a ladder made before
        Migration("faults by game", _create),  # the chain reads a game's faults as it links the game (issue 33)
    ),
)


_VERSION_COLUMNS = (
    "v.id, v.entrant_id, e.name, v.number, v.digest, v.command, v.build, v.kind, v.files, v.size, v.submitted_at, "
    "v.state, v.reason, v.state_at, v.mu, v.sigma, v.blocks, v.games, v.forfeits, v.placement_left"
)
_VERSIONS = f"SELECT {_VERSION_COLUMNS} FROM versions v JOIN entrants e ON e.id = v.entrant_id"
#: The state a block's transitions move from (placement -> ranked): a version retired meanwhile stays retired.
_PLACING = (VersionState.PLACEMENT,)
_BLOCK_COLUMNS = "id, epoch_id, kind, state, seats, seed, attempts, created_at, finished_at, reason"


def now() -> str:
    """The time as the store writes it: ISO 8601, UTC, to the second."""
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True, slots=True)
class GameRow:
    """A finished game of a block, to commit: rotation, seats (version ids), scores, ranks, forfeited seats."""

    rotation: int
    seats: tuple[int, ...]
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    forfeits: tuple[bool, ...]
    faults: tuple[FaultLike, ...]  # the runner's ``Fault``s of the game
    log_path: str | None
    duration: float
    log_sha256: str | None = None  # SHA-256 of the log as written (the runner's); None: digested from the file


def _game_record(db: sqlite3.Connection, game_id: str) -> str | None:
    """``record_digest`` of one stored game: its ``games`` row, its ``seats`` by seat, its ``faults`` in order."""
    game = db.execute("SELECT * FROM games WHERE id = ?", (game_id,)).fetchone()
    if game is None:
        return None
    seats = db.execute("SELECT * FROM seats WHERE game_id = ? ORDER BY seat", (game_id,)).fetchall()
    faults = db.execute("SELECT * FROM faults WHERE game_id = ? ORDER BY rowid", (game_id,)).fetchall()
    return record_digest(game, seats, faults, None)


def _move(
    db: sqlite3.Connection,
    version_id: int,
    to: VersionState,
    reason: str | None,
    stamp: str,
    placement_left: int | None = None,
    only: Iterable[VersionState] | None = None,
) -> bool:
    """The one write of a version's state: to ``to`` from a state ``VERSION_TRANSITIONS`` allows (and in ``only``),
    else nothing. True when it applied."""
    froms = [s.value for s in may_become(VERSION_TRANSITIONS, to) if only is None or s in set(only)]
    cur = db.execute(
        "UPDATE versions SET state = ?, reason = ?, state_at = ?, placement_left = coalesce(?, placement_left) "
        f"WHERE id = ? AND state IN ({', '.join('?' * len(froms))})",
        (to.value, reason, stamp, placement_left, version_id, *froms),
    )
    return cur.rowcount == 1


def _playable(db: sqlite3.Connection, seats: Sequence[int]) -> bool:
    """Every version of ``seats`` is active (placement, ranked) and its entrant too, as the database is now."""
    ids = sorted(set(seats))
    n = db.execute(
        "SELECT count(*) FROM versions v JOIN entrants e ON e.id = v.entrant_id WHERE e.state = 'active' AND "
        f"v.state IN ('placement', 'ranked') AND v.id IN ({', '.join('?' * len(ids))})",
        ids,
    ).fetchone()[0]
    return int(n) == len(ids)


def _rebuild_sums(db: sqlite3.Connection) -> None:
    """The standing's sums and the counters, computed anew from the stored blocks (in the caller's transaction)."""
    rows = db.execute(
        "SELECT s.block_id, s.version_id, s.matchpoints, s.relative FROM block_seats s "
        "JOIN blocks b ON b.id = s.block_id WHERE b.state = 'done'"
    ).fetchall()
    sums = StandingSums.of((b, v, round(mp * MP_UNIT), round(rel * REL_UNIT)) for b, v, mp, rel in rows)
    db.execute("DELETE FROM version_sums")
    db.execute("DELETE FROM pair_sums")
    db.executemany(
        "INSERT INTO version_sums VALUES (?, ?, ?, ?, ?, ?)",
        [(v, x.n, x.mp, x.mp2, x.rel, x.rel2) for v, x in sums.versions.items()],
    )
    db.executemany(
        "INSERT INTO pair_sums VALUES (?, ?, ?, ?, ?, ?)",
        [(a, b, p.n, p.ab, p.a, p.b) for (a, b), p in sums.pairs.items()],
    )
    blocks = db.execute("SELECT count(*) FROM blocks WHERE state = 'done'").fetchone()[0]
    games = db.execute("SELECT count(*) FROM games").fetchone()[0]
    db.execute("INSERT OR REPLACE INTO meta VALUES ('blocks_done', ?)", (str(blocks),))
    db.execute("INSERT OR REPLACE INTO meta VALUES ('games_done', ?)", (str(games),))
    db.execute("INSERT OR REPLACE INTO meta VALUES ('sums', '1')")


def _version(row: Sequence[Any]) -> Version:
    (vid, eid, name, number, digest, command, build, kind, files, size, submitted, state, reason, state_at, mu,
     sigma, blocks, games, forfeits, placement_left) = row  # fmt: skip
    return Version(
        vid, eid, name, number, digest, tuple(json.loads(command)), None if build is None else tuple(json.loads(build)),
        kind, files, size, submitted, VersionState(state), reason, state_at, mu, sigma, blocks, games, forfeits,
        placement_left,
    )  # fmt: skip


def _block(row: Sequence[Any], results: tuple[SeatRecord, ...] = ()) -> Block:
    bid, epoch, kind, state, seats, seed, attempts, created, finished, reason = row
    return Block(
        bid, epoch, BlockKind(kind), BlockState(state), tuple(json.loads(seats)), int(seed), attempts, created,
        finished, reason, results,
    )  # fmt: skip


class LadderStore:
    """The ladder's database at ``path``. ``create=True`` makes a new one; otherwise it must exist and be a ladder.

    Raises ``LadderStoreError`` for a database that cannot be opened, is not a ladder, or has a newer schema.
    Every method raises ``LadderStoreError`` when SQLite fails (a full disk, a damaged file): one line naming the
    file and what to do, SQLite's words as its ``reason``, the ``sqlite3`` error as its cause; a write that fails
    leaves nothing of itself behind.
    """

    def __init__(self, path: Path, *, create: bool = False) -> None:
        self.path = path
        self._local = threading.local()
        self._all: list[sqlite3.Connection] = []
        self._lock = threading.Lock()
        if not create and not path.exists():
            raise LadderStoreError(
                f"{path.parent} is not a ladder folder ({path.name} not found): run referee ladder init"
            )
        self._database = Database(path, label="ladder database", error=LadderStoreError)
        try:
            db = self._db()
            if not create and self._database.version(db) is None:
                raise LadderStoreError(
                    f"{path} is not a ladder database (it holds no schema version): give the folder of a ladder, "
                    "or make one with referee ladder init"
                )
            self._database.migrate(db, SCHEMA)
        except LadderStoreError:
            self.close()
            raise

    # ------------------------------------------------------------------------------------------ connections

    def _db(self) -> sqlite3.Connection:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = self._database.connect(any_thread=True)
            self._local.db = db
            with self._lock:
                self._all.append(db)
        return db

    def close(self) -> None:
        """Close every thread's connection."""
        with self._lock:
            for db in self._all:
                with contextlib.suppress(sqlite3.Error):
                    db.close()
            self._all.clear()
        self._local = threading.local()

    def __enter__(self) -> LadderStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _write(self) -> contextlib.AbstractContextManager[sqlite3.Connection]:
        """One ``BEGIN IMMEDIATE`` transaction on this thread's connection (``Database.transaction``)."""
        return self._database.transaction(self._db())

    def _guard(self, doing: str) -> contextlib.AbstractContextManager[None]:
        """Every ``sqlite3`` error inside raised as a ``LadderStoreError`` naming the database and what failed."""
        return self._database.guard(doing)

    def _read(self, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        return self._database.rows(self._db(), sql, args)

    def snapshot(self) -> contextlib.AbstractContextManager[None]:
        """Reads inside see one state of the database (one read transaction) while ``serve`` goes on writing."""
        return self._database.snapshot(self._db())

    def data_version(self) -> int:
        """A number that changes whenever another connection commits (``PRAGMA data_version``): cheap to poll."""
        return int(self._read("PRAGMA data_version")[0][0])

    # ------------------------------------------------------------------------------------------ meta

    def meta(self, key: str) -> str | None:
        rows = self._read("SELECT value FROM meta WHERE key = ?", (key,))
        return rows[0][0] if rows else None

    def set_meta(self, key: str, value: str) -> None:
        with self._write() as db:
            db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, value))

    # ------------------------------------------------------------------------------------------ entrants

    def add_entrant(self, name: str, token_hash: str) -> Entrant:
        """Raises ``Refused`` when the name is taken."""
        try:
            with self._write() as db:
                cur = db.execute(
                    "INSERT INTO entrants(name, token, state, created_at) VALUES (?, ?, ?, ?)",
                    (name, token_hash, EntrantState.ACTIVE.value, now()),
                )
                entrant_id = int(cur.lastrowid or 0)
        except LadderStoreError as exc:
            if "UNIQUE" in str(exc):
                raise Refused(f"an entrant named {name!r} exists already: choose another name") from None
            raise
        entrant = self.entrant(entrant_id)
        assert entrant is not None
        return entrant

    def set_token(self, entrant_id: int, token_hash: str) -> None:
        with self._write() as db:
            db.execute("UPDATE entrants SET token = ? WHERE id = ?", (token_hash, entrant_id))

    def token_hash(self, entrant_id: int) -> str | None:
        rows = self._read("SELECT token FROM entrants WHERE id = ?", (entrant_id,))
        return rows[0][0] if rows else None

    def entrant(self, entrant_id: int) -> Entrant | None:
        rows = self._read("SELECT id, name, state, reason, created_at FROM entrants WHERE id = ?", (entrant_id,))
        return Entrant(rows[0][0], rows[0][1], EntrantState(rows[0][2]), rows[0][3], rows[0][4]) if rows else None

    def entrant_named(self, name: str) -> Entrant | None:
        rows = self._read("SELECT id, name, state, reason, created_at FROM entrants WHERE name = ?", (name,))
        return Entrant(rows[0][0], rows[0][1], EntrantState(rows[0][2]), rows[0][3], rows[0][4]) if rows else None

    def entrants(self) -> list[Entrant]:
        rows = self._read("SELECT id, name, state, reason, created_at FROM entrants ORDER BY id")
        return [Entrant(i, n, EntrantState(s), r, c) for i, n, s, r, c in rows]

    def move_entrant(self, entrant_id: int, to: EntrantState, reason: str | None) -> bool:
        """An entrant to ``to`` if ``ENTRANT_TRANSITIONS`` allows it from its state now; True when it applied."""
        froms = [s.value for s in may_become(ENTRANT_TRANSITIONS, to)]
        with self._write() as db:
            cur = db.execute(
                f"UPDATE entrants SET state = ?, reason = ? WHERE id = ? AND state IN ({', '.join('?' * len(froms))})",
                (to.value, reason, entrant_id, *froms),
            )
            return cur.rowcount == 1

    # ------------------------------------------------------------------------------------------ versions

    def add_version(
        self,
        entrant_id: int,
        *,
        digest: str,
        command: Sequence[str],
        build: Sequence[str] | None,
        kind: str,
        files: int,
        size: int,
        per_day: int | None = None,
    ) -> Version:
        """Store a new version (state ``submitted``, numbered on from the entrant's last). Raises ``Refused`` when
        the entrant already has a version with this digest, or ``per_day`` submitted in the last 24 hours (counted
        in the same transaction as the insert, so that simultaneous uploads cannot pass the cap together)."""
        with self._write() as db:
            since = (datetime.now(UTC) - timedelta(days=1)).isoformat(timespec="seconds")
            sql = "SELECT count(*) FROM versions WHERE entrant_id = ? AND submitted_at >= ?"
            if per_day is not None and db.execute(sql, (entrant_id, since)).fetchone()[0] >= per_day:
                name = db.execute("SELECT name FROM entrants WHERE id = ?", (entrant_id,)).fetchone()[0]
                raise Refused(f"{name} has submitted {per_day} versions in the last 24 hours, the most allowed")
            same = db.execute(
                "SELECT number FROM versions WHERE entrant_id = ? AND digest = ?", (entrant_id, digest)
            ).fetchone()
            if same is not None:
                raise Refused(f"this bot is the same as your version {same[0]} (same files and command)")
            number = db.execute(
                "SELECT coalesce(max(number), 0) + 1 FROM versions WHERE entrant_id = ?", (entrant_id,)
            ).fetchone()[0]
            stamp = now()
            cur = db.execute(
                "INSERT INTO versions(entrant_id, number, digest, command, build, kind, files, size, submitted_at, "
                "state, state_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    entrant_id, number, digest, json.dumps(list(command)),
                    None if build is None else json.dumps(list(build)), kind, files, size, stamp,
                    VersionState.SUBMITTED.value, stamp,
                ),
            )  # fmt: skip
            version_id = int(cur.lastrowid or 0)
        version = self.version(version_id)
        assert version is not None
        return version

    def versions_by_id(self, version_ids: Iterable[int]) -> dict[int, Version]:
        """The versions of ``version_ids`` that exist, in one read."""
        ids = list(version_ids)
        if not ids:
            return {}
        rows = self._read(f"{_VERSIONS} WHERE v.id IN ({', '.join('?' * len(ids))})", ids)
        return {v.id: v for v in map(_version, rows)}

    def version(self, version_id: int) -> Version | None:
        rows = self._read(f"{_VERSIONS} WHERE v.id = ?", (version_id,))
        return _version(rows[0]) if rows else None

    def versions(self, *, entrant_id: int | None = None, states: Iterable[VersionState] | None = None) -> list[Version]:
        """Versions in submission order, of one entrant and in some states when asked."""
        where: list[str] = []
        args: list[Any] = []
        if entrant_id is not None:
            where.append("v.entrant_id = ?")
            args.append(entrant_id)
        if states is not None:
            wanted = [s.value for s in states]
            where.append(f"v.state IN ({', '.join('?' * len(wanted))})")
            args.extend(wanted)
        sql = _VERSIONS + (f" WHERE {' AND '.join(where)}" if where else "") + " ORDER BY v.id"
        return [_version(r) for r in self._read(sql, args)]

    def active_versions(self) -> list[Version]:
        return self.versions(states=ACTIVE_STATES)

    def move_version(
        self,
        version_id: int,
        to: VersionState,
        reason: str | None = None,
        *,
        only: Iterable[VersionState] | None = None,
        placement_left: int | None = None,
    ) -> bool:
        """Move a version to ``to`` if ``VERSION_TRANSITIONS`` allows it from its state now (and that state is in
        ``only`` when given), in one guarded UPDATE. False when it did not apply: the version was moved meanwhile
        (retired, suspended, failed), and what moved it stands."""
        with self._write() as db:
            return _move(db, version_id, to, reason, now(), placement_left, only)

    def set_version_state(
        self, version_id: int, state: VersionState, reason: str | None = None, *, placement_left: int | None = None
    ) -> None:
        """Put a version in ``state`` whatever its state now: for tests and benches that make a store up. The
        ladder itself moves versions with ``move_version`` only."""
        with self._write() as db:
            db.execute(
                "UPDATE versions SET state = ?, reason = ?, state_at = ?, "
                "placement_left = coalesce(?, placement_left) WHERE id = ?",
                (state.value, reason, now(), placement_left, version_id),
            )

    def submissions_since(self, entrant_id: int, since: str) -> int:
        rows = self._read(
            "SELECT count(*) FROM versions WHERE entrant_id = ? AND submitted_at >= ?", (entrant_id, since)
        )
        return int(rows[0][0])

    def recent_forfeits(self, version_id: int, games: int) -> tuple[int, int]:
        """(forfeits, games) over the version's latest ``games`` games."""
        rows = self._read(
            "SELECT count(*), coalesce(sum(forfeit), 0) FROM (SELECT forfeit FROM seats WHERE version_id = ? "
            "ORDER BY rowid DESC LIMIT ?)",
            (version_id, games),
        )
        return int(rows[0][1]), int(rows[0][0])

    # ------------------------------------------------------------------------------------------ gates

    def start_gate(self, version_id: int) -> None:
        with self._write() as db:
            db.execute("INSERT OR REPLACE INTO gates(version_id, started_at) VALUES (?, ?)", (version_id, now()))

    def finish_gate(
        self,
        version_id: int,
        *,
        passed: bool,
        reasons: Sequence[str],
        report: Mapping[str, Any] | None,
        build_log: str | None,
    ) -> None:
        with self._write() as db:
            db.execute(
                "UPDATE gates SET finished_at = ?, passed = ?, reasons = ?, report = ?, build_log = ? "
                "WHERE version_id = ?",
                (now(), int(passed), json.dumps(list(reasons)), None if report is None else json.dumps(report),
                 build_log, version_id),
            )  # fmt: skip

    def gate(self, version_id: int) -> GateRecord | None:
        rows = self._read(
            "SELECT version_id, started_at, finished_at, passed, reasons, report, build_log FROM gates "
            "WHERE version_id = ?",
            (version_id,),
        )
        if not rows:
            return None
        vid, started, finished, passed, reasons, report, build_log = rows[0]
        return GateRecord(
            vid, started, finished, None if passed is None else bool(passed), tuple(json.loads(reasons)), report,
            build_log,
        )  # fmt: skip

    # ------------------------------------------------------------------------------------------ epochs

    def open_epoch(
        self, scheme: str, commitment: str, secret_hex: str, rules: Mapping[str, Any] | None = None
    ) -> Epoch:
        """A new epoch, open; ``rules``: the ruleset options its deals are dealt for (None: the standard ones)."""
        with self._write() as db:
            cur = db.execute(
                "INSERT INTO epochs(scheme, commitment, secret, opened_at, rules) VALUES (?, ?, ?, ?, ?)",
                (scheme, commitment, secret_hex, now(), json.dumps(dict(rules or {}), sort_keys=True)),
            )
            epoch_id = int(cur.lastrowid or 0)
        return self.epoch(epoch_id)

    def close_epoch(self, epoch_id: int, *, reveal: bool = False) -> None:
        """No new block is dealt in the epoch; with ``reveal``, its secret is revealed at once too."""
        stamp = now()
        with self._write() as db:
            db.execute("UPDATE epochs SET closed_at = ? WHERE id = ? AND closed_at IS NULL", (stamp, epoch_id))
            if reveal:
                db.execute("UPDATE epochs SET revealed_at = ? WHERE id = ? AND revealed_at IS NULL", (stamp, epoch_id))

    def reveal_epoch(self, epoch_id: int) -> None:
        """Reveal a closed epoch's secret, with the hash chain's head as it stands (published with it)."""
        head = self.chain_head()
        with self._write() as db:
            db.execute(
                "UPDATE epochs SET revealed_at = ?, chain_head = ? WHERE id = ? AND closed_at IS NOT NULL "
                "AND revealed_at IS NULL",
                (now(), head, epoch_id),
            )

    def epochs_to_reveal(self) -> list[int]:
        """Closed epochs not revealed yet, with no block in play."""
        rows = self._read(
            "SELECT e.id FROM epochs e WHERE e.closed_at IS NOT NULL AND e.revealed_at IS NULL AND NOT EXISTS "
            "(SELECT 1 FROM blocks b WHERE b.epoch_id = e.id AND b.state = 'playing') ORDER BY e.id"
        )
        return [int(r[0]) for r in rows]

    def blocks_in_epoch(self, epoch_id: int) -> int:
        return int(self._read("SELECT count(*) FROM blocks WHERE epoch_id = ?", (epoch_id,))[0][0])

    def epoch(self, epoch_id: int) -> Epoch:
        rows = self._read(
            "SELECT e.id, e.scheme, e.commitment, e.opened_at, e.closed_at, e.revealed_at, e.secret, "
            "(SELECT count(*) FROM blocks b WHERE b.epoch_id = e.id AND b.state = 'done'), e.chain_head "
            "FROM epochs e WHERE e.id = ?",
            (epoch_id,),
        )
        if not rows:
            raise NotFound(f"no epoch {epoch_id}")
        eid, scheme, commitment, opened, closed, revealed, secret, blocks, head = rows[0]
        shown = secret if revealed else None
        return Epoch(eid, scheme, commitment, opened, closed, revealed, shown, blocks, head if revealed else None)

    def epochs(self) -> list[Epoch]:
        return [self.epoch(r[0]) for r in self._read("SELECT id FROM epochs ORDER BY id")]

    def open_epoch_now(self) -> Epoch | None:
        """The epoch still open, if any (the newest one without a close)."""
        epoch_id = self.open_epoch_id()
        return None if epoch_id is None else self.epoch(epoch_id)

    def open_epoch_id(self) -> int | None:
        """The id of the epoch still open, if any: ``open_epoch_now`` without counting its blocks (read per block)."""
        rows = self._read("SELECT id FROM epochs WHERE closed_at IS NULL ORDER BY id DESC LIMIT 1")
        return int(rows[0][0]) if rows else None

    def epoch_rules(self, epoch_id: int) -> dict[str, Any]:
        return dict(json.loads(self._read("SELECT rules FROM epochs WHERE id = ?", (epoch_id,))[0][0]))

    def epoch_secret(self, epoch_id: int) -> str:
        """The secret of an epoch, open or not: for ``serve`` to deal from, never to show before its close."""
        return str(self._read("SELECT secret FROM epochs WHERE id = ?", (epoch_id,))[0][0])

    # ------------------------------------------------------------------------------------------ blocks

    def create_block(
        self, epoch_id: int, kind: BlockKind, seats: Sequence[int], seed_of: Any, *, active_only: bool = False
    ) -> Block:
        """A new block, ``playing`` at once (so that a killed ``serve`` finds it in flight and voids it).
        ``seed_of(block_id)`` gives its deal seed once its number is known. With ``active_only``, raises
        ``Refused`` (and makes nothing) when a seat's version or entrant is no longer active."""
        stamp = now()
        with self._write() as db:
            if active_only and not _playable(db, seats):
                raise Refused("a version of the table is no longer active")
            cur = db.execute(
                "INSERT INTO blocks(epoch_id, kind, state, seats, seed, created_at) VALUES (?, ?, ?, ?, 0, ?)",
                (epoch_id, kind.value, BlockState.PLAYING.value, json.dumps(list(seats)), stamp),
            )
            block_id = int(cur.lastrowid or 0)
            seed = int(seed_of(block_id))
            db.execute("UPDATE blocks SET seed = ? WHERE id = ?", (seed, block_id))
        return Block(block_id, epoch_id, kind, BlockState.PLAYING, tuple(seats), seed, 1, stamp, None, None)

    def block(self, block_id: int) -> Block:
        rows = self._read(f"SELECT {_BLOCK_COLUMNS} FROM blocks WHERE id = ?", (block_id,))
        if not rows:
            raise NotFound(f"no block {block_id}")
        return _block(rows[0], self.block_results(block_id))

    def block_results(self, block_id: int) -> tuple[SeatRecord, ...]:
        return self.blocks_results([block_id]).get(block_id, ())

    def blocks_results(self, block_ids: Sequence[int] | None) -> dict[int, tuple[SeatRecord, ...]]:
        """The results of several blocks (None: of all) in one read: block id -> its seats' records in seat order."""
        ids = None if block_ids is None else list(block_ids)
        if ids == []:
            return {}
        rows = self._read(
            "SELECT s.block_id, s.version_id, e.name || '#' || v.number, s.total, s.games, s.forfeits, "
            "s.matchpoints, s.relative FROM block_seats s JOIN versions v ON v.id = s.version_id "
            "JOIN entrants e ON e.id = v.entrant_id "
            + ("" if ids is None else f"WHERE s.block_id IN ({', '.join('?' * len(ids))}) ")
            + "ORDER BY s.block_id, s.position",
            ids or (),
        )
        out: dict[int, list[SeatRecord]] = {}
        for block_id, *record in rows:
            out.setdefault(int(block_id), []).append(SeatRecord(*record))
        return {b: tuple(r) for b, r in out.items()}

    def blocks(
        self,
        *,
        version_id: int | None = None,
        states: Iterable[BlockState] | None = None,
        before: int | None = None,
        limit: int | None = 50,
        epoch_id: int | None = None,
        entrant_id: int | None = None,
    ) -> list[Block]:
        """Blocks newest first (of one version, of any version of one entrant, in some states, of one epoch, with
        ids below ``before`` when asked)."""
        where: list[str] = []
        args: list[Any] = []
        if epoch_id is not None:
            where.append("epoch_id = ?")
            args.append(epoch_id)
        if version_id is not None:
            where.append("id IN (SELECT block_id FROM block_seats WHERE version_id = ?)")
            args.append(version_id)
        if entrant_id is not None:
            where.append(
                "id IN (SELECT s.block_id FROM block_seats s JOIN versions v ON v.id = s.version_id "
                "WHERE v.entrant_id = ?)"
            )
            args.append(entrant_id)
        if states is not None:
            wanted = [s.value for s in states]
            where.append(f"state IN ({', '.join('?' * len(wanted))})")
            args.extend(wanted)
        if before is not None:
            where.append("id < ?")
            args.append(before)
        sql = f"SELECT {_BLOCK_COLUMNS} FROM blocks" + (f" WHERE {' AND '.join(where)}" if where else "")
        sql += " ORDER BY id DESC" + ("" if limit is None else f" LIMIT {int(limit)}")
        return [_block(r) for r in self._read(sql, args)]

    def void_block(self, block_id: int, reason: str) -> None:
        """A block that stopped for a reason not a bot's: ``void`` (never counted), to be played again."""
        with self._write() as db:
            db.execute("DELETE FROM seats WHERE game_id IN (SELECT id FROM games WHERE block_id = ?)", (block_id,))
            db.execute("DELETE FROM faults WHERE game_id IN (SELECT id FROM games WHERE block_id = ?)", (block_id,))
            db.execute("DELETE FROM games WHERE block_id = ?", (block_id,))
            db.execute(
                "INSERT INTO voids SELECT id, attempts, ?, ? FROM blocks WHERE id = ? AND state = 'playing'",
                (reason, now(), block_id),
            )
            db.execute(
                "UPDATE blocks SET state = ?, reason = ? WHERE id = ? AND state = 'playing'",
                (BlockState.VOID.value, reason, block_id),
            )

    def replay_block(self, block_id: int) -> Block:
        """A void block played again: ``playing``, its attempts counted up. Raises ``Refused`` (and leaves it void)
        when a seat's version or entrant is no longer active."""
        with self._write() as db:
            seats = db.execute("SELECT seats FROM blocks WHERE id = ?", (block_id,)).fetchone()
            if seats is None or not _playable(db, json.loads(seats[0])):
                raise Refused(f"block {block_id}: a version of its table is no longer active")
            db.execute(
                "UPDATE blocks SET state = ?, attempts = attempts + 1, reason = NULL WHERE id = ? AND state = 'void'",
                (BlockState.PLAYING.value, block_id),
            )
        return self.block(block_id)

    def voids(self, block_id: int) -> list[tuple[int, str, str]]:
        """(attempt, reason, time) of each voided attempt of a block."""
        return [tuple(r) for r in self._read("SELECT attempt, reason, at FROM voids WHERE block_id = ?", (block_id,))]

    def recent_voids(self, limit: int = 20) -> list[tuple[int, int, str, str]]:
        """(block, attempt, reason, time) of the last ``limit`` voided attempts of any block, newest first."""
        sql = "SELECT block_id, attempt, reason, at FROM voids ORDER BY at DESC, block_id DESC LIMIT ?"
        return [tuple(r) for r in self._read(sql, (int(limit),))]

    def commit_block(
        self,
        block_id: int,
        games: Sequence[GameRow],
        results: Sequence[SeatRecord],
        ratings: Mapping[int, tuple[float, float]],
        transitions: Mapping[int, tuple[VersionState, str | None]] = {},
    ) -> set[int]:
        """Commit a finished block in one transaction: its games (seats, faults), each version's result on it,
        their counters, live ratings (and rating history), and ``transitions`` (version -> new state, reason:
        placement done), each applied only to a version still in placement (``move_version``). Returns the
        versions whose transition applied. A block that is no longer ``playing`` (voided meanwhile) is left as it
        is."""
        stamp = now()
        with self._write() as db:
            state = db.execute("SELECT state FROM blocks WHERE id = ?", (block_id,)).fetchone()
            if state is None or state[0] != BlockState.PLAYING.value:
                return set()
            ids = [f"{block_id}.{g.rotation}" for g in games]
            db.executemany(
                "INSERT INTO games VALUES (?, ?, ?, ?, ?, ?)",
                [(gid, block_id, g.rotation, g.log_path, g.duration, stamp) for gid, g in zip(ids, games, strict=True)],
            )
            db.executemany(
                "INSERT INTO seats VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (gid, seat, vid, g.scores[seat], g.ranks[seat], int(g.forfeits[seat]))
                    for gid, g in zip(ids, games, strict=True)
                    for seat, vid in enumerate(g.seats)
                ],
            )
            faults = [
                (gid, f.seat, g.seats[f.seat], f.kind, f.round, f.turn, f.detail, f.line)
                for gid, g in zip(ids, games, strict=True)
                for f in g.faults
            ]
            if faults:
                db.executemany("INSERT INTO faults VALUES (?, ?, ?, ?, ?, ?, ?, ?)", faults)
            db.executemany(
                "INSERT INTO block_seats VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (block_id, r.version_id, i, r.total, r.games, r.forfeits, r.matchpoints, r.relative)
                    for i, r in enumerate(results)
                ],
            )
            db.executemany(
                "UPDATE versions SET mu = ?, sigma = ?, blocks = blocks + 1, games = games + ?, "
                "forfeits = forfeits + ?, placement_left = max(placement_left - (state = 'placement'), 0) "
                "WHERE id = ?",
                [(*ratings[r.version_id], r.games, r.forfeits, r.version_id) for r in results],
            )
            db.executemany(
                "INSERT INTO ratings VALUES (?, ?, ?, ?)",
                [(r.version_id, block_id, *ratings[r.version_id]) for r in results],
            )
            self._chain(db, ids, games)
            units = sorted(
                (r.version_id, round(r.matchpoints * MP_UNIT), round(r.relative * REL_UNIT)) for r in results
            )
            db.executemany(
                "INSERT INTO version_sums VALUES (?, 1, ?, ?, ?, ?) ON CONFLICT(version_id) DO UPDATE SET "
                "n = n + 1, mp = mp + excluded.mp, mp2 = mp2 + excluded.mp2, rel = rel + excluded.rel, "
                "rel2 = rel2 + excluded.rel2",
                [(v, mp, mp * mp, rel, rel * rel) for v, mp, rel in units],
            )
            db.executemany(
                "INSERT INTO pair_sums VALUES (?, ?, 1, ?, ?, ?) ON CONFLICT(a, b) DO UPDATE SET n = n + 1, "
                "ab = ab + excluded.ab, sa = sa + excluded.sa, sb = sb + excluded.sb",
                [(a, b, mpa * mpb, mpa, mpb) for (a, mpa, _), (b, mpb, _) in itertools.combinations(units, 2)],
            )
            db.execute("INSERT INTO meta VALUES ('blocks_done', '1') ON CONFLICT(key) DO UPDATE SET value = value + 1")
            db.execute(
                "INSERT INTO meta VALUES ('games_done', ?) ON CONFLICT(key) DO UPDATE SET value = value + ?",
                (len(games), len(games)),
            )
            moved = {
                vid for vid, (to, reason) in transitions.items() if _move(db, vid, to, reason, stamp, only=_PLACING)
            }
            db.execute(
                "UPDATE blocks SET state = ?, finished_at = ? WHERE id = ?", (BlockState.DONE.value, stamp, block_id)
            )
        return moved

    # ------------------------------------------------------------------------------------------ hash chain

    def _genesis(self, db: sqlite3.Connection) -> str | None:
        row = db.execute("SELECT value FROM meta WHERE key = 'created_at'").fetchone()
        scheme = db.execute("SELECT value FROM meta WHERE key = 'chain_scheme'").fetchone()
        if row is None or scheme is None or scheme[0] != CHAIN_SCHEME:
            return None
        return genesis("referee-ladder", str(row[0]))

    def _chain(self, db: sqlite3.Connection, game_ids: Sequence[str], games: Sequence[GameRow]) -> None:
        """Link the block's games (just inserted) to the chain, in rotation order."""
        first = self._genesis(db)
        if first is None:
            return  # a ladder made before the chain
        last = db.execute("SELECT position, link FROM chain ORDER BY position DESC LIMIT 1").fetchone()
        position, previous = (0, first) if last is None else (int(last[0]), str(last[1]))
        rows = []
        for gid, g in zip(game_ids, games, strict=True):
            record = _game_record(db, gid) or ""
            log = g.log_sha256 or log_digest(None if g.log_path is None else self.path.parent / g.log_path) or NO_LOG
            previous = link(previous, record, log)
            position += 1
            rows.append((position, gid, record, log, previous))
        db.executemany("INSERT INTO chain VALUES (?, ?, ?, ?, ?)", rows)

    def chain_head(self) -> str | None:
        """The chain's last link (its genesis before the first game); None for a ladder made before the chain."""
        db = self._db()
        try:
            first = self._genesis(db)
            row = db.execute("SELECT link FROM chain ORDER BY position DESC LIMIT 1").fetchone()
        except sqlite3.Error as exc:
            raise self._database.failure("read", exc) from exc
        return None if first is None else (first if row is None else str(row[0]))

    def audit_chain(self, head: str | None = None) -> ChainAudit:
        """Every stored game checked against the hash chain (``referee.contest.chain.audit``): its rows and its
        log against their digests at storage time, the links, games gone or added (after ``head`` when given).
        Raises ``LadderStoreError`` for a ladder made before the chain."""
        db = self._db()
        try:
            with self.snapshot():
                first = self._genesis(db)
                if first is None:
                    raise LadderStoreError(f"{self.path} was made before the ladder kept a hash chain")
                chained = db.execute("SELECT position, game_id, record, log, link FROM chain ORDER BY position")
                entries = []
                seen = set()
                for position, gid, record, log, stored_link in chained.fetchall():
                    seen.add(gid)
                    entries.append(ChainEntry(gid, position, record, log, stored_link, *self._now_digests(db, gid)))
                for (gid,) in db.execute("SELECT id FROM games").fetchall():
                    if gid not in seen:
                        entries.append(ChainEntry(gid, None, None, None, None, *self._now_digests(db, gid)))
        except sqlite3.Error as exc:
            raise self._database.failure("read", exc) from exc
        return audit(first, entries, head, grows=True)  # a ladder plays on after an epoch publishes its head

    def _now_digests(self, db: sqlite3.Connection, game_id: str) -> tuple[str | None, str | None]:
        record = _game_record(db, game_id)
        row = db.execute("SELECT log_path FROM games WHERE id = ?", (game_id,)).fetchone()
        if row is None:
            return record, None
        return record, log_digest(None if row[0] is None else self.path.parent / row[0])

    # ------------------------------------------------------------------------------------------ games

    def games(self, block_id: int) -> list[GameRecord]:
        games = self._read(
            "SELECT id, block_id, rotation, log_path, duration, finished_at FROM games WHERE block_id = ? "
            "ORDER BY rotation",
            (block_id,),
        )
        return [self._game(row) for row in games]

    def game(self, game_id: str) -> GameRecord | None:
        rows = self._read(
            "SELECT id, block_id, rotation, log_path, duration, finished_at FROM games WHERE id = ?", (game_id,)
        )
        return self._game(rows[0]) if rows else None

    def _game(self, row: Sequence[Any]) -> GameRecord:
        game_id, block_id, rotation, log_path, duration, finished = row
        seats = self._read(
            "SELECT version_id, score, rank, forfeit FROM seats WHERE game_id = ? ORDER BY seat", (game_id,)
        )
        return GameRecord(
            game_id, block_id, rotation, tuple(s[0] for s in seats), tuple(s[1] for s in seats),
            tuple(s[2] for s in seats), tuple(bool(s[3]) for s in seats), log_path, duration, finished,
        )  # fmt: skip

    def faults(
        self, version_id: int, limit: int = 100
    ) -> list[tuple[str, int, str, int | None, int | None, str, str | None]]:
        """(game id, seat, kind, round, turn, detail, line) of a version's latest faults, newest first."""
        return [
            tuple(r)
            for r in self._read(
                "SELECT game_id, seat, kind, round, turn, detail, line FROM faults WHERE version_id = ? "
                "ORDER BY rowid DESC LIMIT ?",
                (version_id, limit),
            )
        ]

    def fault_kinds(self, version_id: int) -> dict[str, int]:
        rows = self._read("SELECT kind, count(*) FROM faults WHERE version_id = ? GROUP BY kind", (version_id,))
        return {k: int(n) for k, n in rows}

    def rating_history(self, version_id: int) -> list[tuple[int, float, float]]:
        """(block, mu, sigma) of a version's live rating after each of its blocks, in block order."""
        rows = self._read(
            "SELECT block_id, mu, sigma FROM ratings WHERE version_id = ? ORDER BY block_id", (version_id,)
        )
        return [(int(b), float(mu), float(sigma)) for b, mu, sigma in rows]

    def block_outcomes(self, version_ids: Iterable[int] | None = None) -> list[tuple[int, int, float, float, int, int]]:
        """(block, version, matchpoints, relative, forfeits, games) of every done block, of some versions when
        asked, in block order: what the official standing is computed from."""
        sql = (
            "SELECT s.block_id, s.version_id, s.matchpoints, s.relative, s.forfeits, s.games FROM block_seats s "
            "JOIN blocks b ON b.id = s.block_id WHERE b.state = 'done'"
        )
        args: list[Any] = []
        if version_ids is not None:
            ids = list(version_ids)
            sql += f" AND s.version_id IN ({', '.join('?' * len(ids))})"
            args = ids
        return [tuple(r) for r in self._read(sql + " ORDER BY s.block_id, s.position", args)]

    def blocks_per_entrant_since(self, since: str) -> list[tuple[int, int]]:
        """(entrant, done blocks finished at or after ``since``) for each entrant that played one."""
        return [
            (int(e), int(n))
            for e, n in self._read(
                "SELECT v.entrant_id, count(DISTINCT s.block_id) FROM block_seats s JOIN blocks b ON b.id = s.block_id "
                "JOIN versions v ON v.id = s.version_id WHERE b.state = 'done' AND b.finished_at >= ? "
                "GROUP BY v.entrant_id",
                (since,),
            )
        ]

    def seconds_per_entrant_since(self, since: str) -> list[tuple[int, float]]:
        """(entrant, the seconds of its done blocks finished at or after ``since``, each block's games' time shared
        equally among its seats) for each entrant that played one."""
        return [
            (int(e), float(t))
            for e, t in self._read(
                "SELECT v.entrant_id, sum(d.t / d.k) FROM (SELECT g.block_id AS id, sum(g.duration) AS t, "
                "count(*) AS k FROM games g JOIN blocks b ON b.id = g.block_id WHERE b.state = 'done' "
                "AND b.finished_at >= ? GROUP BY g.block_id) d JOIN block_seats s ON s.block_id = d.id "
                "JOIN versions v ON v.id = s.version_id GROUP BY v.entrant_id",
                (since,),
            )
        ]

    def meetings(self, version_ids: Sequence[int]) -> dict[tuple[int, int], int]:
        """(a, b) with a < b -> the done blocks versions a and b played together, for pairs of ``version_ids``."""
        ids = list(version_ids)
        if len(ids) < 2:
            return {}
        marks = ", ".join("?" * len(ids))
        rows = self._read(
            "SELECT a.version_id, b.version_id, count(*) FROM block_seats a JOIN block_seats b "
            f"ON a.block_id = b.block_id AND a.version_id < b.version_id WHERE a.version_id IN ({marks}) "
            f"AND b.version_id IN ({marks}) GROUP BY a.version_id, b.version_id",
            [*ids, *ids],
        )
        return {(int(a), int(b)): int(n) for a, b, n in rows}

    def last_block_ends(self, version_ids: Sequence[int]) -> dict[int, str]:
        """Version -> when its latest done block finished, for those of ``version_ids`` that played one."""
        ids = list(version_ids)
        if not ids:
            return {}
        rows = self._read(
            "SELECT s.version_id, max(b.finished_at) FROM block_seats s JOIN blocks b ON b.id = s.block_id "
            f"WHERE b.state = 'done' AND s.version_id IN ({', '.join('?' * len(ids))}) GROUP BY s.version_id",
            ids,
        )
        return {int(v): str(t) for v, t in rows}

    def block_count(self, *, state: BlockState = BlockState.DONE) -> int:
        """Blocks in ``state`` (the done ones from the counter kept with each commit)."""
        if state == BlockState.DONE:
            return int(self.meta("blocks_done") or 0)
        return int(self._read("SELECT count(*) FROM blocks WHERE state = ?", (state.value,))[0][0])

    def game_count(self) -> int:
        """Stored games (from the counter kept with each committed block)."""
        return int(self.meta("games_done") or 0)

    def standing_blocks(self, version_ids: Sequence[int]) -> list[tuple[int, int, int, int]]:
        """(block, version, total, forfeits) of every seat of every done block that holds one of ``version_ids``:
        what the official standing is fitted to (``standing.official_standing``)."""
        ids = sorted(set(version_ids))
        if not ids:
            return []
        sql = (
            "SELECT s.block_id, s.version_id, s.total, s.forfeits FROM block_seats s JOIN blocks b ON b.id = s.block_id"
            " WHERE b.state = 'done' AND s.block_id IN (SELECT block_id FROM block_seats WHERE version_id IN"
            f" ({', '.join('?' * len(ids))})) ORDER BY s.block_id, s.position"
        )
        return [(int(b), int(v), int(t), int(f)) for b, v, t, f in self._read(sql, ids)]

    def standing_sums(self, version_ids: Sequence[int]) -> StandingSums:
        """The sums the official standing of ``version_ids`` is computed from (``standing``): theirs and their
        pairs'."""
        ids = sorted(set(version_ids))
        sums = StandingSums()
        if not ids:
            return sums
        marks = ", ".join("?" * len(ids))
        for v, n, mp, mp2, rel, rel2 in self._read(f"SELECT * FROM version_sums WHERE version_id IN ({marks})", ids):
            sums.versions[int(v)] = VersionSums(n, mp, mp2, rel, rel2)
        rows = self._read(f"SELECT * FROM pair_sums WHERE a IN ({marks}) AND b IN ({marks})", [*ids, *ids])
        for a, b, n, ab, sa, sb in rows:
            sums.pairs[(int(a), int(b))] = PairSums(n, ab, sa, sb)
        return sums

    def rebuild_sums(self) -> None:
        """Recompute the standing's sums and the counters from the stored blocks (a database written before them)."""
        with self._write() as db:
            _rebuild_sums(db)

    def game_seats(self) -> Iterator[tuple[int, int, int, int, int]]:
        """(block, rotation, version, score, forfeit) of every stored game's seats, by block, rotation and seat."""
        try:
            yield from self._db().execute(
                "SELECT g.block_id, g.rotation, s.version_id, s.score, s.forfeit FROM games g "
                "JOIN seats s ON s.game_id = g.id ORDER BY g.block_id, g.rotation, s.seat"
            )
        except sqlite3.Error as exc:
            raise self._database.failure("read", exc) from exc

    def export_games(self) -> Iterator[dict[str, Any]]:
        """Every game of every done block, as JSON-ready objects in block order (for anyone to re-rate)."""
        db = self._db()
        keys = {
            vid: key
            for vid, key in self._read(
                "SELECT v.id, e.name || '#' || v.number FROM versions v JOIN entrants e ON e.id = v.entrant_id"
            )
        }
        try:
            cur = db.execute(
                "SELECT g.id, g.block_id, b.epoch_id, b.seed, g.rotation, g.finished_at, s.seat, s.version_id, "
                "s.score, s.rank, s.forfeit FROM games g JOIN blocks b ON b.id = g.block_id "
                "JOIN seats s ON s.game_id = g.id WHERE b.state = 'done' ORDER BY g.block_id, g.rotation, s.seat"
            )
            current: dict[str, Any] | None = None
            for gid, bid, epoch, seed, rotation, finished, _seat, vid, score, rank, forfeit in cur:
                if current is None or current["game"] != gid:
                    if current is not None:
                        yield current
                    current = {"game": gid, "block": bid, "epoch": epoch, "seed": seed, "rotation": rotation,
                               "finished_at": finished, "seats": []}  # fmt: skip
                current["seats"].append(
                    {"version": keys.get(vid), "score": score, "rank": rank, "forfeit": bool(forfeit)}
                )
            if current is not None:
                yield current
        except sqlite3.Error as exc:
            raise self._database.failure("read", exc) from exc
