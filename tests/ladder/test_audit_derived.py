"""``referee audit`` on a ladder names every edited row the standing reads, not only the chained games: each block's
state, table and results, the standing's sums and the counters are derived again from the game rows."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from referee.cli.app import main
from referee.ladder import Ladder
from tests.ladder.fakes import Fakes, bot_text, serve_blocks


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ladder of four fake entrants that played 12 blocks (games, logs and chain all real), serve stopped."""
    tmp = tmp_path_factory.mktemp("audit")
    made, _ = Ladder.init(tmp / "lad")
    made.layout.config.write_text("[matchmaking]\nplacement_blocks = 2\n[serve]\njobs = 2\n")
    for i, name in enumerate(["ann", "bob", "cat", "dan"]):
        made.add_entrant(name)
        source = tmp / f"{name}.py"
        source.write_text(bot_text(strength=float(i)))
        made.submit(name, source)
    made.close()
    serve_blocks(tmp / "lad", Fakes(), 12)
    return tmp / "lad"


def _audit(lad: Path) -> tuple[int, str]:
    out = CliRunner().invoke(main, ["audit", str(lad)])
    return out.exit_code, out.output


def test_an_untouched_ladder_audits_clean_games_and_derived_rows(played: Path) -> None:
    code, text = _audit(played)
    assert code == 0, text
    assert "audited: all" in text and "rows derived from them (block results, sums, counters) match them" in text


# Each edit, with the one line that must name it (the block and version are filled in from the store).
EDITS = {
    "matchpoints": (
        "UPDATE block_seats SET matchpoints = matchpoints + 0.5 WHERE block_id = {b} AND version_id = {v}",
        "block {b}, {key} (block_seats): matchpoints",
    ),
    "total": (
        "UPDATE block_seats SET total = total - 7 WHERE block_id = {b} AND version_id = {v}",
        "block {b}, {key} (block_seats): total",
    ),
    "a result dropped": (
        "DELETE FROM block_seats WHERE block_id = {b} AND version_id = {v}",
        "block {b}, {key} (block_seats): no result stored, but it played the block",
    ),
    "version sums": (
        "UPDATE version_sums SET mp = mp + 24 WHERE version_id = {v}",
        "{key}'s standing sums (version_sums): mp",
    ),
    "pair sums": ("UPDATE pair_sums SET ab = ab + 1 WHERE a = {v} OR b = {v}", "shared sums (pair_sums): ab"),
    "counters": ("UPDATE versions SET forfeits = forfeits + 3 WHERE id = {v}", "{key} (versions): forfeits 3 stored"),
    "block state": ("UPDATE blocks SET state = 'void' WHERE id = {b}", "block {b} (blocks): stored as void"),
    "block table": (
        "UPDATE blocks SET seats = json_set(json_set(seats, '$[0]', json_extract(seats, '$[1]')), '$[1]', "
        "json_extract(seats, '$[0]')) WHERE id = {b}",
        "block {b} (blocks): its table is stored as",
    ),
    "games counted": ("UPDATE meta SET value = value + 1 WHERE key = 'games_done'", "the ladder's games_done (meta)"),
}  # fmt: skip


@pytest.mark.parametrize("edit", list(EDITS))
def test_an_edited_derived_row_is_named_in_one_line(played: Path, tmp_path: Path, edit: str) -> None:
    lad = tmp_path / "lad"
    shutil.copytree(played, lad)
    db = sqlite3.connect(lad / "ladder.sqlite")
    b, v = db.execute(
        "SELECT block_id, version_id FROM block_seats WHERE position = 0 ORDER BY block_id DESC"
    ).fetchone()
    key = db.execute(
        "SELECT e.name || '#' || v.number FROM versions v JOIN entrants e ON e.id = v.entrant_id WHERE v.id = ?", (v,)
    ).fetchone()[0]
    sql, line = EDITS[edit]
    assert db.execute(sql.format(b=b, v=v)).rowcount >= 1
    db.commit()
    db.close()
    code, text = _audit(lad)
    assert code == 1, text
    named = [row for row in text.splitlines() if line.format(b=b, key=key) in row]
    assert named, text
    assert "DIFFERS" in named[0] and "stored" in named[0], named
    assert "Traceback" not in text


def test_a_block_with_a_game_gone_is_named_once_beside_the_game(played: Path, tmp_path: Path) -> None:
    lad = tmp_path / "lad"
    shutil.copytree(played, lad)
    db = sqlite3.connect(lad / "ladder.sqlite")
    b, size = db.execute("SELECT id, json_array_length(seats) FROM blocks WHERE state = 'done' LIMIT 1").fetchone()
    db.execute("DELETE FROM seats WHERE game_id = ?", (f"{b}.1",))
    db.execute("DELETE FROM games WHERE id = ?", (f"{b}.1",))
    db.commit()
    db.close()
    code, text = _audit(lad)
    assert code == 1 and f"{b}.1: missing" in text, text
    assert f"block {b} (games): {size - 1} of its {size} rotations are stored" in text, text
    assert f"block {b}, " not in text  # its results are not named one by one
