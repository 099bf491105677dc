"""The results store: parameters round-trip, whole games only, no duplicates, refusing foreign files."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest

from referee.tournament import (
    DealSecret,
    EntrantInfo,
    Requested,
    ResultsStore,
    SeatRow,
    StoreError,
    make_schedule,
    planned_games,
    resolve_params,
    schedule_for,
)
from referee.tournament.errors import ParamsError

from .fakes import FakeFault, FakeResult

NAMES = ["a", "b", "c"]


def params(**kw: object) -> object:
    entrants = tuple(EntrantInfo(n, ("python3", f"{n}.py"), "/bots", {"K": "v"}) for n in NAMES)
    return resolve_params(None, Requested(entrants=entrants, seed=9, **kw))  # type: ignore[arg-type]


def test_params_round_trip_and_games_in_schedule_order(tmp_path: Path) -> None:
    p = params(repeats=2)
    with ResultsStore(tmp_path) as store:
        store.initialise(p, DealSecret.new())  # type: ignore[arg-type]
        games = [
            g
            for b in make_schedule(NAMES, table_size=3, repeats=2, seed=9, secret=store.deal_secret())
            for g in b.games
        ]
        for g in reversed(games):  # finishing out of order
            faults = (FakeFault(1, "timeout"), FakeFault(1, "crash")) if g.rotation == 1 else ()
            forfeits = (1,) if faults else ()
            ranks = (1, 3, 2) if faults else (1, 2, 2)
            store.record_game(
                g, FakeResult(g.game_id, g.seats, (4, 9, 6), ranks, forfeits, faults, None, g.seed), duration=0.5
            )
        store.record_game(games[0], FakeResult("x", games[0].seats, (0, 0, 0), (1, 1, 1), (), (), None, 0), duration=1)
    with ResultsStore(tmp_path, create=False) as store:
        assert store.params() == p
        assert store.game_count() == len(games) == 6
        stored = list(store.games())
        assert [s.game_id for s in stored] == [g.game_id for g in games]
        first = stored[0]
        assert first.seats == tuple(
            SeatRow(n, sc, r, None) for n, sc, r in zip(games[0].seats, (4, 9, 6), (1, 2, 2), strict=True)
        )
        second = stored[1]
        assert second.seats[1] == SeatRow(games[1].seats[1], 9, 3, "timeout"), "a forfeit's kind is its first fault"
        assert store.first_faults()[games[1].seats[1]] == (games[1].game_id, "timeout", "scripted")


def test_declared_names_keep_the_latest_and_log_paths_are_stored_relative(tmp_path: Path) -> None:
    """The entrants table keeps what each bot last declared (written only when it changes), also across a second
    store on the same database; a game log in the folder is stored relative to it, one elsewhere as it is."""
    p = params(repeats=3)
    with ResultsStore(tmp_path) as store:
        store.initialise(p, DealSecret.new())  # type: ignore[arg-type]
        games = [g for b in schedule_for(p, store.deal_secret()) for g in b.games]  # type: ignore[arg-type]
    said = [("bot", "1"), ("bot", "2"), ("bot", "2"), ("bot", "1"), (None, None)]
    logs = [tmp_path / "games" / "g.jsonl", f"{tmp_path}/./games//g.jsonl", "/elsewhere/g.jsonl", None, None]
    want_logs = ["games/g.jsonl", "games/g.jsonl", "/elsewhere/g.jsonl", None, None]
    rows = list(zip(games, said, logs, want_logs, strict=False))
    for part in (rows[:3], rows[3:]):  # a second store object on the same database knows nothing of the first's
        with ResultsStore(tmp_path) as store:
            for game, declared, log, want in part:
                result = FakeResult(game.game_id, game.seats, (1, 2, 3), (1, 2, 3), (), (), log, game.seed)  # type: ignore[arg-type]
                store.record_game(game, result, duration=0.1, declared={"a": declared})
                entrant = store._db.execute("SELECT declared_name, declared_version FROM entrants WHERE name = 'a'")
                assert entrant.fetchone() == declared
                stored = store._db.execute("SELECT log_path FROM games WHERE game_id = ?", (game.game_id,))
                assert stored.fetchone()[0] == want


def test_a_game_stored_again_after_its_rows_were_deleted_gets_its_new_replay(tmp_path: Path) -> None:
    """A resume plays again the games missing from ``games`` (deleted by hand, say, as the cluster tests do): the
    replay row the old game left is replaced by the new game's."""
    p = params()
    with ResultsStore(tmp_path) as store:
        store.initialise(p, DealSecret.new())  # type: ignore[arg-type]
        game = next(g for b in schedule_for(p, store.deal_secret()) for g in b.games)  # type: ignore[arg-type]
        for replay in ({"n": 3, "old": True}, {"n": 3, "old": False}):
            result = FakeResult(game.game_id, game.seats, (1, 2, 3), (1, 2, 3), (), (), None, game.seed, replay)
            store.record_game(game, result, duration=0.1)
            if replay["old"]:
                with sqlite3.connect(tmp_path / "results.sqlite") as db:  # by hand: foreign keys not enforced
                    for table in ("seats", "games"):
                        db.execute(f"DELETE FROM {table} WHERE game_id = ?", (game.game_id,))
                db.close()
        assert store.replays() == {game.game_id: '{"n":3,"old":false}'}


def test_resume_with_other_parameters_is_refused(tmp_path: Path) -> None:
    p = params()
    with pytest.raises(ParamsError, match="--games was 1; now 3"):
        resolve_params(p, Requested(repeats=3))  # type: ignore[arg-type]
    with pytest.raises(
        ParamsError, match=re.escape("entrant a was started with `python3 a.py`; now `python3 other.py`")
    ):
        other = (EntrantInfo("a", ("python3", "other.py"), "/bots", {"K": "v"}), *p.entrants[1:])  # type: ignore[attr-defined]
        resolve_params(p, Requested(entrants=other))  # type: ignore[arg-type]
    assert resolve_params(p, Requested(seed=9, repeats=1)) == p  # type: ignore[arg-type]


def test_foreign_files_are_refused(tmp_path: Path) -> None:
    (tmp_path / "results.sqlite").write_text("not a database at all, just text" * 100)
    with pytest.raises(StoreError, match="cannot open the results database"):
        ResultsStore(tmp_path)
    with pytest.raises(StoreError, match="holds no tournament"):
        ResultsStore(tmp_path / "empty", create=False)
    newer = tmp_path / "newer"
    with ResultsStore(newer) as store:
        store.initialise(params(), DealSecret.new())  # type: ignore[arg-type]
    with sqlite3.connect(newer / "results.sqlite") as db:
        db.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(StoreError, match="schema version 99"):
        ResultsStore(newer)


def test_a_read_only_store_reads_a_running_tournament_without_writing(tmp_path: Path) -> None:
    p = params(repeats=2)
    secret = DealSecret.new()
    games = [g for b in schedule_for(p, secret) for g in b.games]  # type: ignore[arg-type]
    with ResultsStore(tmp_path) as store:
        store.initialise(p, secret)  # type: ignore[arg-type]
        fault = FakeFault(2, "crash")
        store.record_game(
            games[0], FakeResult("g", games[0].seats, (1, 2, 3), (1, 2, 3), (2,), (fault,), None, 0), duration=1
        )
        with ResultsStore(tmp_path, read_only=True) as reader, reader.snapshot():
            assert reader.params() == p and planned_games(reader.tournament()) == len(games) == 6
            # A game finished while the reader is in its snapshot is not seen by it.
            store.record_game(
                games[1], FakeResult("h", games[1].seats, (0, 0, 0), (1, 1, 1), (), (), None, 0), duration=1
            )
            stored = list(reader.games())
            assert [g.game_id for g in stored] == [games[0].game_id]
            assert (stored[0].seed, stored[0].batch) == (games[0].seed, games[0].batch)
            assert [(f.game_id, f.seat, f.entrant, f.kind) for f in reader.faults()] == [
                (games[0].game_id, 2, games[0].seats[2], "crash")
            ]
            assert [e.name for e in reader.entrants()] == NAMES and reader.entrants()[0].argv == ("python3", "a.py")
        with ResultsStore(tmp_path, read_only=True) as reader:
            assert reader.game_count() == 2
            with pytest.raises(StoreError, match="readonly"):
                reader.set_meta("x", "y")


def test_a_read_only_store_refuses_what_is_not_a_tournament(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="holds no tournament"):
        ResultsStore(tmp_path / "nothing", read_only=True)
    assert not (tmp_path / "nothing").exists()
    (tmp_path / "results.sqlite").write_text("not a database at all, just text" * 100)
    with pytest.raises(StoreError, match="cannot read the results database"):
        ResultsStore(tmp_path, read_only=True)
    ResultsStore(tmp_path / "empty").close()
    with ResultsStore(tmp_path / "empty", read_only=True) as reader:
        assert reader.params() is None


def test_every_failure_of_the_database_is_a_store_error_naming_it(tmp_path: Path) -> None:
    """Reads and writes that SQLite refuses (a table gone, a busy or read-only database) raise ``StoreError`` with
    SQLite's reason, never ``sqlite3.Error``; a failed write leaves no part of its game behind."""
    p = params()
    with ResultsStore(tmp_path) as store:
        store.initialise(p, DealSecret.new())  # type: ignore[arg-type]
        first, second = [g for b in schedule_for(p, store.deal_secret()) for g in b.games][:2]  # type: ignore[arg-type]
        store.record_game(first, FakeResult("a", first.seats, (1, 2, 3), (1, 2, 3), (), (), None, 0), duration=1)
        with sqlite3.connect(tmp_path / "results.sqlite") as db:
            db.execute("DROP TABLE faults")
        db.close()
        fault = (FakeFault(0, "crash"),)
        result = FakeResult("b", second.seats, (1, 2, 3), (1, 2, 3), (0,), fault, None, 0)
        with pytest.raises(StoreError, match=r"cannot write the results database .*no such table: faults") as raised:
            store.record_game(second, result, duration=1)
        assert raised.value.reason == "no such table: faults"
        assert store.finished_game_ids() == {first.game_id}, "the game was rolled back whole"
        with pytest.raises(StoreError, match=r"cannot read the results database .*no such table: faults"):
            list(store.games())
        with pytest.raises(StoreError, match="no such table: faults"):
            store.faults()


def test_a_refused_commit_is_rolled_back_and_leaves_the_database_free(tmp_path: Path) -> None:
    """A COMMIT that SQLite refuses (a deferred constraint, checked only then; an I/O error at commit does the same)
    raises a ``StoreError`` naming the database, with SQLite's words and the ``sqlite3`` error as its cause; the game
    is not stored, and no transaction is left open holding the write lock: another process writes at once, and the
    game is stored when played again."""
    p = params()
    with ResultsStore(tmp_path) as store:
        store.initialise(p, DealSecret.new())  # type: ignore[arg-type]
        game = next(g for b in schedule_for(p, store.deal_secret()) for g in b.games)  # type: ignore[arg-type]
        with sqlite3.connect(tmp_path / "results.sqlite") as db:  # a constraint checked at COMMIT, tripped by a game
            db.execute("CREATE TABLE probe(e TEXT REFERENCES entrants(name) DEFERRABLE INITIALLY DEFERRED)")
            db.execute("CREATE TRIGGER trip AFTER INSERT ON games BEGIN INSERT INTO probe VALUES ('nobody'); END")
        db.close()
        result = FakeResult("a", game.seats, (1, 2, 3), (1, 2, 3), (), (), None, 0)
        with pytest.raises(StoreError, match=r"cannot write the results database .*FOREIGN KEY constraint") as raised:
            store.record_game(game, result, duration=1)
        assert "\n" not in str(raised.value) and raised.value.reason == "FOREIGN KEY constraint failed"
        assert isinstance(raised.value.__cause__, sqlite3.IntegrityError)
        assert store.finished_game_ids() == set()
        other = sqlite3.connect(tmp_path / "results.sqlite", isolation_level=None, timeout=0)
        other.execute("DROP TRIGGER trip")  # no lock left behind: at once
        other.close()
        store.record_game(game, result, duration=1)
        assert store.finished_game_ids() == {game.game_id}
