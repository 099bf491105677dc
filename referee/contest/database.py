"""One SQLite database as the stores keep it (a results folder's ``ResultsStore``, the ladder's ``LadderStore``).

``Database`` opens connections with the pragmas both rely on (WAL, so a killed process leaves the file whole and
readers never wait for the writer; foreign keys; a 10 s wait for a lock), or read-only (SQLite's ``mode=ro``, never
writing, not even its schema); changes it in ``BEGIN IMMEDIATE`` transactions that commit whole or not at all (rolled
back only while SQLite still holds them open: after a full disk SQLite has already rolled back itself); reads it in
snapshots (one read transaction); and brings its schema up to date with the store's declared ``Migration`` steps,
in order, in one transaction, counted in SQLite's ``user_version`` so that each step runs once.

Every ``sqlite3`` error leaves as the store's own error: one line naming the
file, what failed, SQLite's words and what to do, with SQLite's words as ``reason`` and the ``sqlite3`` error as
its cause.
"""

from __future__ import annotations

import contextlib
import errno
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import quote

__all__ = ["PRAGMAS", "Database", "Migration", "Schema", "StoreErrorType", "create_tables"]

#: The pragmas of a connection that writes: the lock wait first (switching to WAL may wait for one).
PRAGMAS = ("busy_timeout=10000", "journal_mode=WAL", "synchronous=NORMAL", "foreign_keys=ON")

#: What to do, by SQLite's primary error code (``sqlite_errorname`` without its extended part).
_ADVICE = {
    "SQLITE_FULL": "make room on its disk, then try again",
    "SQLITE_READONLY": "make it and its folder writable, then try again",
    "SQLITE_PERM": "make it and its folder writable, then try again",
    "SQLITE_BUSY": "another process holds it locked: try again once that one is done",
    "SQLITE_LOCKED": "another process holds it locked: try again once that one is done",
    "SQLITE_CORRUPT": "it is damaged or not a {label}: restore it from a copy",
    "SQLITE_NOTADB": "it is damaged or not a {label}: restore it from a copy",
    "SQLITE_CANTOPEN": "check that it and its folder exist and can be read",
    "SQLITE_IOERR": "check its disk, then try again",
}
_OTHER = "its tables are not as this referee writes them (changed by another program?): restore it from a copy"
_OS_ADVICE = {
    errno.ENOSPC: "SQLITE_FULL",
    errno.EDQUOT: "SQLITE_FULL",
    errno.EROFS: "SQLITE_READONLY",
    errno.EACCES: "SQLITE_READONLY",
    errno.EPERM: "SQLITE_READONLY",
}


class StoreErrorType(Protocol):
    """A store's error class: one line, and SQLite's own words (or the line itself) as ``reason``."""

    def __call__(self, message: str, *, reason: str | None = None) -> Exception: ...


@dataclass(frozen=True, slots=True)
class Migration:
    """One step of a schema's history: ``apply`` brings a database of the step before up to this one, inside the
    transaction that counts it. A database written before the steps were counted (``user_version`` 0) gets every
    step, so each must leave alone what a database already has (``IF NOT EXISTS``, a column only where missing)."""

    name: str
    apply: Callable[[sqlite3.Connection], None]


@dataclass(frozen=True, slots=True)
class Schema:
    """A store's schema: ``version``, the ``meta`` table's ``schema_version`` (a referee refuses any other: raise it
    only for a change an older referee cannot read), and its ``migrations`` in order (``user_version`` counts the
    ones applied; add a step at the end, never change one)."""

    version: str
    migrations: tuple[Migration, ...]


def create_tables(script: str) -> Callable[[sqlite3.Connection], None]:
    """A migration step running ``script``'s statements (``CREATE ... IF NOT EXISTS``; no ``;`` inside one) one by
    one, inside the step's transaction (``executescript`` would commit it first)."""
    statements = [s.strip() for s in script.split(";") if s.strip()]

    def apply(db: sqlite3.Connection) -> None:
        for statement in statements:
            db.execute(statement)

    return apply


def _advice(exc: BaseException, label: str) -> str:
    if isinstance(exc, sqlite3.Error):
        name = exc.sqlite_errorname or ""
        key = "_".join(name.split("_")[:2])
    else:
        key = _OS_ADVICE.get(getattr(exc, "errno", None) or 0, "SQLITE_CANTOPEN")
    return _ADVICE.get(key, _OTHER).format(label=label)


class Database:
    """The SQLite database at ``path``, a ``label`` such as ``"ladder database"`` for messages, and the store's
    ``error`` class. Holds no connection: ``connect`` gives one (a store keeps one, or one per thread)."""

    def __init__(self, path: Path, *, label: str, error: StoreErrorType, read_only: bool = False) -> None:
        self.path = path
        self.label = label
        self.read_only = read_only
        self._error = error

    def failure(self, doing: str, exc: BaseException) -> Exception:
        """The store's error for ``exc`` met while doing ``doing`` ("read", "write", "open"): one line naming the
        file, SQLite's words (or the system's) and what to do; ``reason``: those words."""
        reason = str(exc) if isinstance(exc, sqlite3.Error) else getattr(exc, "strerror", None) or str(exc)
        advice = _advice(exc, self.label)
        return self._error(f"cannot {doing} the {self.label} {self.path}: {reason}; {advice}", reason=reason)

    def refuse(self, message: str) -> Exception:
        """The store's error for a problem the store found itself (``reason``: the message)."""
        return self._error(message)

    @contextlib.contextmanager
    def guard(self, doing: str) -> Iterator[None]:
        """Every ``sqlite3`` error inside raised as the store's error (``failure``), with the error as its cause."""
        try:
            yield
        except sqlite3.Error as exc:
            raise self.failure(doing, exc) from exc

    def connect(self, *, any_thread: bool = False) -> sqlite3.Connection:
        """A new connection in autocommit mode (the store says when transactions begin), with ``PRAGMAS``, or
        read-only; ``any_thread``: usable from threads other than this one (one at a time). Raises the store's
        error when the file cannot be opened."""
        with self.guard("read" if self.read_only else "open"):
            if self.read_only:
                uri = f"file:{quote(str(self.path.resolve()))}?mode=ro"
                db = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=not any_thread)
                pragmas: Sequence[str] = PRAGMAS[:1]
            else:
                db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=not any_thread)
                pragmas = PRAGMAS
            try:
                for pragma in pragmas:
                    db.execute(f"PRAGMA {pragma}")
            except sqlite3.Error:
                db.close()
                raise
        return db

    def rows(self, db: sqlite3.Connection, sql: str, args: Sequence[Any] = ()) -> list[Any]:
        """Every row of a query; raises the store's error when it fails."""
        with self.guard("read"):
            return db.execute(sql, args).fetchall()

    @contextlib.contextmanager
    def transaction(self, db: sqlite3.Connection) -> Iterator[sqlite3.Connection]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``: all of it or nothing. On an exception inside, or a ``COMMIT`` that
        fails, ``ROLLBACK`` while SQLite still holds the transaction open (after a full disk it has rolled back
        already: a second ROLLBACK would fail and hide the first error), so the connection is left without one.
        A failure of the database raises the store's error ("cannot write"); other exceptions pass unchanged."""
        with self.guard("write"):
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise

    @contextlib.contextmanager
    def snapshot(self, db: sqlite3.Connection) -> Iterator[None]:
        """Reads inside see one state of the database (one read transaction) while others go on writing; inside a
        transaction or snapshot already, that one's state. Raises the store's error when a read fails."""
        if db.in_transaction:
            yield
            return
        with self.guard("read"):
            db.execute("BEGIN")
            try:
                yield
            finally:
                if db.in_transaction:
                    db.execute("COMMIT")

    def version(self, db: sqlite3.Connection) -> str | None:
        """The ``schema_version`` in the ``meta`` table; None when there is none (a new file, or not a store's).
        Raises the store's error when the file cannot be read."""
        with self.guard("read"):
            if db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").fetchone() is None:
                return None
            row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
        return None if row is None else str(row[0])

    def check(self, db: sqlite3.Connection, schema: Schema) -> None:
        """Refuse (the store's error) a database of another schema version than ``schema``'s."""
        found = self.version(db)
        if found is not None and found != schema.version:
            raise self.refuse(
                f"{self.path} has {self.label} schema version {found}; this referee reads version {schema.version}: "
                "open it with the referee that made it"
            )

    def migrate(self, db: sqlite3.Connection, schema: Schema) -> int:
        """Check the version (``check``), then apply the steps of ``schema.migrations`` the database has not had yet,
        in order, in one transaction (none at all, and no write, when it is up to date; a database counting more
        steps than ours is left as it is). Returns how many were applied. Raises the store's error."""
        self.check(db, schema)
        wanted = len(schema.migrations)
        if self._applied(db) >= wanted:
            return 0
        with self.transaction(db):
            done = self._applied(db)  # another process may have brought it up to date meanwhile
            for step in schema.migrations[done:]:
                step.apply(db)
            if done < wanted:
                db.execute(f"PRAGMA user_version = {wanted}")
        return max(wanted - done, 0)

    def _applied(self, db: sqlite3.Connection) -> int:
        with self.guard("read"):
            return int(db.execute("PRAGMA user_version").fetchone()[0])
