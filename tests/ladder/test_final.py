"""``referee ladder final``: submissions closed, the active versions play a normal tournament with its own
committed secret, standings, report and verify-deals."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from referee.cli import main
from referee.cli.ladder_cmd import DEFAULT_FINAL_GAMES
from referee.contest.deal_secret import DEAL_SCHEME, DealSecret
from referee.ladder import Ladder, Refused, VersionState
from referee.ladder.final import DEFAULT_MAX_GAMES, verdict_lines
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


def test_the_race_final_reveals_the_epoch_secret_and_ends_by_itself_with_a_verdict(tmp_path: Path) -> None:
    """The ladder's open epoch is closed and its secret revealed (it matches the commitment announced before its
    first block); the race stops by itself at --max-games, within it, and says what it proved."""
    made, _ = Ladder.init(tmp_path / "lad")
    made.layout.config.write_text('[games]\ntable_sizes = [3]\ntable_weights = [1]\nsandbox = "none"\n')
    made.close()
    secret = DealSecret.new()
    with Ladder.open(tmp_path / "lad") as ladder:
        for name in ("random_bot", "greedy", "heuristic"):
            ladder.add_entrant(name)
            v = ladder.submit(name, sample_folder(name, tmp_path / "src"))
            ladder.store.set_version_state(v.id, VersionState.RANKED)
        epoch = ladder.store.open_epoch(DEAL_SCHEME, secret.commitment, secret.hex)
        assert ladder.store.epoch(epoch.id).secret is None
    out = CliRunner().invoke(main, ["ladder", "final", str(tmp_path / "lad"), "--top", "1", "--max-games", "12"])
    assert out.exit_code == 0, out.output
    assert f"epoch {epoch.id} closed; its secret is revealed: {secret.hex}" in out.output
    with Ladder.open(tmp_path / "lad") as ladder:
        stored = ladder.store.epoch(epoch.id)
        assert stored.secret == secret.hex and stored.closed_at and ladder.store.open_epoch_now() is None
    standings = json.loads((tmp_path / "lad" / "final" / "standings.json").read_text())
    assert standings["race"]["games"] <= 12 and standings["race"]["reason"]
    assert (
        "ladder final: settled: " in out.output or "ladder final: not settled: stopped at --max-games 12" in out.output
    )
    assert "the ladder's official estimand" in out.output


def test_the_final_says_where_its_order_leaves_the_ladder_rank_intervals() -> None:
    race = {"top": 2, "confidence": 0.95, "settled": False, "reason": "stopped at --max-games 100"}
    rows = [
        {"name": "a#1", "separated_from_next": True},
        {"name": "b#1", "separated_from_next": False},
        {"name": "c#2", "separated_from_next": None},
    ]
    lines = verdict_lines({"race": race, "entrants": rows}, {"a#1": (1, 1), "b#1": (3, 3), "c#2": (2, 2)})
    assert (
        "not settled: stopped at --max-games 100; proved at 95%: a#1 ahead of b#1; not proved: b#1 vs c#2" in lines[0]
    )
    assert lines[1] == (  # b#1 is proven behind a#1, not ahead of c#2: 2nd or 3rd, and the ladder says 3rd
        "ladder final: no proven disagreement with the ladder's official standing, but the places it did not prove "
        "could still differ: b#1 (2nd by its estimate, outside its ladder rank interval 3-3; it proved 2nd to 3rd)"
    )
    settled = verdict_lines({"race": race | {"settled": True}, "entrants": rows}, {"b#1": (3, 3)})
    assert settled[1].endswith(
        "disagrees with the ladder's official standing: b#1 is 2nd in the final, outside its ladder rank interval 3-3"
    )
    unsettled = [{"name": n, "separated_from_next": s} for n, s in (("a#1", True), ("b#1", True), ("c#2", None))]
    proven = verdict_lines({"race": race, "entrants": unsettled}, {"b#1": (3, 3)})
    assert proven[1].endswith("b#1 is 2nd in the final, outside its ladder rank interval 3-3")  # a > b > c proved
    agreeing = verdict_lines({"race": race | {"settled": True}, "entrants": rows}, {"a#1": (1, 2), "b#1": (1, 3)})
    assert agreeing[0].startswith("ladder final: settled: a#1 > b#1;") and "agrees with" in agreeing[1]
    assert DEFAULT_FINAL_GAMES == DEFAULT_MAX_GAMES
