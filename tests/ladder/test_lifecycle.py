"""Version and entrant lifecycles: every change of state is a guarded move (``model.VERSION_TRANSITIONS``), so that
a retire, a suspension or a lift issued at any moment (in the gate, in placement, mid-block) holds."""

from __future__ import annotations

import contextlib
import json
import random
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import trio
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from referee.ladder import BlockState, Ladder, LadderError, VersionState
from referee.ladder.build import BuildOutcome
from referee.ladder.gate import Gatekeeper
from referee.ladder.model import ENTRANT_TRANSITIONS, VERSION_TRANSITIONS, BlockKind, EntrantState
from referee.ladder.rating import LiveRating
from referee.ladder.rollback import activate
from referee.ladder.settle import settle_block
from referee.ladder.store import GameRow
from tests.ladder.fakes import FakeFault, FakeReport, Fakes, bot_text
from tests.ladder.test_serve_fakes import _serve_until, _submit

REPO = Path(__file__).resolve().parents[2]

# Every change of a version's or an entrant's state, and every block started, in the order the database saw them
# (triggers: they see every connection's writes, whatever module made them).
_EVENTS = """
CREATE TABLE IF NOT EXISTS test_events(seq INTEGER PRIMARY KEY, kind TEXT, id INTEGER, old TEXT, new TEXT);
CREATE TRIGGER IF NOT EXISTS test_version_moves AFTER UPDATE OF state ON versions WHEN old.state != new.state
BEGIN INSERT INTO test_events(kind, id, old, new) VALUES ('version', new.id, old.state, new.state); END;
CREATE TRIGGER IF NOT EXISTS test_entrant_moves AFTER UPDATE OF state ON entrants WHEN old.state != new.state
BEGIN INSERT INTO test_events(kind, id, old, new) VALUES ('entrant', new.id, old.state, new.state); END;
CREATE TRIGGER IF NOT EXISTS test_block_starts AFTER INSERT ON blocks
BEGIN INSERT INTO test_events(kind, id, old, new) VALUES ('block', new.id, NULL, new.seats); END;
CREATE TRIGGER IF NOT EXISTS test_block_replays AFTER UPDATE OF state ON blocks WHEN new.state = 'playing'
BEGIN INSERT INTO test_events(kind, id, old, new) VALUES ('block', new.id, old.state, new.seats); END;
"""


def _watch(db: Path) -> None:
    with sqlite3.connect(db) as con:
        con.executescript(_EVENTS)


def _check_events(db: Path) -> list[tuple[str, int, str | None, str]]:
    """Every recorded move is one the tables allow, and every block started with versions and entrants active."""
    with sqlite3.connect(db) as con:
        events = con.execute("SELECT kind, id, old, new FROM test_events ORDER BY seq").fetchall()
        owner = dict(con.execute("SELECT id, entrant_id FROM versions").fetchall())
    versions: dict[int, str] = {}
    entrants: dict[int, str] = {}
    for kind, ident, old, new in events:
        if kind == "version":
            assert VersionState(new) in VERSION_TRANSITIONS[VersionState(old)], (ident, old, new, events)
            versions[ident] = new
        elif kind == "entrant":
            assert EntrantState(new) in ENTRANT_TRANSITIONS[EntrantState(old)], (ident, old, new, events)
            entrants[ident] = new
        else:
            for vid in json.loads(new):
                state, whose = versions.get(vid), entrants.get(owner[vid], "active")
                assert state in ("placement", "ranked") and whose == "active", (ident, vid, state, whose, events)
    return events


def _ladder(tmp_path: Path, extra: str = "") -> Path:
    made, _ = Ladder.init(tmp_path / "lad")
    made.layout.config.write_text(
        "[matchmaking]\nplacement_blocks = 3\n[epochs]\nblocks = 400\n[serve]\njobs = 2\n" + extra
    )
    made.close()
    _watch(tmp_path / "lad" / "ladder.sqlite")
    return tmp_path / "lad"


def _apply(ladder: Ladder, action: tuple[str, str, int]) -> None:
    kind, name, number = action
    try:
        if kind == "retire":
            ladder.retire(name, number)
        elif kind == "retire entrant":
            ladder.retire(name)
        elif kind == "suspend":
            ladder.suspend(name, "by the organiser")
        elif kind.startswith("activate"):  # a rollback to an earlier version: its author's, or the organiser's
            activate(ladder, name, number, organiser=kind == "activate as organiser")
        else:
            ladder.reinstate(name)
    except LadderError:
        pass  # refused (no such version, retired already): what the organiser would be told


def _field(lad: Path, tmp_path: Path) -> None:
    for i, name in enumerate(["ann", "bob", "cat", "dan"]):
        _submit(lad, name, bot_text(strength=float(i)), tmp_path)


@pytest.mark.parametrize("act", ["retire", "retire entrant", "suspend"])
def test_a_retire_or_suspension_during_the_gate_holds(tmp_path: Path, act: str) -> None:
    lad = _ladder(tmp_path)
    _field(lad, tmp_path)
    fakes, lines = Fakes(), []
    passes = fakes.check

    async def check(spec: Any, options: Any) -> FakeReport:
        if spec.name == "dan#1":  # the organiser (another process) acts while dan#1 is being checked
            with Ladder.open(lad) as other:
                _apply(other, (act, "dan", 1))
        report: FakeReport = await passes(spec, options)
        return report

    fakes.check = check  # type: ignore[method-assign]
    trio.run(_serve_until, lad, fakes, lambda ladder: ladder.store.block_count() >= 12, lines)
    with Ladder.open(lad) as ladder:
        dan = ladder.version("dan", 1)
        assert dan.state == (VersionState.RETIRED if act != "suspend" else VersionState.PLACEMENT), dan
        assert not ladder.blocks(name="dan", number=1), lines  # it never played
        if act != "suspend":
            assert any("dan#1 left its gate: retired meanwhile" in line for line in lines), lines
            assert not any("dan#1 passed its gate" in line for line in lines), lines
        else:  # lifted: it plays its placement
            ladder.reinstate("dan")
    if act == "suspend":
        trio.run(_serve_until, lad, fakes, lambda ladder: bool(ladder.blocks(name="dan", number=1)), lines)
    _check_events(lad / "ladder.sqlite")


@pytest.mark.parametrize("act", ["retire", "retire entrant", "suspend"])
def test_a_retire_or_suspension_mid_block_holds_even_on_the_last_placement_block(tmp_path: Path, act: str) -> None:
    lad = _ladder(tmp_path)
    _field(lad, tmp_path)
    fakes, lines, acted = Fakes(), [], []
    other = Ladder.open(lad)
    plays = fakes.play

    async def play(players: list[Any], **kwargs: Any) -> Any:
        if not acted and any(p.name == "dan#1" for p in players):
            dan = other.version("dan", 1)
            if dan.state == VersionState.PLACEMENT and dan.placement_left == 1:  # its block ends its placement
                acted.append(other.store.blocks(states=[BlockState.PLAYING], version_id=None, limit=None))
                _apply(other, (act, "dan", 1))
        return await plays(players, **kwargs)

    fakes.play = play  # type: ignore[method-assign]
    try:
        trio.run(_serve_until, lad, fakes, lambda ladder: bool(acted) and ladder.store.block_count() >= 40, lines)
        dan = other.version("dan", 1)
        assert dan.state == (VersionState.RETIRED if act != "suspend" else VersionState.RANKED), (dan, lines)
        in_play = {b.id for b in acted[0] if dan.id in b.seats}
        assert len(in_play) == 1, acted
        # the block in play when it was retired ends and counts; none starts with it after
        played = {b.id for b in other.blocks(name="dan", number=1, limit=None)}
        assert max(played) == in_play.pop(), (played, lines)
        assert not any("dan#1 finished its placement" in line for line in lines) or act == "suspend", lines
    finally:
        other.close()
    _check_events(lad / "ladder.sqlite")


def test_a_retire_during_the_build_holds_and_its_check_never_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    lad = _ladder(tmp_path)
    checked, lines = [], []
    with Ladder.open(lad) as ladder:
        entrant, _ = ladder.add_entrant("ann")
        ladder.store.add_version(
            entrant.id, digest="d" * 64, command=("./bot",), build=("make",), kind="folder", files=1, size=1
        )

        async def build(*args: Any) -> BuildOutcome:
            assert ladder.version("ann", 1).state == VersionState.BUILDING
            ladder.retire("ann", 1)  # by its author, while it builds
            return BuildOutcome(True, "built in 1.0 s", 1.0)

        async def check(spec: Any, options: Any) -> FakeReport:
            checked.append(spec.name)
            return FakeReport(True)

        monkeypatch.setattr("referee.ladder.gate.run_build", build)
        trio.run(Gatekeeper(ladder, lines.append, lambda: None, check).step)
        assert ladder.version("ann", 1).state == VersionState.RETIRED
        assert not checked and lines == ["ann#1 left its gate: retired meanwhile"], (checked, lines)
    _check_events(lad / "ladder.sqlite")


def test_a_retired_entrant_cannot_be_suspended_or_lifted_back(tmp_path: Path) -> None:
    made, _ = Ladder.init(tmp_path / "lad")
    with made as ladder:
        ladder.add_entrant("ann")
        ladder.retire("ann")
        with pytest.raises(LadderError, match="ann is retired already"):
            ladder.suspend("ann", "late")
        with pytest.raises(LadderError, match="has retired"):
            ladder.reinstate("ann")
        assert ladder.entrant("ann").state == EntrantState.RETIRED


def test_no_module_writes_a_version_state_but_through_the_guarded_move() -> None:
    """``set_version_state`` (unguarded) is for tests and benches; the ladder itself calls ``move_version``."""
    for path in (REPO / "referee").rglob("*.py"):
        text = path.read_text()
        assert "set_version_state(" not in text or path.name == "store.py", path
        assert "set_entrant_state(" not in text, path


# ---------------------------------------------------------------------------------------------- the property

_NAMES = ("ann", "bob", "cat", "dan")
_name = st.sampled_from(_NAMES)
_action = st.one_of(
    st.tuples(st.just("retire"), _name, st.integers(1, 3)),
    st.tuples(st.sampled_from(["activate", "activate as organiser"]), _name, st.integers(1, 2)),
    st.tuples(st.just("suspend"), _name, st.just(0)),
    st.tuples(st.just("lift"), _name, st.just(0)),
    st.tuples(st.just("lift"), _name, st.just(0)),
    st.tuples(st.sampled_from(["retire entrant", "retire", "retire"]), _name, st.just(1)),
)
#: (what happens, an organiser's action, actions taken while a gate's check or a block runs, whether the check
#: passes, the seats that forfeit every game of the block: a bit each).
_event = st.tuples(
    st.sampled_from(["act", "act", "submit", "gate", "block", "block", "block", "block"]),
    _action,
    st.lists(_action, max_size=2),
    st.booleans(),
    st.sampled_from([0, 0, 0, 1, 2, 4]),
)


def _block(ladder: Ladder, rating: LiveRating, forfeiters: int, during: list[tuple[str, str, int]]) -> None:
    store = ladder.store
    playing = {e.id for e in store.entrants() if e.state == EntrantState.ACTIVE}
    seats = [v.id for v in store.active_versions() if v.entrant_id in playing][:4]
    if len(seats) < 2:
        return
    epoch = store.open_epoch_now() or store.open_epoch("test", "0" * 64, "00" * 32)
    block = store.create_block(epoch.id, BlockKind.RANKED, seats, lambda b: b, active_only=True)
    versions = store.versions_by_id(seats)  # as the lane read them when the block began
    for action in during:
        _apply(ladder, action)
    rng = random.Random(block.id)
    games = []
    for r in range(len(seats)):
        order = tuple(seats[r:] + seats[:r])
        lost = tuple(bool(forfeiters >> (seats.index(v) % 3) & 1) for v in order)
        scores = tuple(rng.randint(0, 40) + 30 * f for f in lost)
        ranks = tuple(1 + sum(o < s for o in scores) for s in scores)
        faults = tuple(FakeFault(i) for i, f in enumerate(lost) if f)
        games.append(GameRow(r, order, scores, ranks, lost, faults, None, 0.1))
    settle_block(store, rating, block, games, versions, ladder.config.faults)


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ladder whose four entrants each have a version through the real gate, in placement (copied for each
    example: scrypt makes a new one slow)."""
    tmp = tmp_path_factory.mktemp("template")
    lad = _ladder(tmp, _PROP_CONFIG)
    fakes = Fakes()
    with Ladder.open(lad) as ladder:
        keeper = Gatekeeper(ladder, lambda line: None, lambda: None, fakes.check)
        for i, name in enumerate(_NAMES):
            _submit(lad, name, bot_text(strength=float(i)), tmp)
            trio.run(keeper.step)
        assert all(v.state == VersionState.PLACEMENT for v in ladder.store.versions())
    return lad


_NOTHING = ("lift", "ann", 0)
#: Rollbacks the random examples seldom reach: ann#2 replaces ann#1, which its author brings back while ann#2 plays
#: its last placement block; the organiser retires bob#1 and brings it back; ann goes forth to ann#2 again.
_ROLLBACKS = [
    ("submit", ("retire", "ann", 9), [], True, 0),
    ("gate", _NOTHING, [], True, 0),
    *[("block", _NOTHING, [], True, 0)] * 2,
    ("block", _NOTHING, [("activate", "ann", 1)], True, 0),
    ("block", _NOTHING, [], True, 2),
    ("act", ("retire", "bob", 1), [], True, 0),
    ("act", ("activate", "bob", 1), [], True, 0),  # refused: the organiser retired it
    ("act", ("activate as organiser", "bob", 1), [], True, 0),
    ("act", ("activate", "ann", 2), [], True, 0),
    ("block", _NOTHING, [], True, 0),
]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(events=st.lists(_event, min_size=6, max_size=24))
@example(events=_ROLLBACKS)
def test_any_interleaving_of_actions_gates_and_blocks_moves_only_as_the_tables_allow(
    tmp_path_factory: pytest.TempPathFactory, template: Path, events: list[tuple[Any, ...]]
) -> None:
    tmp = tmp_path_factory.mktemp("prop")
    lad = tmp / "lad"
    shutil.copytree(template, lad)
    ladder = Ladder.open(lad)
    try:
        rating = LiveRating(ladder.config.rating)
        submitted = 0
        for kind, action, during, passes, forfeiters in events:
            if kind == "act":
                _apply(ladder, action)
            elif kind == "submit":
                submitted += 1
                source = tmp / f"bot{submitted}.py"
                source.write_text(bot_text(strength=float(submitted), tag=str(submitted)))
                with contextlib.suppress(LadderError):  # a retired entrant takes no more versions
                    ladder.submit(action[1], source)
            elif kind == "gate":

                async def check(spec: Any, options: Any, during: Any = during, passes: bool = passes) -> Any:
                    for act in during:  # while the check runs
                        _apply(ladder, act)
                    return FakeReport(passes)

                keeper = Gatekeeper(ladder, lambda line: None, lambda: None, check)
                trio.run(keeper.step)
            else:
                _block(ladder, rating, forfeiters, during)
    finally:
        ladder.close()
    _check_events(lad / "ladder.sqlite")


_PROP_CONFIG = "[faults]\nrecent_games = 4\nsuspend_share = 0.3\n[submissions]\nper_day = 1000\n"
