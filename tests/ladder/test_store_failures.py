"""The ladder's store when SQLite fails (a full disk, a read-only or locked database, a COMMIT refused): one line
naming the file and what to do, SQLite's words as ``reason``, the ``sqlite3`` error as the cause, nothing half
written and the store usable again; and a ladder of an older schema brought up to date once, when opened."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from referee.contest.chain import genesis
from referee.ladder import BlockKind, BlockState, LadderStoreError, VersionState
from referee.ladder.model import SeatRecord
from referee.ladder.store import SCHEMA, GameRow, LadderStore
from tests.tournament.fakes import FakeFault


def _ladder(path: Path) -> tuple[LadderStore, int, list[int]]:
    """A new ladder with two ranked versions and a block of theirs in play: (store, block id, version ids)."""
    store = LadderStore(path, create=True)
    vids = []
    for name in ("ann", "bob"):
        entrant = store.add_entrant(name, "hash")
        version = store.add_version(
            entrant.id, digest=name, command=["python3", "bot.py"], build=None, kind="file", files=1, size=9
        )
        store.set_version_state(version.id, VersionState.RANKED)
        vids.append(version.id)
    epoch = store.open_epoch("hmac-sha256/v1", "c0ffee", "00" * 32)
    block = store.create_block(epoch.id, BlockKind.RANKED, vids, lambda _: 77)
    return store, block.id, vids


def _commit(store: LadderStore, block_id: int, vids: list[int]) -> None:
    """The block's two rotations, each with a fault whose offending line is long (a bot's garbage: pages to store)."""
    fault = FakeFault(1, "invalid_json", line="x" * 20_000)
    games = [
        GameRow(r, (vids[r], vids[1 - r]), (10, 20), (1, 2), (False, False), (fault,), None, 0.5) for r in range(2)
    ]
    results = [SeatRecord(vids[0], "", 30, 2, 0, 0.75, 5.0), SeatRecord(vids[1], "", 30, 2, 0, 0.25, -5.0)]
    store.commit_block(block_id, games, results, {v: (25.0, 8.0) for v in vids})


def _untouched(store: LadderStore, block_id: int, vids: list[int]) -> None:
    """Nothing of the failed commit is stored: the block still in play, no game, counter, sum, rating or link."""
    assert store.block(block_id).state == BlockState.PLAYING
    assert store.games(block_id) == [] and store.block_count() == 0 and store.game_count() == 0
    assert [(v.blocks, v.mu) for v in store.versions_by_id(vids).values()] == [(0, None), (0, None)]
    assert store.standing_sums(vids).versions == {} and store.rating_history(vids[0]) == []
    assert store.chain_head() == genesis("referee-ladder", str(store.meta("created_at")))


def _one_line(exc: LadderStoreError, path: Path, reason: str, advice: str) -> None:
    message = str(exc)
    assert "\n" not in message and str(path) in message and reason in message and advice in message, message
    assert exc.reason == reason
    assert isinstance(exc.__cause__, sqlite3.Error) and str(exc.__cause__) == reason


def test_a_full_disk_during_a_block_commit_names_it_keeps_nothing_and_the_store_goes_on(tmp_path: Path) -> None:
    """SQLite rolls a transaction back itself on a full disk: the store says so ("database or disk is full", not a
    failed ROLLBACK's "no transaction is active"), and once there is room the same block commits whole."""
    path = tmp_path / "ladder.sqlite"
    store, block_id, vids = _ladder(path)
    db = store._db()
    pages = db.execute("PRAGMA page_count").fetchone()[0]
    db.execute(f"PRAGMA max_page_count = {pages}")  # the disk is full: the database may not grow
    with pytest.raises(LadderStoreError) as raised:
        _commit(store, block_id, vids)
    _one_line(raised.value, path, "database or disk is full", "make room on its disk")
    assert not db.in_transaction
    _untouched(store, block_id, vids)
    db.execute(f"PRAGMA max_page_count = {pages * 100}")  # room made
    _commit(store, block_id, vids)
    assert store.block(block_id).state == BlockState.DONE and len(store.games(block_id)) == 2
    assert store.block_count() == 1 and store.game_count() == 2
    store.close()


def test_a_read_only_or_locked_database_refuses_a_write_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "ladder.sqlite"
    store, block_id, vids = _ladder(path)
    db = store._db()
    db.execute("PRAGMA query_only = 1")  # as a read-only file or disk
    with pytest.raises(LadderStoreError) as raised:
        _commit(store, block_id, vids)
    _one_line(raised.value, path, "attempt to write a readonly database", "make it and its folder writable")
    db.execute("PRAGMA query_only = 0")
    db.execute("PRAGMA busy_timeout = 0")  # no 10 s wait for the lock in a test
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process writing
    with pytest.raises(LadderStoreError) as raised:
        _commit(store, block_id, vids)
    _one_line(raised.value, path, "database is locked", "another process holds it locked")
    other.execute("COMMIT")
    other.close()
    _untouched(store, block_id, vids)
    _commit(store, block_id, vids)
    assert store.block_count() == 1
    store.close()


def test_a_refused_commit_leaves_no_transaction_open(tmp_path: Path) -> None:
    """A COMMIT that SQLite refuses (here a deferred constraint, checked only then; an I/O error at commit would do
    the same) is rolled back: nothing written, and no transaction left holding the database's write lock, so the
    next write of this store, and of any other process, goes through."""
    path = tmp_path / "ladder.sqlite"
    store = _ladder(path)[0]
    with sqlite3.connect(path) as db:  # a constraint checked at COMMIT, tripped by any new meta row
        db.execute("CREATE TABLE probe(e INTEGER REFERENCES entrants(id) DEFERRABLE INITIALLY DEFERRED)")
        db.execute("CREATE TRIGGER trip AFTER INSERT ON meta BEGIN INSERT INTO probe VALUES (-1); END")
    db.close()
    with pytest.raises(LadderStoreError) as raised:
        store.set_meta("a-new-key", "x")
    _one_line(raised.value, path, "FOREIGN KEY constraint failed", "restore it from a copy")
    assert store.meta("a-new-key") is None and not store._db().in_transaction
    other = sqlite3.connect(path, isolation_level=None, timeout=0)
    other.execute("DROP TRIGGER trip")  # the write lock is free
    other.close()
    store.set_meta("a-new-key", "y")
    assert store.meta("a-new-key") == "y"
    store.close()


#: The ladder's schema on the first day (1954667): no sums, no hash chain, epochs without revealed_at, rules and
#: chain_head, two indexes fewer.
OLD_SCHEMA = """
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE entrants(id INTEGER PRIMARY KEY, name TEXT UNIQUE NOT NULL, token TEXT NOT NULL, state TEXT NOT NULL,
    reason TEXT, created_at TEXT NOT NULL);
CREATE TABLE versions(id INTEGER PRIMARY KEY, entrant_id INTEGER NOT NULL REFERENCES entrants(id),
    number INTEGER NOT NULL, digest TEXT NOT NULL, command TEXT NOT NULL, build TEXT, kind TEXT NOT NULL,
    files INTEGER NOT NULL, size INTEGER NOT NULL, submitted_at TEXT NOT NULL, state TEXT NOT NULL, reason TEXT,
    state_at TEXT NOT NULL, mu REAL, sigma REAL, blocks INTEGER NOT NULL DEFAULT 0, games INTEGER NOT NULL DEFAULT 0,
    forfeits INTEGER NOT NULL DEFAULT 0, placement_left INTEGER NOT NULL DEFAULT 0, UNIQUE(entrant_id, number),
    UNIQUE(entrant_id, digest));
CREATE TABLE gates(version_id INTEGER PRIMARY KEY REFERENCES versions(id), started_at TEXT NOT NULL,
    finished_at TEXT, passed INTEGER, reasons TEXT NOT NULL DEFAULT '[]', report TEXT, build_log TEXT);
CREATE TABLE epochs(id INTEGER PRIMARY KEY, scheme TEXT NOT NULL, commitment TEXT NOT NULL, secret TEXT NOT NULL,
    opened_at TEXT NOT NULL, closed_at TEXT);
CREATE TABLE blocks(id INTEGER PRIMARY KEY, epoch_id INTEGER NOT NULL REFERENCES epochs(id), kind TEXT NOT NULL,
    state TEXT NOT NULL, seats TEXT NOT NULL, seed INTEGER NOT NULL, attempts INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL, finished_at TEXT, reason TEXT);
CREATE TABLE block_seats(block_id INTEGER NOT NULL REFERENCES blocks(id),
    version_id INTEGER NOT NULL REFERENCES versions(id), position INTEGER NOT NULL, total INTEGER NOT NULL,
    games INTEGER NOT NULL, forfeits INTEGER NOT NULL, matchpoints REAL NOT NULL, relative REAL NOT NULL,
    PRIMARY KEY (block_id, version_id));
CREATE TABLE games(id TEXT PRIMARY KEY, block_id INTEGER NOT NULL REFERENCES blocks(id), rotation INTEGER NOT NULL,
    log_path TEXT, duration REAL NOT NULL, finished_at TEXT NOT NULL);
CREATE TABLE seats(game_id TEXT NOT NULL REFERENCES games(id), seat INTEGER NOT NULL,
    version_id INTEGER NOT NULL REFERENCES versions(id), score INTEGER NOT NULL, rank INTEGER NOT NULL,
    forfeit INTEGER NOT NULL, PRIMARY KEY (game_id, seat));
CREATE TABLE faults(game_id TEXT NOT NULL REFERENCES games(id), seat INTEGER NOT NULL,
    version_id INTEGER NOT NULL REFERENCES versions(id), kind TEXT NOT NULL, round INTEGER, turn INTEGER,
    detail TEXT NOT NULL, line TEXT);
CREATE TABLE ratings(version_id INTEGER NOT NULL REFERENCES versions(id),
    block_id INTEGER NOT NULL REFERENCES blocks(id), mu REAL NOT NULL, sigma REAL NOT NULL,
    PRIMARY KEY (version_id, block_id));
CREATE TABLE voids(block_id INTEGER NOT NULL REFERENCES blocks(id), attempt INTEGER NOT NULL, reason TEXT NOT NULL,
    at TEXT NOT NULL);
INSERT INTO meta VALUES ('schema_version', '1'), ('created_at', '2026-12-01T17:30:00+00:00');
INSERT INTO entrants VALUES (1, 'ann', 'h', 'active', NULL, 't'), (2, 'bob', 'h', 'active', NULL, 't');
INSERT INTO versions(id, entrant_id, number, digest, command, kind, files, size, submitted_at, state, state_at)
    VALUES (1, 1, 1, 'a', '["a"]', 'file', 1, 1, 't', 'ranked', 't'), (2, 2, 1, 'b', '["b"]', 'file', 1, 1, 't',
    'ranked', 't');
INSERT INTO epochs VALUES (1, 'hmac-sha256/v1', 'c0ffee', 'beef', 't', 't');
INSERT INTO blocks VALUES (1, 1, 'ranked', 'done', '[1, 2]', 5, 1, 't', 't', NULL);
INSERT INTO block_seats VALUES (1, 1, 0, 40, 2, 0, 0.75, 4.0), (1, 2, 1, 20, 2, 0, 0.25, -4.0);
INSERT INTO games VALUES ('1.0', 1, 0, NULL, 1.0, 't'), ('1.1', 1, 1, NULL, 1.0, 't');
"""


def test_a_ladder_of_the_first_schema_is_brought_up_to_date_once(tmp_path: Path) -> None:
    """Opening a ladder made on the first day adds what came since (the tables of the sums and of the hash chain,
    the epochs' columns, the indexes) and sums up its done blocks, in one transaction, once: the steps are not
    run again at the next opening (a counter changed by hand since stays as it is)."""
    path = tmp_path / "ladder.sqlite"
    with sqlite3.connect(path) as db:
        db.executescript(OLD_SCHEMA)
    db.close()
    with LadderStore(path) as store:
        epoch = store.epoch(1)  # epochs.revealed_at and chain_head are read here
        assert (epoch.closed_at, epoch.revealed_at, epoch.chain_head) == ("t", None, None)
        assert store.epoch_rules(1) == {}
        assert store.block_count() == 1 and store.game_count() == 2
        sums = store.standing_sums([1, 2])
        assert (sums.versions[1].n, sums.pairs[(1, 2)].n) == (1, 1)
        assert store.chain_head() == genesis("referee-ladder", "2026-12-01T17:30:00+00:00")
        store.reveal_epoch(1)  # closed, nothing in play: revealed with the chain's head
        assert store.epoch(1).chain_head == store.chain_head()
        assert store._db().execute("PRAGMA user_version").fetchone()[0] == len(SCHEMA.migrations)
        store.set_meta("games_done", "7")  # by hand: a step run again would count the games anew
    with LadderStore(path) as store:
        assert store.game_count() == 7 and store.meta("schema_version") == "1"
    indexes = {r[0] for r in sqlite3.connect(path).execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"blocks_by_epoch", "ratings_by_version", "pair_sums_by_b"} <= indexes


def test_a_newer_or_foreign_database_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    newer = tmp_path / "newer.sqlite"
    LadderStore(newer, create=True).close()
    with sqlite3.connect(newer) as db:
        db.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
        db.execute("PRAGMA user_version = 9")
    db.close()
    with pytest.raises(LadderStoreError, match="ladder database schema version 2; this referee reads version 1"):
        LadderStore(newer)
    foreign = tmp_path / "foreign.sqlite"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE t(x)")
    db.close()
    with pytest.raises(LadderStoreError, match=r"is not a ladder database .*referee ladder init") as raised:
        LadderStore(foreign)
    assert "\n" not in str(raised.value)
    tables = {r[0] for r in sqlite3.connect(foreign).execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert tables == {"t"}


def _shape(path: Path) -> set[tuple[str, ...]]:
    """Every table's columns (name, declared type, not null, default) and every index of a database."""
    db = sqlite3.connect(path)
    names = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
    shape = {(t, c[1], c[2], str(c[3]), str(c[4])) for t in names for c in db.execute(f"PRAGMA table_info({t})")}
    shape |= {("index", r[0]) for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    db.close()
    return shape


#: What a new ladder's tables look like, and the migration steps that make them: a ladder is brought up to date by
#: the steps it has not had, so a table, column or index added to the schema needs a step at the end of
#: ``SCHEMA.migrations`` (else ladders made since the last step never get it): then update both numbers here.
SHAPE = ("1170f5221caa6433", 5)


def test_an_old_ladder_ends_up_as_a_new_one_and_a_schema_change_comes_with_a_step(tmp_path: Path) -> None:
    with sqlite3.connect(tmp_path / "old.sqlite") as db:
        db.executescript(OLD_SCHEMA)
    db.close()
    LadderStore(tmp_path / "old.sqlite").close()
    LadderStore(tmp_path / "new.sqlite", create=True).close()
    new = _shape(tmp_path / "new.sqlite")
    assert _shape(tmp_path / "old.sqlite") == new
    digest = hashlib.sha256(repr(sorted(new)).encode()).hexdigest()[:16]
    assert (digest, len(SCHEMA.migrations)) == SHAPE, "a schema change needs a migration step: see SHAPE"
