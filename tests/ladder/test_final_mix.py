"""``ladder final`` plays the ladder's mix of table sizes, so that its order and the ladder's estimate the same
quantity: a version strong at 3 seats and weak at 4 is first on a ladder that mostly plays 3, and first in its final.
A final at tables of 4 alone (what ``ladder final`` played before) ranks another version first and disagrees."""

from __future__ import annotations

import io
import json
import sqlite3
from contextlib import redirect_stdout
from pathlib import Path

from referee.cli.ladder_final import FinalRequest, close_for_final, play_final
from referee.ladder import Ladder
from referee.tournament import LocalExecutor
from tests.ladder.fakes import Fakes, bot_text, serve_blocks

#: Strength (score points off each game) and, for "tri", its strength at tables of 4: the best at 3 seats, behind
#: "cat" at 4. The ladder plays 3 seats three times in four, so its official figure (expected matchpoints at its
#: mix) puts tri first: 0.92 against cat's 0.75; at 4 seats alone cat is first (1 against 0.67).
FIELD = {"ann": (0.0, {}), "bob": (20.0, {}), "cat": (40.0, {}), "tri": (80.0, {4: 30.0})}

#: The finals' --max-games: a race here settles its top place in about 370 games at 4 seats and 600 mixed (960 the most
#: in 100 races); at 400 one race in 50-100 stopped unsettled and the test met that instead of the order it checks.
MAX_GAMES = 2000


def _ladder(tmp_path: Path) -> Path:
    made, _ = Ladder.init(tmp_path / "lad")
    made.layout.config.write_text(
        '[games]\ntable_sizes = [3, 4]\ntable_weights = [3, 1]\nsandbox = "none"\n'
        "[matchmaking]\nplacement_blocks = 3\n[serve]\njobs = 2\n"
    )
    made.close()
    with Ladder.open(tmp_path / "lad") as ladder:
        for name, (strength, at) in FIELD.items():
            ladder.add_entrant(name)
            source = tmp_path / f"{name}.py"
            source.write_text(bot_text(strength, at=at))
            ladder.submit(name, source)
    serve_blocks(tmp_path / "lad", Fakes(), 150, seed=1)
    return tmp_path / "lad"


def _final(directory: Path, out: str, table_size: int | None) -> list[str]:
    fakes = Fakes()
    request = FinalRequest("race", table_size, 2, MAX_GAMES, directory / out, {"top": 1})
    with Ladder.open(directory) as ladder:
        closed = close_for_final(ladder, request)
    said = io.StringIO()
    with redirect_stdout(said):
        play_final(closed, request, LocalExecutor(2, play=fakes.play, factory=fakes.factory))
    return [line for line in said.getvalue().splitlines() if line.startswith("ladder final:")]


def test_the_final_plays_the_ladders_table_mix_and_agrees_where_one_table_size_did_not(tmp_path: Path) -> None:
    lad = _ladder(tmp_path)
    with Ladder.open(lad) as ladder:
        rows = ladder.leaderboard().rows
        assert [r.version.entrant for r in rows[:2]] == ["tri", "cat"], rows
        assert rows[0].official is not None and rows[0].official.rank_interval[0] == 1
        assert rows[1].official is not None and rows[1].official.rank_interval[0] == 2  # cat is proven behind tri

    one_size = _final(lad, "at4", 4)  # ladder final before it played the mix: the largest size only
    said = "\n".join(one_size)
    assert "at tables of 4 (a round robin's): the ladder's official one mixes its table sizes 3:3,4:1" in said
    assert "ladder final: disagrees with the ladder's official standing: cat#1 is 1st in the final" in one_size[-1]
    with Ladder.open(lad) as ladder:  # the first final closed the ladder's play: every epoch's secret is out
        assert ladder.store.epochs() and all(e.secret and e.closed_at for e in ladder.store.epochs())

    mixed = _final(lad, "final", None)
    said = "\n".join(mixed)
    assert "at tables of 3 and 4 mixed 3:3,4:1 (each pass of the race draws its size): the ladder's official " in said
    assert mixed[-1].startswith("ladder final: agrees with the ladder's official standing"), mixed
    standings = json.loads((lad / "final" / "standings.json").read_text())
    assert standings["entrants"][0]["name"] == "tri#1", standings["race"]
    with sqlite3.connect(lad / "final" / "results.sqlite") as db:
        sizes = dict(db.execute("SELECT players, COUNT(*) / players FROM games GROUP BY players").fetchall())
    assert sizes.keys() == {3, 4} and sizes[3] > sizes[4], sizes  # blocks at both sizes, mostly 3 (3:1)
