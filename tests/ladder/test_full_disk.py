"""``referee ladder serve`` on a full disk: one line, whatever the number of lanes that meet it, and nothing lost."""

from __future__ import annotations

import errno
from pathlib import Path
from typing import Any

import pytest
import trio
from click.testing import CliRunner

from referee.cli import main
from referee.ladder import BlockState, Ladder, LadderStoreError, VersionState
from referee.ladder.store import LadderStore


def test_a_full_disk_under_two_lanes_stops_serve_in_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    made, _ = Ladder.init(tmp_path / "lad")
    made.layout.config.write_text("[games]\ntable_sizes = [2]\ntable_weights = [1]\n[serve]\njobs = 2\n")
    for name in ("ann", "bob", "cat", "dan"):
        made.add_entrant(name)
        source = tmp_path / f"{name}.py"
        source.write_text(f"# {name}\nprint('hello')\n")
        v = made.submit(name, source)
        made.store.set_version_state(v.id, VersionState.RANKED)  # admitted: they play at once
    made.close()
    lanes: list[int] = []

    async def full(batch: Any, *args: Any, **kwargs: Any) -> Any:
        lanes.append(batch.batch)
        with trio.move_on_after(5):
            while len(lanes) < 2:  # both lanes meet the full disk (if the matchmaker gives the second a table)
                await trio.sleep(0.01)
        raise OSError(errno.ENOSPC, "No space left on device")  # a game log cannot be written

    def cannot_void(self: LadderStore, block_id: int, reason: str) -> None:
        raise LadderStoreError(  # as the store words it (contest/database.py)
            f"cannot write the ladder database {self.path}: database or disk is full; make room on its disk, then "
            "try again",
            reason="database or disk is full",
        )

    monkeypatch.setattr("referee.ladder.lanes.play_batch", full)
    monkeypatch.setattr(LadderStore, "void_block", cannot_void)
    out = CliRunner().invoke(main, ["ladder", "serve", str(tmp_path / "lad"), "--no-web"])
    lines = [line for line in out.output.splitlines() if " ladder: " not in f" {line}"]  # serve's own lines aside
    assert out.exit_code == 1, out.output
    assert len(lines) == 1, (out.output, out.exception)
    assert (
        lines[0].startswith("referee ladder serve: error: cannot write the ladder database")
        and "disk is full" in lines[0]
    )
    assert lines[0].count("make room") == 1, lines  # the store's advice and serve's are not both said
    assert "the blocks in play are played again at the next start" in lines[0], lines
    assert "Traceback" not in out.output
    monkeypatch.undo()
    with Ladder.open(tmp_path / "lad") as ladder:  # the blocks left in play: voided and played again at the start
        assert len(ladder.store.blocks(states=[BlockState.PLAYING])) == len(lanes) == 2
