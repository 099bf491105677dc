"""A ladder with something to show, made the way ``serve`` fills one: entrants with tokens, versions submitted
through the ladder's intake, gates, an epoch, and blocks committed whole, one block of real games (real bot
processes, one of which breaks the rules) and more blocks of simulated results for the standings.

The real games are played by ``referee play`` (three rotations of one deal at a table of three, in parallel); the
simulated blocks have results only (no logs), drawn from entrants of known strength.
"""

from __future__ import annotations

import hashlib
import random
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from referee.ladder import BlockKind, Ladder, VersionState
from referee.ladder.standing import block_outcome_shares
from referee.ladder.store import GameRow
from referee.runner.gamelog import read_records
from referee.runner.logrecords import FaultEvent, ResultEvent

ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = ROOT / "tests" / "bots" / "random_bot.py"
#: An entrant name that is markup: every page must show it as text.
HOSTILE = '<img src=x onerror="alert(1)">&amp;'
#: What the hostile entrant's bot writes to stderr (markup too).
HOSTILE_STDERR = "<script>alert('stderr')</script>"


@dataclass
class Built:
    """The ladder folder, its organiser token, each entrant's token and version id."""

    root: Path
    admin: str
    tokens: dict[str, str]
    versions: dict[str, int]
    real_block: int
    faulted_game: str
    clean_game: str


def _play_block(folder: Path, commands: list[str], seed: int) -> list[Path]:
    """The three rotations of one deal (``seed``) at a table of three, played at once by ``referee play``."""
    folder.mkdir(parents=True, exist_ok=True)
    runs = []
    for rotation in range(3):
        seats = commands[rotation:] + commands[:rotation]
        log = folder / f"{rotation}.jsonl"
        runs.append(
            (
                log,
                subprocess.Popen(
                    [sys.executable, "-m", "referee", "play", *seats, "--seed", str(seed), "--sandbox", "none",
                     "--log", str(log), "--json"],
                    cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                ),
            )
        )  # fmt: skip
    for _log, proc in runs:
        _, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err.decode()
    return [log for log, _ in runs]


def build(root: Path, *, simulated: int = 40) -> Built:
    ladder, admin = Ladder.init(root)
    store = ladder.store
    tokens, versions = {}, {}
    bots = {
        "alice": ROOT / "sample_bots" / "greedy.py",
        "bob": ROOT / "sample_bots" / "heuristic.py",
        HOSTILE: RANDOM_BOT,
        "carol": ROOT / "sample_bots" / "random_bot.py",
    }
    for name, bot in bots.items():
        _, tokens[name] = ladder.add_entrant(name)
        v = ladder.submit(name, bot)
        versions[name] = v.id
        store.start_gate(v.id)
        store.finish_gate(v.id, passed=True, reasons=[], report=None, build_log=None)
        store.set_version_state(v.id, VersionState.RANKED, None)
    # a second version of carol that failed its gate: its reasons are carol's only
    failed = ladder.submit("carol", RANDOM_BOT)
    store.start_gate(failed.id)
    store.finish_gate(failed.id, passed=False, reasons=["crashed in 3 of 24 check games"], report=None, build_log=None)
    store.set_version_state(failed.id, VersionState.FAILED, "the gate failed: crashed in 3 of 24 check games")
    secret = bytes(range(32))
    epoch = store.open_epoch("hmac-sha256-v1", hashlib.sha256(secret).hexdigest(), secret.hex())

    # one block of real games: alice, bob and the hostile entrant (its bot makes an illegal move on its 4th turn and
    # writes markup to stderr)
    table = ["alice", "bob", HOSTILE]
    hostile = f"env MISBEHAVE=illegal MISBEHAVE_AT=4 BOT_NAME=x {sys.executable} {RANDOM_BOT}"
    commands = [str(bots["alice"]), str(bots["bob"]), hostile]
    block = store.create_block(epoch.id, BlockKind.RANKED, [versions[n] for n in table], lambda _: 5)
    logs = _play_block(ladder.layout.root / "games" / str(block.id), commands, 5)
    rows, totals, forfeits = [], [0, 0, 0], [0, 0, 0]
    for rotation, log in enumerate(logs):
        seats = tuple(versions[n] for n in table[rotation:] + table[:rotation])
        _, events = read_records(log, wire=False)
        result = next(e for e in events if isinstance(e, ResultEvent))
        faults = tuple(e.fault for e in events if isinstance(e, FaultEvent))
        rows.append(
            GameRow(rotation, seats, result.scores, result.ranks, tuple(s in result.forfeits for s in range(3)), faults,
                    str(log.relative_to(ladder.layout.root)), 0.5)
        )  # fmt: skip
        for seat, vid in enumerate(seats):
            i = [versions[n] for n in table].index(vid)
            totals[i] += result.scores[seat]
            forfeits[i] += int(seat in result.forfeits)
    _commit(store, block.id, [versions[n] for n in table], rows, totals, forfeits)
    stderr = ladder.layout.bots / f"{HOSTILE}#1.lane0.log"
    stderr.parent.mkdir(parents=True, exist_ok=True)
    stderr.write_text(HOSTILE_STDERR + "\n", encoding="utf-8")
    faulted = next(r for r in rows if any(r.forfeits))
    clean = next((r for r in rows if not any(r.forfeits)), rows[0])

    # simulated blocks: results only, from strengths alice > bob > carol > hostile
    rng = random.Random(23)
    strength = {"alice": 3.0, "bob": 2.0, "carol": 1.0, HOSTILE: 0.0}
    names = list(strength)
    for _ in range(simulated):
        table = rng.sample(names, 3)
        commit_simulated(store, epoch.id, [versions[n] for n in table], rng, strengths=[strength[n] for n in table])
    ladder.close()
    return Built(
        root, admin, tokens, versions, block.id, f"{block.id}.{faulted.rotation}", f"{block.id}.{clean.rotation}"
    )


def commit_simulated(
    store: Any,
    epoch: int,
    vids: list[int],
    rng: random.Random,
    kind: BlockKind = BlockKind.RANKED,
    strengths: list[float] | None = None,
) -> int:
    """A block of simulated results (no games stored) for versions ``vids``, committed whole; its id."""
    b = store.create_block(epoch, kind, vids, lambda i: 1000 + i)
    totals = [round(rng.gauss(30 - 4 * s, 6)) * 3 for s in (strengths or [1.0] * len(vids))]
    _commit(store, b.id, vids, [], totals, [0] * len(vids))
    return int(b.id)


def _commit(
    store: object, block_id: int, vids: list[int], games: list[GameRow], totals: list[int], forfeits: list[int]
) -> None:
    from referee.ladder.model import SeatRecord

    shares = block_outcome_shares(totals, forfeits, len(vids))
    results = [SeatRecord(vid, "", totals[i], 3, forfeits[i], shares[i][0], shares[i][1]) for i, vid in enumerate(vids)]
    ratings = {vid: (25.0 + 5 * (shares[i][0] - 0.5), 8.0) for i, vid in enumerate(vids)}
    store.commit_block(block_id, games, results, ratings)  # type: ignore[attr-defined]
