"""kill -9 and restart (blocks in flight voided and replayed, nothing counted twice), epochs committed, revealed
and verified, voided blocks replayed once."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import trio
import zstandard
from click.testing import CliRunner

from referee.cli import main
from referee.ladder import BlockState, Ladder
from referee.runner.gamelog import log_content
from referee.web import views
from tests.ladder.fakes import Fakes, bot_text
from tests.ladder.test_serve_fakes import _ladder, _serve_until, _submit

ROOT = Path(__file__).resolve().parents[2]


def _consistent(lad: Path) -> None:
    """Every done block holds one game per rotation, each counted once in its versions' counters."""
    db = sqlite3.connect(lad / "ladder.sqlite")
    for block_id, seats in db.execute("SELECT id, seats FROM blocks WHERE state = 'done'"):
        n = len(json.loads(seats))
        assert db.execute("SELECT count(*) FROM games WHERE block_id = ?", (block_id,)).fetchone()[0] == n
        assert db.execute("SELECT count(*) FROM block_seats WHERE block_id = ?", (block_id,)).fetchone()[0] == n
    assert not db.execute(
        "SELECT 1 FROM games g JOIN blocks b ON b.id = g.block_id WHERE b.state != 'done'"
    ).fetchall(), "a game of a block that is not done is stored"
    for vid, blocks, games in db.execute("SELECT id, blocks, games FROM versions"):
        counted = db.execute("SELECT count(*), coalesce(sum(games), 0) FROM block_seats WHERE version_id = ?", (vid,))
        assert counted.fetchone() == (blocks, games)
    db.close()


def test_kill_9_voids_the_blocks_in_flight_and_a_restart_replays_them(tmp_path: Path) -> None:
    lad = _ladder(tmp_path)
    for i, name in enumerate(["ann", "bob", "cat", "dan"]):
        _submit(lad, name, bot_text(strength=i), tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    in_flight: list[int] = []
    for _ in range(5):  # a block may end between the look and the kill: a kill that caught none voided nothing
        proc = subprocess.Popen(
            [sys.executable, "-m", "tests.ladder.serve_fakes", str(lad), "0.01"], cwd=ROOT, env=env,
            stdout=subprocess.PIPE,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline:
                with Ladder.open(lad) as ladder:
                    if ladder.store.block_count() >= 20 and ladder.store.blocks(states=[BlockState.PLAYING]):
                        break
                time.sleep(0.05)
            proc.send_signal(signal.SIGKILL)
        finally:
            proc.wait(10)
        with Ladder.open(lad) as ladder:
            in_flight = [b.id for b in ladder.store.blocks(states=[BlockState.PLAYING], limit=None)]
            done_before = ladder.store.block_count()
        if in_flight:
            break
    assert in_flight, "five kills caught no block in play"
    _consistent(lad)
    fakes, lines = Fakes(), []
    trio.run(_serve_until, lad, fakes, lambda lad_: lad_.store.block_count() >= done_before + 10, lines)
    with Ladder.open(lad) as ladder:
        for block_id in in_flight:
            block = ladder.store.block(block_id)
            assert block.state == BlockState.DONE and block.attempts == 2, block  # voided once, played again once
            assert [a for a, _, _ in ladder.store.voids(block_id)] == [1]
    _consistent(lad)


def test_epochs_are_committed_before_their_blocks_revealed_after_and_verified(tmp_path: Path) -> None:
    lad = _ladder(tmp_path, "")  # an epoch every 40 blocks
    for i, name in enumerate(["ann", "bob", "cat"]):
        _submit(lad, name, bot_text(strength=i), tmp_path)
    fakes, lines = Fakes(), []
    trio.run(_serve_until, lad, fakes, lambda lad_: len(lad_.store.epochs()) >= 3, lines)
    with Ladder.open(lad) as ladder:
        epochs = ladder.epochs()
        closed = [e for e in epochs if e.secret is not None]
        assert closed and all(e.closed_at for e in closed)
        assert epochs[-1].secret is None  # the open one keeps its secret
        for e in epochs:
            first = min(b.id for b in ladder.store.blocks(epoch_id=e.id, limit=None))
            assert ladder.store.block(first).created_at >= e.opened_at
    opened = [i for i, line in enumerate(lines) if "opened: its deals are committed to SHA-256" in line]
    revealed = [i for i, line in enumerate(lines) if "its secret is revealed" in line]
    assert len(opened) >= 3 and revealed and opened[0] < revealed[0]
    out = CliRunner().invoke(main, ["verify-deals", str(lad)])
    assert out.exit_code == 0, out.output
    assert "epoch 1: verified" in out.output and f"epoch {epochs[-1].id}: not revealed yet" in out.output
    # a stored seed changed after the fact is caught
    db = sqlite3.connect(lad / "ladder.sqlite")
    block_id = db.execute("SELECT min(id) FROM blocks WHERE epoch_id = 1 AND state = 'done'").fetchone()[0]
    db.execute("UPDATE blocks SET seed = seed + 1 WHERE id = ?", (block_id,))
    db.commit()
    db.close()
    out = CliRunner().invoke(main, ["verify-deals", str(lad)])
    assert out.exit_code == 1 and f"block {block_id}: stored with seed" in out.output


class _Flaky(Fakes):
    """The first game of block 5 fails once (a disk error); every game of block 9 always fails (a referee bug)."""

    def __init__(self) -> None:
        super().__init__()
        self.failed: set[str] = set()

    async def play(self, players, *, game_id, ruleset, seed, log_path, wire_id=""):  # type: ignore[no-untyped-def]
        if game_id == "5.0" and game_id not in self.failed:
            self.failed.add(game_id)
            raise OSError(28, "No space left on device")
        if game_id.startswith("9."):
            raise RuntimeError("a referee bug")
        return await super().play(players, game_id=game_id, ruleset=ruleset, seed=seed, log_path=log_path)


def test_a_block_voided_for_a_reason_not_a_bots_is_played_again_once_and_a_failing_one_is_given_up(
    tmp_path: Path,
) -> None:
    lad = _ladder(tmp_path)
    for i, name in enumerate(["ann", "bob", "cat"]):
        _submit(lad, name, bot_text(strength=i), tmp_path)
    fakes, lines = _Flaky(), []
    trio.run(_serve_until, lad, fakes, lambda lad_: lad_.store.block_count() >= 30, lines)
    with Ladder.open(lad) as ladder:
        five, nine = ladder.store.block(5), ladder.store.block(9)
        assert five.state == BlockState.DONE and five.attempts == 2
        assert ladder.store.voids(5)[0][1] == "[Errno 28] No space left on device"
        assert nine.state == BlockState.VOID and nine.attempts == 3  # MAX_ATTEMPTS, then left void
        assert "referee error RuntimeError: a referee bug" in ladder.store.voids(9)[0][1]
        assert not ladder.games(9)
    assert any("block 5 voided, to be played again" in line for line in lines)
    _consistent(lad)


def test_the_hash_chain_names_a_changed_result_a_changed_log_and_a_removed_game(tmp_path: Path) -> None:
    lad = _ladder(tmp_path)
    for i, name in enumerate(["ann", "bob", "cat"]):
        _submit(lad, name, bot_text(strength=i), tmp_path)
    fakes, lines = Fakes(), []
    trio.run(_serve_until, lad, fakes, lambda lad_: len([e for e in lad_.store.epochs() if e.secret]) >= 1, lines)
    with Ladder.open(lad) as ladder:
        revealed = next(e for e in ladder.epochs() if e.secret)
        assert revealed.chain_head and any(revealed.chain_head in line for line in lines)
        # the published head is on status --json and on /epochs and /api/epochs, beside the head now
        status = ladder.status()
        assert status["published_heads"][str(revealed.id)] == revealed.chain_head
        assert status["chain_head"] == ladder.store.chain_head()
        shown = {e.id: e.chain_head for e in views.epochs(ladder)}
        assert shown[revealed.id] == revealed.chain_head
        game = ladder.games(3)[1]
        more = ladder.store.block_count() + 3
    trio.run(_serve_until, lad, fakes, lambda lad_: lad_.store.block_count() >= more, lines)  # games after the head
    runner = CliRunner()
    out = runner.invoke(main, ["audit", str(lad)])
    assert out.exit_code == 0 and "audited: all" in out.output, out.output
    out = runner.invoke(main, ["audit", str(lad), "--head", revealed.chain_head])
    # a ladder plays on after an epoch publishes its head: the games since are growth, not a difference
    assert out.exit_code == 0 and "DIFFERS" not in out.output, out.output
    assert "up to the published head unchanged" in out.output and "played since" in out.output, out.output
    db = sqlite3.connect(lad / "ladder.sqlite")
    db.execute("UPDATE seats SET score = score - 5 WHERE game_id = ? AND seat = 0", (game.id,))
    db.execute("DELETE FROM seats WHERE game_id = '5.0'")
    db.execute("DELETE FROM games WHERE id = '5.0'")
    db.commit()
    db.close()
    log = lad / str(game.log_path)
    text = log_content(log)
    changed = text.replace(b'"seed":', b'"seed": ', 1)
    assert changed != text
    log.write_bytes(zstandard.ZstdCompressor().compress(changed) if log.name.endswith(".zst") else changed)
    out = runner.invoke(main, ["audit", str(lad)])
    assert out.exit_code == 1, out.output
    assert f"{game.id}: its stored result differs" in out.output
    assert f"{game.id}: its game log differs" in out.output
    assert "5.0: missing" in out.output
    out = runner.invoke(main, ["audit", str(lad), "--head", revealed.chain_head])  # an edit before the head fails
    assert out.exit_code == 1 and f"{game.id}: its stored result differs" in out.output, out.output
