"""Issue 25, item 6: results edited after the fact are noticed. Every stored game is chained (its rows and its log,
in storage order); ``referee audit`` and ``verify-deals`` name every game that differs, is missing or was added."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from referee.contest.chain import ChainEntry, audit, genesis, link
from referee.tournament import DealSecret, ResultsStore, make_schedule
from referee.tournament.verify_deals import audit_results

from .conftest import referee
from .fakes import FakeFault, FakeResult
from .test_store import NAMES, params


def _stored(folder: Path) -> str:
    """A results folder of six games (with logs, a fault), revealed; its published chain head."""
    with ResultsStore(folder) as store:
        store.initialise(params(repeats=2), DealSecret(b"\x05" * 32))  # type: ignore[arg-type]
        batches = make_schedule(NAMES, table_size=3, repeats=2, seed=9, secret=store.deal_secret())
        (folder / "games").mkdir()
        for g in (g for b in batches for g in b.games):
            log = folder / "games" / f"{g.game_id}.jsonl"
            log.write_text(f'{{"event":"game","game":"{g.game_id}"}}\n')
            faults = (FakeFault(2, "timeout"),) if g.rotation == 2 else ()
            result = FakeResult(g.game_id, g.seats, (4, 9, 6), (1, 3, 2), (2,) if faults else (), faults, log, g.seed)
            store.record_game(g, result, duration=0.25)
        store.mark_revealed()
        assert store.deals()["chain_head"] == store.chain_head()
        return str(store.chain_head())


def _edit(folder: Path, *statements: str) -> None:
    db = sqlite3.connect(folder / "results.sqlite")
    with db:
        for sql in statements:
            db.execute(sql)
    db.close()


def _problems(folder: Path, head: str | None = None) -> list[str]:
    return audit_results(folder, head).problems


def test_untouched_results_match_their_chain_and_the_published_head(tmp_path: Path) -> None:
    head = _stored(tmp_path)
    found = audit_results(tmp_path, head)
    assert found.ok and found.games == 6 and found.head == head


@pytest.mark.parametrize(
    ("edit", "named"),
    [
        (  # two seats' scores swapped: the standings change
            [
                "UPDATE seats SET score = 9 WHERE game_id = 'g000002' AND seat = 0",
                "UPDATE seats SET score = 4 WHERE game_id = 'g000002' AND seat = 1",
            ],
            ["g000002: its stored result differs from the one chained when it was stored"],
        ),
        (  # a forfeit taken away
            ["DELETE FROM faults WHERE game_id = 'g000003'", "UPDATE seats SET forfeit = 0 WHERE game_id = 'g000003'"],
            ["g000003: its stored result differs from the one chained when it was stored"],
        ),
        (  # a game deleted, rows only
            [f"DELETE FROM {t} WHERE game_id = 'g000004'" for t in ("seats", "faults", "replays", "games")],
            ["g000004: missing (its rows are gone from the results)"],
        ),
        (  # a game deleted with its place in the chain
            [f"DELETE FROM {t} WHERE game_id = 'g000004'" for t in ("seats", "faults", "replays", "games", "chain")],
            [
                "the game stored at place 4 of the chain: gone (rows and links)",
                "g000005: its link in the chain is not the one its stored digests give",
            ],
        ),
        (  # a game added
            [
                "INSERT INTO games SELECT 'g000099', 99, batch, repeat, rotation, players, seed, log_path, duration, "
                "finished_at FROM games WHERE game_id = 'g000001'",
                "INSERT INTO seats SELECT 'g000099', seat, entrant, score, rank, forfeit FROM seats "
                "WHERE game_id = 'g000001'",
            ],
            ["g000099: added (it has no place in the chain)"],
        ),
    ],
)
def test_an_edited_deleted_or_added_game_is_named(tmp_path: Path, edit: list[str], named: list[str]) -> None:
    head = _stored(tmp_path)
    _edit(tmp_path, *edit)
    assert _problems(tmp_path, head) == named


def test_an_edited_game_log_is_named(tmp_path: Path) -> None:
    head = _stored(tmp_path)
    log = tmp_path / "games" / "g000005.jsonl"
    log.write_text(log.read_text().replace("g000005", "g000006"))
    (tmp_path / "games" / "g000001.jsonl").unlink()
    assert _problems(tmp_path, head) == [
        "g000001: its game log is gone",
        "g000005: its game log differs from the one chained when it was stored",
    ]


def test_a_chain_rewritten_after_an_edit_shows_against_the_published_head(tmp_path: Path) -> None:
    """Whoever edits a game and recomputes every digest and link after it gets a chain that agrees with itself;
    only the head published when the tournament ended tells."""
    head = _stored(tmp_path)
    _edit(tmp_path, "UPDATE seats SET score = 0 WHERE game_id = 'g000001' AND seat = 2")
    with ResultsStore(tmp_path) as store:
        entries = store.audit_chain().problems
        assert entries == ["g000001: its stored result differs from the one chained when it was stored"]
    from referee.tournament.store import game_record

    db = sqlite3.connect(tmp_path / "results.sqlite")
    with db:
        rows = db.execute("SELECT position, game_id, log FROM chain ORDER BY position").fetchall()
        meta = dict(db.execute("SELECT key, value FROM meta"))
        previous = genesis(meta["deal_commitment"], meta["params"])
        for position, game_id, log in rows:
            record = game_record(db, game_id)
            assert record is not None
            previous = link(previous, record, log)
            db.execute("UPDATE chain SET record = ?, link = ? WHERE position = ?", (record, previous, position))
    db.close()
    assert audit_results(tmp_path).ok  # consistent with itself...
    assert _problems(tmp_path, head) == [f"the chain's head is {previous}, not the published {head}"]


def test_games_after_the_published_head_are_added() -> None:
    first = genesis("commitment", "params")
    links = [first]
    entries = []
    for i in range(3):
        links.append(link(links[-1], f"r{i}", f"l{i}"))
        entries.append(ChainEntry(f"g{i}", i + 1, f"r{i}", f"l{i}", links[-1], f"r{i}", f"l{i}"))
    found = audit(first, entries, head=links[2])
    assert found.problems == ["g2: added after the published head"]
    assert audit(first, entries, head=links[3]).ok


def test_the_cli_names_what_differs_and_exits_1(tmp_path: Path) -> None:
    """``referee audit`` (and ``verify-deals``, which checks the chain as well as the deals) on results whose
    scores were swapped by hand: one line per game, exit status 1; the untouched results pass."""
    head = _stored(tmp_path / "r")
    done = referee("audit", tmp_path / "r", "--head", head)
    assert done.returncode == 0 and f"all 6 stored games match their hash chain (head {head}, the published head)" in (
        done.stdout
    )
    _edit(
        tmp_path / "r",
        "UPDATE seats SET score = 9 WHERE game_id = 'g000002' AND seat = 0",
        "UPDATE seats SET score = 4 WHERE game_id = 'g000002' AND seat = 1",
    )
    done = referee("audit", tmp_path / "r", "--head", head)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        f"{tmp_path / 'r'}: DIFFERS: g000002: its stored result differs from the one chained when it was stored"
    ]
    assert referee("audit", tmp_path / "nothing").returncode == 2
