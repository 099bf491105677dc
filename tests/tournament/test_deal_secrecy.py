"""Issue 17: deals no bot can derive, and the commitment to them (``referee run``, ``play``, ``verify-deals``).

The attack bot ``tests/bots/rederive.py`` re-deals with the public engine from everything a bot can know or
guess (the game id, likely tournament seeds, the older public scheme, guessed HMAC keys) and says on stderr
whether a guess gave its own hand. On the referee before this change it matched in every game.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from pathlib import Path

import pytest
import zstandard

from referee.runner.gamelog import log_content
from tests.e2e.helpers import MODES

from .conftest import BOT, referee

ATTACKER = Path(__file__).resolve().parents[1] / "bots" / "rederive.py"


def entrants(tmp_path: Path) -> list[Path]:
    """The attack bot and two random bots, each in its own folder (as a contest lays them out)."""
    paths = []
    for name, source in (("rederive", ATTACKER), ("alpha", BOT), ("beta", BOT)):
        folder = tmp_path / "bots" / name
        folder.mkdir(parents=True)
        target = folder / f"{name}.py"
        target.write_bytes(source.read_bytes())
        (folder / "_base.py").write_bytes((ATTACKER.parent / "_base.py").read_bytes())
        paths.append(target)
    return paths


def verdicts(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("rederive: ")]


@pytest.mark.parametrize("sandbox", MODES)
def test_a_bot_cannot_re_deal_a_tournament_from_its_seed_or_game_id(tmp_path: Path, sandbox: str) -> None:
    out = tmp_path / "results"
    args = ["--seed", "1", "--move-time", "10", "--sandbox", sandbox, "--games", "2", "--out", out]
    done = referee("run", *entrants(tmp_path), *args, timeout=300)
    assert done.returncode == 0, done.stderr
    said = verdicts("".join(p.read_text() for p in (out / "bots").glob("rederive.*.log")))
    assert len(said) == 6, said  # one table of three, every rotation, two deals: six games
    assert all(line.startswith("rederive: no match among ") for line in said), said


def test_a_played_game_carries_no_seed_in_its_id_and_cannot_be_re_dealt(tmp_path: Path) -> None:
    log = tmp_path / "logs" / "game.jsonl"
    done = referee("play", ATTACKER, BOT, "--sandbox", "none", "--move-time", "10", "--log", log)
    assert done.returncode == 0, done.stderr
    header = json.loads(log.read_text().splitlines()[0])
    assert re.fullmatch(r"play-\d{8}-\d{6}-[0-9a-f]{6}", header["game"]), header["game"]
    assert str(header["seed"]) not in header["game"]
    (said,) = verdicts((tmp_path / "logs" / "game.seat0.rederive.stderr.log").read_text())
    assert said.startswith("rederive: no match among "), said
    # A seed the user gives (for a test) stays out of the id too.
    seeded = tmp_path / "logs" / "seeded.jsonl"
    # (a seed of 12 digits: a short one such as 777 turns up by chance in the id's 6 random hex digits, 1 run in ~1,000)
    done = referee("play", BOT, BOT, "--sandbox", "none", "--seed", "918273645501", "--log", seeded)
    assert done.returncode == 0, done.stderr
    header = json.loads(seeded.read_text().splitlines()[0])
    assert header["seed"] == 918273645501 and "918273645501" not in header["game"]


def game_seeds(folder: Path) -> list[int]:
    with sqlite3.connect(folder / "results.sqlite") as db:
        return [r[0] for r in db.execute("SELECT seed FROM games ORDER BY ordinal")]


def test_commitment_before_the_first_game_reveal_at_the_end_and_verify_deals(tmp_path: Path) -> None:
    bots = [tmp_path / f"{n}.py" for n in ("a", "b", "c")]
    for b in bots:
        b.write_bytes(BOT.read_bytes())
    out = tmp_path / "t"
    done = referee("run", *bots, "--seed", "3", "--sandbox", "none", "--games", "2", "--out", out)
    assert done.returncode == 0, done.stderr
    first, *_ = (line for line in done.stdout.splitlines() if "Deal commitment" in line)
    commitment = first.rsplit(" ", 1)[1]
    assert re.fullmatch(r"[0-9a-f]{64}", commitment)
    assert done.stdout.index("Deal commitment") < done.stdout.index("Standings")
    deals = json.loads((out / "standings.json").read_text())["deals"]
    assert deals["scheme"] == "hmac-sha256/v1" and deals["commitment"] == commitment
    assert hashlib.sha256(bytes.fromhex(deals["secret"])).hexdigest() == commitment
    assert deals["secret"] in (out / "report.html").read_text()
    assert deals["secret"] in done.stdout

    checked = referee("verify-deals", out, "--commitment", commitment)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert "verified" in checked.stdout and "all 6 games of 2 deals" in checked.stdout

    # The same seed with the revealed secret deals every game again; without it, other cards.
    secret = tmp_path / "secret.txt"
    secret.write_text(deals["secret"])
    again = tmp_path / "again"
    done = referee(
        "run", *bots, "--seed", "3", "--sandbox", "none", "--games", "2", "--deal-secret", secret, "-o", again
    )
    assert done.returncode == 0, done.stderr
    assert game_seeds(again) == game_seeds(out)
    other = tmp_path / "other"
    done = referee("run", *bots, "--seed", "3", "--sandbox", "none", "--games", "2", "--out", other)
    assert done.returncode == 0, done.stderr
    assert set(game_seeds(other)).isdisjoint(game_seeds(out))

    # A commitment other than the published one, a changed seed, a changed logged deal: each one line, status 1.
    wrong = referee("verify-deals", out, "--commitment", "0" * 64)
    assert wrong.returncode == 1 and "DISAGREES" in wrong.stdout and "0" * 64 in wrong.stdout
    with sqlite3.connect(again / "results.sqlite") as db:
        db.execute("UPDATE games SET seed = seed + 1 WHERE game_id = 'g000002'")
    changed = referee("verify-deals", again)
    assert changed.returncode == 1 and "g000002" in changed.stdout, changed.stdout
    log = other / "games" / "g000004.jsonl.zst"
    lines = log_content(log).decode().splitlines()
    header = json.loads(lines[0])
    hands = header["deal"]["rounds"][0]["hands"]
    hands[0], hands[1] = hands[1], hands[0]
    log.write_bytes(zstandard.compress("\n".join([json.dumps(header), *lines[1:]]).encode() + b"\n"))
    swapped = referee("verify-deals", other)
    assert swapped.returncode == 1 and "g000004" in swapped.stdout and "not the deal of seed" in swapped.stdout


def test_a_wrong_or_unreadable_deal_secret_is_one_line(tmp_path: Path) -> None:
    bots = [tmp_path / f"{n}.py" for n in ("a", "b")]
    for b in bots:
        b.write_bytes(BOT.read_bytes())
    out = tmp_path / "t"
    assert referee("run", *bots, "--sandbox", "none", "--out", out).returncode == 0
    for content, message in (("not hex", "hexadecimal"), ("abcd", "at least 32 bytes")):
        bad = tmp_path / "bad.txt"
        bad.write_text(content)
        done = referee("run", *bots, "--sandbox", "none", "--deal-secret", bad, "--out", tmp_path / "new")
        assert done.returncode == 2 and message in done.stderr and len(done.stderr.splitlines()) == 1, done.stderr
    other = tmp_path / "other.txt"
    other.write_text("cd" * 32)
    done = referee("run", "--resume", out, "--deal-secret", other)
    assert done.returncode == 2 and len(done.stderr.splitlines()) == 1, done.stderr
    assert "is not the secret of its tournament" in done.stderr
    missing = referee("verify-deals", tmp_path / "nothing")
    assert missing.returncode == 2 and len(missing.stderr.splitlines()) == 1 and "Traceback" not in missing.stderr
