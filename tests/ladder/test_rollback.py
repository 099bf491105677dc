"""A rollback: an author makes an earlier version that passed its gate active again (``ladder.rollback``), through the
one transition table, and the version it replaces is retired as a newer upload retires it."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio
from click.testing import CliRunner

from referee.cli.app import main
from referee.ladder import Ladder, Refused, VersionState
from referee.ladder.field import FieldTracker
from referee.ladder.rollback import activate
from tests.ladder.fakes import Fakes, bot_text
from tests.ladder.test_lifecycle import _check_events, _watch
from tests.ladder.test_notices import _settled
from tests.ladder.test_serve_fakes import _ladder, _serve_until, _submit


def _two_versions(tmp_path: Path) -> tuple[Path, Fakes, list[str]]:
    """ann#1 ranked, then ann#2 uploaded: ann#2 in placement, ann#1 retired ("replaced by version 2")."""
    lad = _ladder(tmp_path)
    config = (lad / "ladder.toml").read_text().replace("placement_blocks = 3", "placement_blocks = 12")
    (lad / "ladder.toml").write_text(config)
    _watch(lad / "ladder.sqlite")
    for i, name in enumerate(["ann", "bob", "cat", "dan"]):
        _submit(lad, name, bot_text(strength=i), tmp_path)
    fakes, lines = Fakes(), []
    trio.run(_serve_until, lad, fakes, lambda lad_: lad_.version("ann", 1).state == VersionState.RANKED, lines)
    _submit(lad, "ann", bot_text(strength=9, tag="v2"), tmp_path)
    trio.run(_serve_until, lad, fakes, lambda lad_: lad_.version("ann", 2).blocks >= 1, lines)
    return lad, fakes, lines


def test_an_author_rolls_back_and_forth_and_both_versions_keep_their_blocks(tmp_path: Path) -> None:
    lad, fakes, lines = _two_versions(tmp_path)
    with Ladder.open(lad) as ladder:
        v1, v2 = ladder.version("ann", 1), ladder.version("ann", 2)
        assert v1.state == VersionState.RETIRED and v1.reason == "replaced by version 2"
        assert v2.state == VersionState.PLACEMENT and v2.placement_left > 0
        done = activate(ladder, "ann", 1)
        assert done.version.state == VersionState.RANKED  # it had finished its placement: ranked at once
        assert done.version.blocks == v1.blocks and done.version.mu == v1.mu  # as it was
        assert [v.key for v in done.retired] == ["ann#2"]
        assert ladder.version("ann", 2).reason == "replaced by version 1"
        assert "ann#1" in [r.version.key for r in ladder.leaderboard().rows]  # its standing is back at once
        with pytest.raises(Refused, match="active already"):
            activate(ladder, "ann", 1)
        blocks_v1 = ladder.version("ann", 1).blocks
        v2_left = ladder.version("ann", 2).placement_left
    trio.run(_serve_until, lad, fakes, lambda lad_: lad_.version("ann", 1).blocks >= blocks_v1 + 3, lines)
    with Ladder.open(lad) as ladder:
        assert ladder.version("ann", 2).blocks == v2.blocks  # retired: it did not play on
        back = activate(ladder, "ann", 2)  # and forth: the rest of its placement
        assert back.version.state == VersionState.PLACEMENT and back.version.placement_left == v2_left
        assert [v.key for v in back.retired] == ["ann#1"]
        assert ladder.version("ann", 1).blocks >= blocks_v1 + 3  # both keep their blocks
    _check_events(lad / "ladder.sqlite")  # every move one the table allows; every block with active versions only


def test_what_an_author_may_not_bring_back(tmp_path: Path) -> None:
    lad, fakes, lines = _two_versions(tmp_path)
    _submit(lad, "ann", bot_text(strength=1, failgate=True), tmp_path)
    trio.run(_serve_until, lad, fakes, lambda lad_: lad_.version("ann", 3).state == VersionState.FAILED, lines)
    with Ladder.open(lad) as ladder:
        with pytest.raises(Refused, match="ann#3 cannot be made active: it is failed"):
            activate(ladder, "ann", 3)
        with pytest.raises(Refused, match="no version 9"):
            activate(ladder, "ann", 9)
        ladder.retire("bob", 1)  # the organiser's retire: only the organiser undoes it
        with pytest.raises(Refused, match="not replaced by a newer version: ask the organiser"):
            activate(ladder, "bob", 1)
        assert activate(ladder, "bob", 1, organiser=True).version.state == VersionState.RANKED
        ladder.suspend("ann", "looking into it")
        with pytest.raises(Refused, match="ann is suspended"):
            activate(ladder, "ann", 1)
        ladder.reinstate("ann")
        # the same bytes uploaded again: told how to play that version again
        text = bot_text(strength=0)
        source = tmp_path / f"ann-{abs(hash(text))}.py"  # as _submit named it
        with pytest.raises(Refused, match=r"version 1 .*make it active.*referee ladder activate DIR ann 1"):
            ladder.submit("ann", source)
        text = bot_text(strength=1, failgate=True)
        source = tmp_path / f"ann-{abs(hash(text))}.py"
        with pytest.raises(Refused, match=r"same as your version 3 .*; it is failed"):
            ladder.submit("ann", source)


def test_the_activate_command(tmp_path: Path) -> None:
    lad, _, _ = _two_versions(tmp_path)
    runner = CliRunner()
    done = runner.invoke(main, ["ladder", "activate", str(lad), "ann", "1"])
    assert done.exit_code == 0, done.output
    assert done.output.strip() == "ann#1 is ranked again; retired: ann#2"
    again = runner.invoke(main, ["ladder", "activate", str(lad), "ann", "1"])
    assert again.exit_code == 2 and "ann#1 cannot be made active: it is active already" in again.output
    bad = runner.invoke(main, ["ladder", "activate", str(lad), "ann", "one"])
    assert bad.exit_code == 2 and "VERSION is a version number" in bad.output


def test_a_version_back_in_the_field_has_its_meetings_again(tmp_path: Path) -> None:
    """serve's field drops the meetings of versions that left it (now and then, to keep memory flat): one that comes
    back by a rollback has them again, as a fresh read of the store gives them."""
    made, _ = Ladder.init(tmp_path / "lad")
    made.close()
    with Ladder.open(tmp_path / "lad") as ladder:
        store = ladder.store
        ids = []
        for i in range(67):
            entrant = store.add_entrant(f"e{i}", "scrypt$none")
            v = store.add_version(
                entrant.id, digest=str(i), command=("./bot",), build=None, kind="file", files=1, size=1
            )
            store.set_version_state(v.id, VersionState.RANKED)
            ids.append(v.id)
        a, b, c = ids[:3]
        for _ in range(2):
            _settled(ladder, [a, b, c], {})
        tracker = FieldTracker(store, (25.0, 8.0))
        tracker.load(0.0)
        store.move_version(a, VersionState.RETIRED, "replaced by version 2")
        tracker.refresh(1.0)
        for other in ids[3:]:  # 64 more leave: the field forgets the meetings of those gone
            store.move_version(other, VersionState.RETIRED, "retired by request")
        tracker.refresh(2.0)
        assert store.move_version(a, VersionState.RANKED, only=[VersionState.RETIRED])
        tracker.refresh(3.0)
        fresh = FieldTracker(store, (25.0, 8.0))
        fresh.load(3.0)
        assert tracker.met[(a, b)] == 2 and tracker.opponents == fresh.opponents == {a: 4, b: 4, c: 4}
        store.move_version(c, VersionState.RETIRED, "replaced by version 2")  # and back before anything is dropped
        tracker.refresh(4.0)
        assert store.move_version(c, VersionState.RANKED, only=[VersionState.RETIRED])
        tracker.refresh(5.0)
        assert tracker.met[(a, c)] == 2 and tracker.opponents == {a: 4, b: 4, c: 4}


def test_reinstating_an_entrant_keeps_its_active_versions_to_the_cap(tmp_path: Path) -> None:
    lad, _, _ = _two_versions(tmp_path)
    with Ladder.open(lad) as ladder:
        # ann#2 suspended for its faults (as settling a block does), then its author brings ann#1 back meanwhile
        assert ladder.store.move_version(ladder.version("ann", 2).id, VersionState.SUSPENDED, "forfeited 40%")
        assert activate(ladder, "ann", 1).retired == ()  # a suspended version is not an active one
        ladder.suspend("ann", "looking into it")
        ladder.reinstate("ann")
        v1, v2 = ladder.version("ann", 1), ladder.version("ann", 2)
        # one active version ([submissions] active_versions = 1): the author's choice, ann#1, stays; ann#2 is retired
        # as replaced by it, so that its author may still bring it back
        assert v1.state == VersionState.RANKED, v1
        assert v2.state == VersionState.RETIRED and v2.reason == "replaced by version 1", v2
        assert [v.key for v in ladder.store.active_versions() if v.entrant == "ann"] == ["ann#1"]
        assert activate(ladder, "ann", 2).version.state == VersionState.PLACEMENT  # what it had left of placement
    _check_events(lad / "ladder.sqlite")
