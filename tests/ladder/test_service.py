"""The service layer the shell and the web both call: entrants, tokens, versions, caps, retire, suspend."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from referee.ladder import Ladder, LadderStoreError, Refused, VersionState
from referee.ladder.tokens import check_token, hash_token, token_owner

BOT = "from referee.sdk import run\n"


@pytest.fixture
def ladder(tmp_path: Path) -> Ladder:
    made, _ = Ladder.init(tmp_path / "lad")
    yield made
    made.close()


def _bot(tmp_path: Path, text: str = BOT, name: str = "bot.py") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_init_refuses_a_folder_holding_a_ladder_and_open_refuses_other_folders(tmp_path: Path) -> None:
    made, token = Ladder.init(tmp_path / "lad")
    made.close()
    assert token.startswith("lt-admin-")
    with pytest.raises(Refused, match="holds a ladder already"):
        Ladder.init(tmp_path / "lad")
    with pytest.raises(Refused, match="not a ladder folder"):
        Ladder.open(tmp_path)
    (tmp_path / "junk").mkdir()
    (tmp_path / "junk" / "ladder.sqlite").write_text("not a database at all" * 100)
    (tmp_path / "junk" / "ladder.toml").write_text("")
    with pytest.raises(LadderStoreError):
        Ladder.open(tmp_path / "junk")


def test_tokens_authenticate_their_owner_only(ladder: Ladder) -> None:
    alice, alice_token = ladder.add_entrant("alice")
    bob, bob_token = ladder.add_entrant("bob")
    admin_token = ladder.new_admin_token()
    assert ladder.authenticate(alice_token).name == "alice"
    assert ladder.authenticate(bob_token).entrant_id == bob.id
    assert ladder.authenticate(admin_token).admin
    forged = f"lt-{alice.id}-" + bob_token.rsplit("-", 1)[1]  # bob's secret under alice's number
    for bad in (forged, "", "lt-admin-x", f"lt-99-{'a' * 43}", alice_token + "x", "Bearer " + alice_token):
        assert ladder.authenticate(bad) is None
    renewed = ladder.new_entrant_token("alice")
    assert ladder.authenticate(alice_token) is None
    assert ladder.authenticate(renewed).name == "alice"
    # only a hash is stored
    assert alice_token not in (ladder.store.token_hash(alice.id) or "")


def test_token_hashes_are_salted_scrypt() -> None:
    token = "lt-1-" + "A" * 43
    one, two = hash_token(token), hash_token(token)
    assert one != two and one.startswith("scrypt$") and check_token(token, one) and check_token(token, two)
    assert not check_token(token, None) and not check_token(token, "garbage")
    assert token_owner(token) == 1 and token_owner("lt-0-" + "A" * 43) is None


def test_names_are_checked(ladder: Ladder) -> None:
    for bad in ("", "a/b", "a#1", " x", "x" * 49, "bell\a", ".."):
        with pytest.raises(Refused, match="entrant name"):
            ladder.add_entrant(bad)
    ladder.add_entrant("ok name")
    with pytest.raises(Refused, match="exists already"):
        ladder.add_entrant("ok name")


def test_a_version_is_a_copy_the_source_cannot_change(ladder: Ladder, tmp_path: Path) -> None:
    ladder.add_entrant("alice")
    source = _bot(tmp_path)
    v1 = ladder.submit("alice", source)
    assert (v1.number, v1.state, v1.key) == (1, VersionState.SUBMITTED, "alice#1")
    copy = ladder.version_folder(v1) / "bot.py"
    source.write_text(BOT + "# edited\n")
    assert copy.read_text() == BOT
    assert not os.access(copy, os.W_OK) or os.geteuid() == 0
    v2 = ladder.submit("alice", source)
    assert v2.number == 2 and v2.digest != v1.digest
    with pytest.raises(Refused, match="same as your version 2"):
        ladder.submit("alice", source)
    assert not list(ladder.layout.incoming.iterdir())


def _capped(tmp_path: Path, per_day: int) -> Ladder:
    """A ladder with ``per_day`` as its daily cap, and alice."""
    made, _ = Ladder.init(tmp_path / "lad")
    made.layout.config.write_text(f"[submissions]\nper_day = {per_day}\n")
    made.close()
    ladder = Ladder.open(tmp_path / "lad")
    ladder.add_entrant("alice")
    return ladder


def test_the_daily_cap_counts_submissions(tmp_path: Path) -> None:
    with _capped(tmp_path, 2) as ladder:
        ladder.submit("alice", _bot(tmp_path, BOT + "#1\n"))
        ladder.submit("alice", _bot(tmp_path, BOT + "#2\n"))
        with pytest.raises(Refused, match="2 versions in the last 24 hours"):
            ladder.submit("alice", _bot(tmp_path, BOT + "#3\n"))


def test_retire_and_suspend(ladder: Ladder, tmp_path: Path) -> None:
    ladder.add_entrant("alice")
    v1 = ladder.submit("alice", _bot(tmp_path))
    [retired] = ladder.retire("alice", v1.number)
    assert retired.state == VersionState.RETIRED
    with pytest.raises(Refused, match="retired already"):
        ladder.retire("alice", 1)
    assert ladder.suspend("alice", "cheating").reason == "cheating"
    assert ladder.reinstate("alice").reason is None
    ladder.retire("alice")
    with pytest.raises(Refused, match="takes no more versions"):
        ladder.submit("alice", _bot(tmp_path, BOT + "#new\n"))
    with pytest.raises(Refused, match="no entrant named 'carol'"):
        ladder.submit("carol", _bot(tmp_path))


def test_threads_share_one_ladder(ladder: Ladder, tmp_path: Path) -> None:
    errors: list[BaseException] = []

    def add(i: int) -> None:
        try:
            ladder.add_entrant(f"t{i}")
            ladder.leaderboard()
        except BaseException as exc:  # pragma: no cover - the assertion below shows it
            errors.append(exc)

    threads = [threading.Thread(target=add, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sorted(e.name for e in ladder.entrants()) == [f"t{i}" for i in range(6)]


def test_status_says_who_serves(ladder: Ladder) -> None:
    from referee.contest.lock import ResultsLock

    assert ladder.serving() is None
    with ResultsLock(ladder.layout.root):
        assert ladder.serving() == os.getpid()
    time.sleep(0)
    assert ladder.status()["serving"] is None


def test_simultaneous_uploads_cannot_pass_the_daily_cap_together(tmp_path: Path) -> None:
    with _capped(tmp_path, 3) as ladder:
        sources = [_bot(tmp_path, BOT + "x = 1\n" * 400_000 + f"# {i}\n", f"bot{i}.py") for i in range(12)]
        start = threading.Barrier(len(sources))
        outcomes: list[str] = []

        def submit(source: Path) -> None:
            start.wait()
            try:
                ladder.submit("alice", source)
                outcomes.append("taken")
            except Refused as exc:
                outcomes.append(str(exc))

        threads = [threading.Thread(target=submit, args=(s,)) for s in sources]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert outcomes.count("taken") == 3, outcomes
        assert all(o == "taken" or "alice has submitted 3 versions in the last 24 hours" in o for o in outcomes)
        assert len(ladder.versions("alice")) == 3
