"""``referee ladder final``: submissions closed, the active versions play a normal tournament with its own
committed secret, standings, report and verify-deals."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from referee.cli import main
from referee.ladder import Ladder, Refused, VersionState
from tests.ladder.samples import sample_folder


def test_the_final_plays_the_active_versions_into_a_results_folder(tmp_path: Path) -> None:
    made, _ = Ladder.init(tmp_path / "lad")
    made.layout.config.write_text('[games]\ntable_sizes = [3]\ntable_weights = [1]\nsandbox = "none"\n')
    made.close()
    with Ladder.open(tmp_path / "lad") as ladder:
        for name in ("random_bot", "greedy", "heuristic"):
            ladder.add_entrant(name)
            v = ladder.submit(name, sample_folder(name, tmp_path / "src"))
            ladder.store.set_version_state(v.id, VersionState.RANKED)
        ladder.add_entrant("late")
    runner = CliRunner()
    out = runner.invoke(
        main, ["ladder", "final", str(tmp_path / "lad"), "--format", "balanced", "--tables-per-entrant", "1"]
    )
    assert out.exit_code == 0, out.output
    assert "submissions are closed; 3 versions: random_bot#1, greedy#1, heuristic#1" in out.output
    results = tmp_path / "lad" / "final"
    standings = json.loads((results / "standings.json").read_text())
    assert standings["deals"]["secret"] is not None and (results / "report.html").is_file()
    assert {e["name"] for e in standings["entrants"]} == {"random_bot#1", "greedy#1", "heuristic#1"}
    assert not any(e["forfeits"] for e in standings["entrants"]), standings["entrants"]
    verified = runner.invoke(main, ["verify-deals", str(results)])
    assert verified.exit_code == 0 and "verified" in verified.output
    with Ladder.open(tmp_path / "lad") as ladder:
        try:
            ladder.submit("late", sample_folder("greedy", tmp_path / "src", tag="-late"))
        except Refused as exc:
            assert "submissions are closed" in str(exc)
        else:  # pragma: no cover - the assertion below says it
            raise AssertionError("a submission was taken after the final began")
