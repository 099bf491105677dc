"""What the pages and the API show, read from the ladder: plain functions of a ``Ladder`` (run in a worker thread,
``reads.LadderAccess.run``) that return the API's models.

What is whose: the standings, versions' states, blocks, games, their replays and public logs, and the epochs are
everyone's; a version's failure reasons, gate and build output, its faults' details and its stderr are its
author's and the organiser's only. A game's public log is its log without the wire lines (every message to and
from the bots) and without fault details: what anyone needs to replay and re-rate it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from referee.ladder import BlockState
from referee.ladder.model import ACTIVE_STATES
from referee.report import encode_replay, read_game_log
from referee.runner.gamelog import log_lines, parse_log_line, read_records
from referee.runner.logrecords import FaultEvent
from referee.web.game_stderr import game_stderr
from referee.web.models import (
    BlockBody,
    BlockSeat,
    EntrantBody,
    EpochBody,
    FaultBody,
    GameBody,
    GateBody,
    HeadToHead,
    LeaderboardBody,
    LogFile,
    VersionBody,
)

if TYPE_CHECKING:
    from referee.ladder import Ladder

__all__ = [
    "block",
    "blocks",
    "entrant",
    "epochs",
    "export_lines",
    "faults",
    "game",
    "head_to_head",
    "leaderboard",
    "public_log",
    "rating_history",
    "replay",
    "stderr",
    "version",
]

#: A game log's events the public log leaves out: every message to and from the bots, and the faults' details.
PRIVATE_EVENTS = frozenset({"send", "recv", "fault"})
#: How the log writer begins the lines of every message to and from the bots (``GameLogWriter.sent``/``received``).
WIRE_LINES = ('{"event":"send"', '{"event":"recv"')
#: Wire lines ``public_log`` passes by between two pause points.
PAUSE_EVERY = 256
#: The blocks the head-to-head table is counted over (a version's latest ones: the page stays fast at any size).
H2H_BLOCKS = 100
#: The most of one stderr file shown (its end: where a crash says why), and the most files shown (the newest).
STDERR_TAIL, STDERR_FILES = 64 * 1024, 8


def _may_see(principal: Any, entrant: str) -> bool:
    return principal is not None and (principal.admin or principal.name == entrant)


def leaderboard(ladder: Ladder) -> LeaderboardBody:
    """The official standing and the live ratings, as of the last committed block."""
    board = ladder.leaderboard().to_dict()
    return LeaderboardBody.model_validate({**board, "computed_at": _now()})


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _version_body(ladder: Ladder, v: Any, principal: Any, status: Any = None) -> VersionBody:
    data = (status or ladder.version_status(v.entrant, v.number)).to_dict()
    data["fault_kinds"] = ladder.fault_kinds(v.entrant, v.number)
    if not _may_see(principal, v.entrant):
        for private in ("command", "build", "reason", "gate", "build_output"):
            data[private] = None
    elif data.get("gate") is not None:
        data["gate"] = GateBody.model_validate(data["gate"])
    return VersionBody.model_validate(data)


def version(ladder: Ladder, principal: Any, name: str, number: int) -> VersionBody:
    """A version's status (its private parts for its author). Raises the ladder's ``Refused`` for unknown ones."""
    v = ladder.version(name, number)
    return _version_body(ladder, v, principal)


def entrant(ladder: Ladder, principal: Any, name: str) -> EntrantBody:
    """An entrant and its versions, newest first."""
    e = ladder.entrant(name)
    versions = sorted(ladder.versions(name), key=lambda v: -v.number)
    return EntrantBody(
        name=e.name,
        state=e.state.value,
        created_at=e.created_at,
        reason=e.reason if _may_see(principal, e.name) else None,
        versions=[_version_body(ladder, v, principal) for v in versions],
    )


def _keys(ladder: Ladder, ids: Any) -> dict[int, str]:
    out: dict[int, str] = {}
    for vid in ids:
        if vid not in out:
            v = ladder.store.version(vid)
            out[vid] = v.key if v is not None else f"#{vid}"
    return out


def _game_body(g: Any, keys: dict[int, str]) -> GameBody:
    return GameBody(
        id=g.id,
        block=g.block_id,
        rotation=g.rotation,
        seats=[keys[v] for v in g.seats],
        scores=list(g.scores),
        ranks=list(g.ranks),
        forfeits=list(g.forfeits),
        duration=g.duration,
        finished_at=g.finished_at,
    )


def _block_body(b: Any, games: list[GameBody] | None = None, results: Any = None) -> BlockBody:
    """A block as the API shows it: its deal's seed only once the block is done (the seed gives every hand of the
    deal, and a block in play, or void and to be played again, is still being dealt from it)."""
    return BlockBody(
        id=b.id,
        epoch=b.epoch_id,
        kind=b.kind.value,
        state=b.state.value,
        seed=str(b.seed) if b.state == BlockState.DONE else None,
        attempts=b.attempts,
        created_at=b.created_at,
        finished_at=b.finished_at,
        reason=b.reason,
        results=[
            BlockSeat(
                key=r.key, total=r.total, games=r.games, forfeits=r.forfeits, matchpoints=r.matchpoints,
                relative=r.relative,
            )
            for r in (b.results if results is None else results)
        ],
        games=games,
    )  # fmt: skip


def blocks(
    ladder: Ladder, *, before: int | None = None, limit: int = 50, name: str | None = None, number: int | None = None
) -> list[BlockBody]:
    """Blocks newest first, with their results (of one version when ``name`` and ``number`` are given)."""
    found = ladder.blocks(name=name, number=number, before=before, limit=limit)
    results = ladder.store.blocks_results([b.id for b in found])
    return [_block_body(b, results=results.get(b.id, ())) for b in found]


def block(ladder: Ladder, block_id: int) -> BlockBody:
    """A block with its results and its games."""
    b = ladder.block(block_id)
    games = ladder.games(block_id)
    keys = _keys(ladder, (v for g in games for v in g.seats))
    return _block_body(b, [_game_body(g, keys) for g in games])


def game(ladder: Ladder, game_id: str) -> GameBody:
    g = ladder.game(game_id)
    return _game_body(g, _keys(ladder, g.seats))


def public_log(ladder: Ladder, game_id: str) -> Iterator[str]:
    """The game's public log as JSON lines: its header, discards, actions, forfeits, round ends and result (its
    faults with seat, kind and when, their detail and line blanked); no wire lines, no fault events. The lines
    kept are passed on as the log has them. The wire lines (most of a log's bytes; all of a flooding bot's) are
    passed by unparsed, and an empty string is yielded after every ``PAUSE_EVERY`` of them: a point where a paced
    reader (``reads.Pace``) may wait. Raises the ladder's ``Refused`` (no such game, no log) or ``LogError``."""
    path = ladder.game_log(game_id)
    passed = 0
    for number, line in log_lines(path):
        if line.startswith(WIRE_LINES):
            passed += 1
            if passed % PAUSE_EVERY == 0:
                yield ""
            continue
        event = parse_log_line(path, number, line)
        kind = event["event"]
        if kind in PRIVATE_EVENTS:
            continue
        if kind == "result":
            event["faults"] = [{**f, "detail": "", "line": None} for f in event.get("faults", ())]
            line = json.dumps(event, separators=(",", ":"), ensure_ascii=False)
        yield line.rstrip("\n") + "\n"


def replay(ladder: Ladder, principal: Any, game_id: str) -> dict[str, Any]:
    """What the replay viewer needs for one game: the game (as the report's index has it), the seats' names, the
    compact replay, its faults (details only of the caller's own seats) and the caller's own seats' stderr, turn by
    turn, with those of them whose stderr file was full before the game (``game_stderr``). Raises ``Refused`` or
    ``ReplayError``."""
    g = ladder.game(game_id)
    keys = _keys(ladder, g.seats)
    path = ladder.game_log(game_id)
    logged = read_game_log(path)
    rep = encode_replay(len(g.seats), logged.ruleset, logged.steps, deal=logged.deal)
    names = [keys[v] for v in g.seats]
    _, events = read_records(path, wire=False)
    mine_seats = [s for s, key in enumerate(names) if _may_see(principal, key.rpartition("#")[0])]
    faults = []
    for e in events:
        if isinstance(e, FaultEvent):
            mine = e.fault.seat in mine_seats
            faults.append(
                {"game": 0, "seat": e.fault.seat, "kind": e.fault.kind, "detail": e.fault.detail if mine else ""}
            )
    stderr, full = game_stderr(ladder, g, names, mine_seats) if mine_seats else ([], [])
    seed = None if logged.seed is None else str(logged.seed)
    return {**viewer_payload(g.id, names, rep, seed=seed, faults=faults), "stderr": stderr, "stderr_full": full}


def viewer_payload(
    label: str, names: Sequence[str], replay: Any, *, seed: str | None = None, faults: Sequence[Any] = ()
) -> dict[str, Any]:
    """What the replay viewer reads for one game (a ladder game's, a final's, a human game's): its ``label``, the
    seats' ``names``, the compact ``replay``, the deal's ``seed`` when shown and the ``faults`` shown."""
    return {
        "game": {"key": 0, "label": label, "seats": list(range(len(names))), "seed": seed},
        "names": list(names),
        "replay": replay,
        "faults": list(faults),
    }


def faults(ladder: Ladder, name: str, number: int, limit: int = 200) -> list[FaultBody]:
    """A version's latest faults, newest first (the caller checked that it may see them)."""
    return [FaultBody.model_validate(f) for f in ladder.faults(name, number, limit)]


def stderr(ladder: Ladder, name: str, number: int) -> list[LogFile]:
    """A version's newest ``STDERR_FILES`` stderr files (a bot that keeps crashing leaves one a start), each its
    last ``STDERR_TAIL`` bytes from the start of a line, and whether ranked play or the gate wrote it (the caller
    checked that it may see them)."""
    gate = ladder.layout.gate_dir(ladder.version(name, number).id)
    paths = ladder.stderr_logs(name, number)
    if len(paths) > STDERR_FILES:
        paths = sorted(sorted(paths, key=_modified, reverse=True)[:STDERR_FILES])
    return [_tail(p, "gate" if p.parent == gate else "ranked play") for p in paths]


def _modified(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def _tail(path: Path, source: str) -> LogFile:
    """The file's last ``STDERR_TAIL`` bytes; when that cuts a line, from the start of the next one (unless the
    tail is one line)."""
    try:
        with path.open("rb") as f:
            size = f.seek(0, 2)
            f.seek(max(0, size - STDERR_TAIL))
            data = f.read(STDERR_TAIL)
    except OSError as exc:
        text = f"(cannot be read: {exc.strerror or exc})"
        return LogFile(name=path.name, size=0, text=text, truncated=False, source=source)
    truncated = size > STDERR_TAIL
    if truncated and 0 <= (newline := data.find(b"\n")) < len(data) - 1:
        data = data[newline + 1 :]
    text = data.decode("utf-8", "replace")
    return LogFile(name=path.name, size=size, text=text, truncated=truncated, source=source)


def export_lines(ladder: Ladder) -> Iterator[str]:
    """Every finished game as one JSON line (the ladder's export)."""
    yield from ladder.export_games()


def epochs(ladder: Ladder) -> list[EpochBody]:
    """Every epoch, newest first: its commitment, and its secret once revealed (the ladder gives it only then)."""
    return [
        EpochBody(
            id=e.id, scheme=e.scheme, commitment=e.commitment, opened_at=e.opened_at, closed_at=e.closed_at,
            secret=e.secret, blocks=e.blocks, chain_head=e.chain_head,
        )
        for e in sorted(ladder.epochs(), key=lambda e: -e.id)
    ]  # fmt: skip


def followed_version(ladder: Ladder, name: str) -> int | None:
    """The version an entrant's page follows: its newest one playing (ranked or in placement), else its newest that
    played any block, else its newest (so a newer version that failed its gate or waits for it does not hide the
    one that plays). None for an entrant with no version."""
    entrant = ladder.entrant(name)
    versions = sorted(ladder.store.versions(entrant_id=entrant.id), key=lambda v: -v.number)
    playing = [v for v in versions if v.state in ACTIVE_STATES]
    played = [v for v in versions if v.blocks > 0]
    chosen = next(iter(playing or played or versions), None)
    return None if chosen is None else int(chosen.number)


def rating_history(ladder: Ladder, name: str, number: int) -> list[tuple[int, float, float]]:
    """(block, mu, sigma): a version's live rating after each of its blocks, in block order."""
    history: list[tuple[int, float, float]] = ladder.rating_history(name, number)
    return history


def head_to_head(ladder: Ladder, name: str, number: int, *, recent: int = H2H_BLOCKS) -> list[HeadToHead]:
    """A version against each opponent it met in its latest ``recent`` blocks: the blocks they shared, and its share
    of the pairwise comparisons with that opponent on them (ahead on the block's total: 1, level: a half; a forfeit
    ranks below any score, as in matchpoints), most met first."""
    key = f"{name}#{number}"
    met: dict[str, list[float]] = {}
    found = ladder.blocks(name=name, number=number, limit=recent)
    for seats in ladder.store.blocks_results([b.id for b in found]).values():
        results = {r.key: r for r in seats}
        mine = results.get(key)
        if mine is None:
            continue
        for other, r in results.items():
            if other == key:
                continue
            a, o = (mine.forfeits > 0, mine.total), (r.forfeits > 0, r.total)
            met.setdefault(other, []).append(1.0 if a < o else 0.5 if a == o else 0.0)
    rows = [HeadToHead(opponent=k, blocks=len(v), share=sum(v) / len(v)) for k, v in met.items()]
    return sorted(rows, key=lambda r: (-r.blocks, r.opponent))
