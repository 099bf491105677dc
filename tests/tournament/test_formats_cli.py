"""The formats through the ``referee`` command with real bot processes: race resumed after kill -9, balanced and
gauntlet runs, and the one-line refusals."""

from __future__ import annotations

import json
import signal
import sqlite3
from pathlib import Path

from referee.tournament import ResultsStore, race_of, replay_race

from .conftest import referee
from .test_real_runs import bots, start_referee, wait_for_games

COMMON = ["--seed", "99", "--move-time", "5", "--jobs", "2", "--sandbox", "none", "-k", "3"]
RACE = ["--format", "race", "--top", "2", "--max-games", "72", "--tie-margin", "0.05"]


def test_race_resumes_exactly_after_kill_9(tmp_path: Path, bot_dir: Path) -> None:
    whole = tmp_path / "whole"
    done = referee("run", *bots(bot_dir), *COMMON, *RACE, "--out", whole)
    assert done.returncode == 0, done.stderr
    assert "Race: stopped at --max-games 72" in done.stdout
    expected = json.loads((whole / "standings.json").read_text())
    assert expected["format"] == "race"
    assert expected["race"]["top"] == 2 and expected["race"]["confidence"] == 0.95
    assert expected["race"]["tie_margin"] == 0.05 and expected["race"]["within_margin"] == []
    assert expected["race"]["settled"] is False and "--max-games 72" in expected["race"]["reason"]
    assert expected["games"] == expected["race"]["games"] == 72  # rounds of 24 games: 4 shuffles, 2 tables of 3
    assert expected["deals"]["secret"] is not None, "a finished race reveals its deal secret"
    secret = tmp_path / "secret.txt"
    secret.write_text(expected["deals"]["secret"] + "\n")  # the same cards again

    part = tmp_path / "part"
    proc = start_referee("run", *bots(bot_dir), *COMMON, *RACE, "--out", part, "--deal-secret", secret)
    try:
        wait_for_games(part / "results.sqlite", 15, proc)
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
        proc.communicate()
    with sqlite3.connect(part / "results.sqlite") as conn:
        stored = conn.execute("SELECT count(*) FROM games").fetchone()[0]
    assert 15 <= stored < 72, "killed midway"
    interrupted = json.loads(referee("standings", part, "--json").stdout)
    assert interrupted["race"]["reason"].startswith("not finished")

    resumed = referee("run", "--resume", part)
    assert resumed.returncode == 0, resumed.stderr
    again = json.loads((part / "standings.json").read_text())
    # The chain's head hashes the game logs (their timings) in storage order: another run, another head.
    assert again["deals"].pop("chain_head") is not None and expected["deals"].pop("chain_head") is not None
    assert again == expected
    with ResultsStore(part, create=False) as store:
        params = store.params()
        assert params is not None
        results = {g.game_id: g.seats for g in store.games()}
    race = race_of(params)
    assert replay_race(race, results) == [] and race.games == len(results), "every stored game is the race's own"
    verified = referee("verify-deals", part)
    assert verified.returncode == 0 and "all 72 games" in verified.stdout, verified.stdout + verified.stderr
    html = (part / "report.html").read_text()
    assert "race" in html and "--max-games 72" in html


def test_balanced_and_gauntlet_runs(tmp_path: Path, bot_dir: Path) -> None:
    out = tmp_path / "balanced"
    done = referee("run", *bots(bot_dir), *COMMON, "--format", "balanced", "--tables-per-entrant", "3", "--out", out)
    assert done.returncode == 0, done.stderr
    data = json.loads((out / "standings.json").read_text())
    assert data["format"] == "balanced" and data["games"] == 12 and data["complete_deals"] == 4
    assert {e["deals"] for e in data["entrants"]} == {3}
    verified = referee("verify-deals", out)
    assert verified.returncode == 0 and "all 12 games of 4 deals" in verified.stdout, verified.stdout + verified.stderr

    manifest = tmp_path / "bots.toml"
    manifest.write_text(
        "".join(
            f'[[bot]]\ncommand = "{b}"\n' + ("challenger = true\n" if b.stem == "alpha" else "") for b in bots(bot_dir)
        )
    )
    out = tmp_path / "gauntlet"
    args = ["--seed", "3", "--sandbox", "none", "--jobs", "2"]
    done = referee("run", "--manifest", manifest, *args, "--format", "gauntlet", "--games", "2", "--out", out)
    assert done.returncode == 0, done.stderr
    data = json.loads((out / "standings.json").read_text())
    assert data["format"] == "gauntlet" and data["games"] == 3 * 2 * 2  # 3 field entrants, 2 deals, tables of 2
    h2h = data["head_to_head_games"]
    assert h2h["beta"]["gamma"] == 0 and h2h["alpha"]["beta"] == 4, "the field never meets itself"


def test_refusals_are_one_line(tmp_path: Path, bot_dir: Path) -> None:
    many = [bots(bot_dir)[0]] * 40
    big = referee("run", *many, "--out", tmp_path / "x")
    assert big.returncode == 2
    assert big.stderr.strip().splitlines() == [
        "referee run: error: a round robin of 40 entrants at tables of 4 is 365,560 games, over --max-games 100,000; "
        "use --format balanced --tables-per-entrant T or --format race, or raise --max-games"
    ]
    assert not (tmp_path / "x").exists()
    for extra, text in [
        (["--format", "race", "--top", "4"], "--top must be 1 to 3"),
        (["--format", "balanced"], "--tables-per-entrant T"),
        (["--top", "2"], "--format race only"),
        (["--tie-margin", "0.5"], "--tie-margin applies to --format race only"),
        (["--format", "race", "--tie-margin", "-1"], "--tie-margin is a matchpoint share: at least 0 and below 1"),
        (["--challenger", str(bots(bot_dir)[0])], "need --format gauntlet"),
        (["--format", "swiss"], "Invalid value for '--format'"),
    ]:
        r = referee("run", *bots(bot_dir), *extra, "--out", tmp_path / "y")
        assert r.returncode == 2 and text in r.stderr and "Traceback" not in r.stderr, (extra, r.stderr)
