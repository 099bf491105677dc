"""The ladder's service layer: plain methods that the shell commands and the web server both call.

``Ladder.init(DIR)`` makes a ladder folder (``layout``) with a commented ``ladder.toml`` and an empty store, and
returns the organiser's admin token (printed once; only its scrypt hash is kept). ``Ladder.open(DIR)`` opens one.
A ``Ladder`` may be used from several threads (each gets its own database connection); ``serve`` may be running
meanwhile in another process or in this one: every change is one short transaction, and ``serve`` notices new
versions, retirements and suspensions within a second or so.

Every method raises ``LadderError`` subclasses with a one-line message: ``Refused`` (unknown names, the daily cap,
a name taken), ``IntakeError`` (a submission refused, naming the entry), ``LadderStoreError`` (the database).
"""

from __future__ import annotations

import fcntl
import glob
import hashlib
import json
import os
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from referee.contest.lock import LOCK_NAME
from referee.ladder.config import LadderConfig, default_toml, load_config
from referee.ladder.errors import LadderError, NotFound, Refused
from referee.ladder.intake import IntakeLimits, discard, freeze, stage
from referee.ladder.layout import LadderLayout
from referee.ladder.model import (
    ACTIVE_STATES,
    GATE_STATES,
    Block,
    Entrant,
    EntrantState,
    Epoch,
    GameRecord,
    GateRecord,
    Version,
    VersionState,
)
from referee.ladder.notices import NoticeKind, record
from referee.ladder.rollback import same_bot
from referee.ladder.standing import METHOD, OfficialRow, official_standing
from referee.ladder.store import LadderStore
from referee.ladder.strengths import seats_of
from referee.ladder.tokens import ADMIN, Principal, check_token, hash_token, new_token, token_owner
from referee.runner.safe_text import visible

__all__ = ["Ladder", "LeaderRow", "Leaderboard", "VersionStatus"]

#: The longest entrant name (as ``referee run``'s manifest names).
NAME_MAX = 48
#: How many tokens ``authenticate`` remembers as checked (a SHA-256 of each), so that a web client's every request
#: does not pay scrypt again.
TOKEN_CACHE = 1024


@dataclass(frozen=True, slots=True)
class LeaderRow:
    """A line of the leaderboard: the version, its official place and figures (``official``; None while in
    placement), and its live rating (mu, sigma; None before its first block)."""

    version: Version
    official: OfficialRow | None
    live: tuple[float, float] | None

    def to_dict(self) -> dict[str, Any]:
        o = self.official
        v = self.version
        return {
            "entrant": v.entrant,
            "version": v.number,
            "key": v.key,
            "state": v.state.value,
            "submitted_at": v.submitted_at,
            "blocks": v.blocks,
            "games": v.games,
            "forfeits": v.forfeits,
            "place": None if o is None else o.place,
            "rank_interval": None if o is None else list(o.rank_interval),
            "matchpoints": None if o is None else o.matchpoints,
            "matchpoints_ci95": None if o is None or o.matchpoints_ci95 is None else list(o.matchpoints_ci95),
            "relative_score": None if o is None else o.relative,
            "relative_score_ci95": None if o is None or o.relative_ci95 is None else list(o.relative_ci95),
            "deals": None if o is None else o.deals,
            "opponents": None if o is None else o.opponents,
            "separated_from_next": None if o is None else o.separated_from_next,
            "p_next": None if o is None else o.p_next,
            "live_mu": None if self.live is None else self.live[0],
            "live_sigma": None if self.live is None else self.live[1],
        }


@dataclass(frozen=True, slots=True)
class Leaderboard:
    """The ranked versions in official order (``rows``), then the versions in placement (``placement``)."""

    rows: tuple[LeaderRow, ...]
    placement: tuple[LeaderRow, ...]
    blocks: int
    games: int

    OFFICIAL_NOTE = f"official: {METHOD}; live: OpenSkill (Plackett-Luce) updated block by block, for information"

    def to_dict(self) -> dict[str, Any]:
        return {
            "official": "matchpoints",
            "note": self.OFFICIAL_NOTE,
            "blocks": self.blocks,
            "games": self.games,
            "ranked": [r.to_dict() for r in self.rows],
            "placement": [r.to_dict() for r in self.placement],
        }


@dataclass(frozen=True, slots=True)
class VersionStatus:
    """What an author sees of a version: the version, its gate (None before it starts) and its build output."""

    version: Version
    gate: GateRecord | None
    build_output: str | None

    def to_dict(self) -> dict[str, Any]:
        v, g = self.version, self.gate
        return {
            "entrant": v.entrant,
            "version": v.number,
            "key": v.key,
            "digest": v.digest,
            "command": list(v.command),
            "build": None if v.build is None else list(v.build),
            "state": v.state.value,
            "reason": v.reason,
            "since": v.state_at,
            "submitted_at": v.submitted_at,
            "placement_left": v.placement_left,
            "blocks": v.blocks,
            "games": v.games,
            "forfeits": v.forfeits,
            "live_mu": v.mu,
            "live_sigma": v.sigma,
            "gate": None
            if g is None
            else {
                "started_at": g.started_at,
                "finished_at": g.finished_at,
                "passed": g.passed,
                "reasons": list(g.reasons),
            },
            "build_output": self.build_output,
        }


def _fingerprint(token: str) -> bytes:
    return hashlib.sha256(token.strip().encode("utf-8", "replace")).digest()


def check_name(name: str) -> str:
    """An entrant name as given, if usable: 1 to 48 printable characters, no ``/`` or ``#``, no space at either
    end, not ``.`` or ``..`` (it names files). Raises ``Refused``."""
    if (
        not name
        or len(name) > NAME_MAX
        or not name.isprintable()
        or name != name.strip()
        or "/" in name
        or "#" in name
        or name in (".", "..")
    ):
        raise Refused(
            f"entrant name {visible(name)!r}: use 1 to {NAME_MAX} printable characters, without / or # and "
            "without a space at either end"
        )
    return name


class Ladder:
    """A ladder folder opened for use (``init`` or ``open``). ``close`` when done (or use it as a context)."""

    def __init__(self, layout: LadderLayout, config: LadderConfig, store: LadderStore) -> None:
        self.layout = layout
        self.config = config
        self.store = store
        self._checked: dict[bytes, tuple[Principal, str | None]] = {}

    # ------------------------------------------------------------------------------------------ opening

    @classmethod
    def init(cls, directory: Path | str) -> tuple[Ladder, str]:
        """Make a new ladder in ``directory`` (created if missing; refused if it holds a ladder already). Returns
        the ladder and the organiser's admin token, which is not stored (only its hash)."""
        layout = LadderLayout.of(directory)
        if layout.config.exists() or layout.db.exists():
            raise Refused(f"{layout.root} holds a ladder already ({layout.config.name} or {layout.db.name} exists)")
        try:
            layout.root.mkdir(parents=True, exist_ok=True)
            for folder in layout.folders():
                folder.mkdir(exist_ok=True)
            layout.config.write_text(default_toml(), encoding="utf-8")
        except OSError as exc:
            raise LadderError(f"cannot make the ladder folder {layout.root}: {exc.strerror or exc}") from None
        store = LadderStore(layout.db, create=True)
        ladder = cls(layout, load_config(layout.config), store)
        token = ladder.new_admin_token()
        return ladder, token

    @classmethod
    def open(cls, directory: Path | str) -> Ladder:
        """Open the ladder in ``directory``. Raises ``LadderStoreError`` when it is not one, ``ConfigFileError``
        for a bad ladder.toml."""
        layout = LadderLayout.of(directory)
        if not layout.db.exists():
            raise Refused(f"{layout.root} is not a ladder folder ({layout.db.name} not found): run referee ladder init")
        config = load_config(layout.config)
        for folder in layout.folders():
            folder.mkdir(parents=True, exist_ok=True)
        return cls(layout, config, LadderStore(layout.db))

    def close(self) -> None:
        self.store.close()

    def __enter__(self) -> Ladder:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------------------------------ tokens

    def new_admin_token(self) -> str:
        """A new organiser token (the old one stops working). Shown once."""
        token = new_token(ADMIN)
        self.store.set_meta("admin_token", hash_token(token))
        self._checked.clear()
        return token

    def new_entrant_token(self, name: str) -> str:
        """A new token for ``name`` (its old one stops working). Shown once."""
        entrant = self.entrant(name)
        token = new_token(entrant.id)
        self.store.set_token(entrant.id, hash_token(token))
        self._checked.clear()
        return token

    def token_stamp(self, principal: Principal) -> str | None:
        """The stored hash of ``principal``'s token as it is now (one read): a token checked earlier stands only
        while this is unchanged, so a token renewed by another process (``referee ladder token``) stops working at
        once in a running ``serve``."""
        if principal.admin:
            return self.store.meta("admin_token")
        return None if principal.entrant_id is None else self.store.token_hash(principal.entrant_id)

    def remembered(self, token: str) -> Principal | None:
        """Who ``token`` belongs to if ``authenticate`` verified it before and its stored hash is unchanged since
        (``token_stamp``: one read, no scrypt), else None."""
        fingerprint = _fingerprint(token)
        known = self._checked.get(fingerprint)
        if known is None:
            return None
        if self.token_stamp(known[0]) != known[1]:
            self._checked.pop(fingerprint, None)
            return None
        return known[0]

    def authenticate(self, token: str) -> Principal | None:
        """Who ``token`` belongs to (the organiser or an entrant), or None. Takes one scrypt (tens of
        milliseconds) the first time a token is seen, whatever the token; a token checked before is
        remembered (by its SHA-256) while its stored hash is unchanged (``remembered``)."""
        known = self.remembered(token)
        if known is not None:
            return known
        who = token_owner(token)
        principal: Principal | None = None
        if who == ADMIN:
            stored = self.store.meta("admin_token")
            if check_token(token, stored):
                principal = Principal(admin=True)
        else:
            entrant = self.store.entrant(who) if isinstance(who, int) else None
            stored = self.store.token_hash(entrant.id) if entrant is not None else None
            if check_token(token, stored) and entrant is not None:
                principal = Principal(admin=False, entrant_id=entrant.id, name=entrant.name)
        if principal is not None:
            if len(self._checked) >= TOKEN_CACHE:
                self._checked.clear()
            self._checked[_fingerprint(token)] = (principal, stored)  # the hash checked against, not a later one
        return principal

    # ------------------------------------------------------------------------------------------ entrants

    def add_entrant(self, name: str) -> tuple[Entrant, str]:
        """A new entrant and its token (shown once). Raises ``Refused`` for a bad or taken name."""
        check_name(name)
        entrant = self.store.add_entrant(name, "scrypt$pending")  # no token matches it; replaced at once
        token = new_token(entrant.id)
        self.store.set_token(entrant.id, hash_token(token))
        return entrant, token

    def entrant(self, name: str) -> Entrant:
        entrant = self.store.entrant_named(name)
        if entrant is None:
            raise NotFound(f"no entrant named {visible(name)!r}", organiser="add it with referee ladder add NAME")
        return entrant

    def entrants(self) -> list[Entrant]:
        return self.store.entrants()

    def suspend(self, name: str, reason: str) -> Entrant:
        """Stop every version of ``name`` from playing, with ``reason`` shown to it, until ``reinstate``."""
        entrant = self.entrant(name)
        if not self.store.move_entrant(entrant.id, EntrantState.SUSPENDED, reason or "suspended by the organiser"):
            raise Refused(f"{visible(name)} is {self.entrant(name).state.value} already")
        said = f"{entrant.name} suspended by the organiser: {reason or 'no reason given'}"
        record(self.store, self.config.notices, entrant.id, None, NoticeKind.ENTRANT_SUSPENDED, said, entrant=name)
        return self.entrant(name)

    def reinstate(self, name: str) -> Entrant:
        """Let a suspended entrant play again. A version of it suspended for its faults goes back into placement while
        the entrant has fewer than ``active_versions`` active (the newest first); beyond that it retires, replaced
        by the newest active one (its author's choice stands; the author may bring it back with ``activate``)."""
        entrant = self.entrant(name)
        if entrant.state == EntrantState.RETIRED:
            raise Refused(f"{visible(name)} has retired; add it again under another name")
        self.store.move_entrant(entrant.id, EntrantState.ACTIVE, None)
        active = self.store.versions(entrant_id=entrant.id, states=ACTIVE_STATES)
        held = self.store.versions(entrant_id=entrant.id, states=[VersionState.SUSPENDED])
        playing = [v.number for v in active]
        for v in sorted(held, key=lambda v: v.number, reverse=True):
            if len(playing) < self.config.submissions.active_versions:
                self.store.move_version(
                    v.id, VersionState.PLACEMENT, "reinstated", only=[VersionState.SUSPENDED],
                    placement_left=self.config.matchmaking.placement_blocks,
                )  # fmt: skip
                playing.append(v.number)
            else:
                self.store.move_version(v.id, VersionState.RETIRED, f"replaced by version {max(playing)}")
        return self.entrant(name)

    def retire(self, name: str, number: int | None = None) -> list[Version]:
        """Retire version ``number`` of ``name``, or (None) the entrant and all its versions. Its games and last
        rating stay as they are, frozen. Returns the versions retired."""
        entrant = self.entrant(name)
        if number is not None:
            version = self.version(name, number)
            if not self.store.move_version(version.id, VersionState.RETIRED, "retired by request"):
                raise Refused(f"{version.key} is {self.version(name, number).state.value} already")
            return [self.version(name, number)]
        self.store.move_entrant(entrant.id, EntrantState.RETIRED, "retired")  # first: nothing of it plays after
        retired = [
            v.id
            for v in self.store.versions(entrant_id=entrant.id)
            if self.store.move_version(v.id, VersionState.RETIRED, "the entrant retired")
        ]
        return [v for v in self.store.versions(entrant_id=entrant.id) if v.id in retired]

    # ------------------------------------------------------------------------------------------ versions

    def submit(self, name: str, source: Path, *, label: str | None = None) -> Version:
        """Take in a new version of ``name`` from ``source`` (a bot file, a folder, or a .tar.gz/.zip with a
        bot.toml), copied into the ladder so that later edits of the source change nothing. ``label`` names the
        submission in refusals (an uploaded file's name). The version waits for its gate (``serve``).

        Raises ``Refused`` (unknown, suspended or retired entrant; the daily cap; the same bot as an earlier
        version) or ``IntakeError`` (the submission refused, one line naming the entry)."""
        entrant = self.entrant(name)
        if entrant.state == EntrantState.RETIRED:
            raise Refused(f"{visible(name)} has retired and takes no more versions")
        closed = self.store.meta("submissions_closed")
        if closed is not None:
            raise Refused(f"submissions are closed ({closed})")
        cap = self.config.submissions.per_day
        since = (datetime.now(UTC) - timedelta(days=1)).isoformat(timespec="seconds")
        if self.store.submissions_since(entrant.id, since) >= cap:
            raise Refused(f"{visible(name)} has submitted {cap} versions in the last 24 hours, the most allowed")
        s = self.config.submissions
        limits = IntakeLimits(
            max_bytes=int(s.max_bytes), max_unpacked=int(s.max_unpacked), max_files=s.max_files, max_ratio=s.max_ratio
        )
        staged = stage(source, self.layout.incoming, limits, label=label)
        try:
            same = same_bot(self, entrant.id, staged.digest)
            if same is not None:
                raise same
            target = self.layout.version_dir(staged.digest)
            if not target.exists():
                os.rename(staged.folder, target)
                freeze(target)
            version = self.store.add_version(
                entrant.id,
                digest=staged.digest,
                command=staged.manifest.command,
                build=staged.manifest.build,
                kind=staged.kind,
                files=staged.files,
                size=staged.size,
                per_day=cap,
            )
        finally:
            discard(staged.staging)
        return version

    def version(self, name: str, number: int) -> Version:
        entrant = self.entrant(name)
        for v in self.store.versions(entrant_id=entrant.id):
            if v.number == number:
                return v
        raise NotFound(f"{visible(name)} has no version {number}")

    def versions(self, name: str) -> list[Version]:
        return self.store.versions(entrant_id=self.entrant(name).id)

    def version_status(self, name: str, number: int) -> VersionStatus:
        """What its author sees of a version. One that would play (placement, ranked) but whose entrant is suspended
        or retired is shown in its entrant's state, with its entrant's reason: it does not play."""
        v = self.version(name, number)
        entrant = self.entrant(name)
        if entrant.state != EntrantState.ACTIVE and v.active:
            v = replace(v, state=VersionState(entrant.state.value), reason=entrant.reason)
        return VersionStatus(v, self.store.gate(v.id), self._build_output(v))

    def _build_output(self, v: Version) -> str | None:
        path = self.layout.build_log(v.digest)
        try:
            with open(path, "rb") as f:
                return f.read(256 * 1024).decode("utf-8", "replace")
        except OSError:
            return None

    def version_folder(self, v: Version) -> Path:
        return self.layout.version_dir(v.digest)

    # ------------------------------------------------------------------------------------------ views

    def leaderboard(self) -> Leaderboard:
        """The official standing of the active versions (and the live rating beside it)."""
        store = self.store
        with store.snapshot():
            active = store.active_versions()
            ranked = [v for v in active if v.state == VersionState.RANKED]
            placement = [v for v in active if v.state == VersionState.PLACEMENT]
            seats = seats_of(store.standing_blocks([v.id for v in ranked]))
            blocks, games = store.block_count(), store.game_count()
        g = self.config.games
        weights = dict(zip(g.table_sizes, g.table_weights, strict=True))
        official = official_standing(seats, [v.id for v in ranked], weights)
        by_id = {v.id: v for v in ranked}
        live = {v.id: None if v.mu is None or v.sigma is None else (v.mu, v.sigma) for v in active}
        return Leaderboard(
            tuple(LeaderRow(by_id[o.version_id], o, live[o.version_id]) for o in official),
            tuple(LeaderRow(v, None, live[v.id]) for v in placement),
            blocks,
            games,
        )

    def status(self) -> dict[str, Any]:
        """What ``referee ladder status --json`` prints: the leaderboard, the versions waiting for or in their gate,
        the current epoch's commitment, the results' hash chain head now and as each revealed epoch published it,
        and whether a ``serve`` holds the folder."""
        waiting = self.store.versions(states=GATE_STATES)
        epoch = self.store.open_epoch_now()
        return {
            "ladder": str(self.layout.root),
            "serving": self.serving(),
            "leaderboard": self.leaderboard().to_dict(),
            "gate": [{"key": v.key, "state": v.state.value, "submitted_at": v.submitted_at} for v in waiting],
            "epoch": None
            if epoch is None
            else {"id": epoch.id, "commitment": epoch.commitment, "opened_at": epoch.opened_at},
            "chain_head": self.store.chain_head(),
            "published_heads": {str(e.id): e.chain_head for e in self.store.epochs() if e.chain_head},
        }

    def serving(self) -> int | None:
        """The pid of the ``serve`` holding this folder, or None."""
        path = self.layout.root / LOCK_NAME
        try:
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return None
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            except BlockingIOError:
                text = os.pread(fd, 32, 0).decode("ascii", "replace").strip()
                return int(text) if text.isdigit() else -1
            fcntl.flock(fd, fcntl.LOCK_UN)
            return None
        finally:
            os.close(fd)

    def blocks(
        self, *, name: str | None = None, number: int | None = None, before: int | None = None, limit: int | None = 50
    ) -> list[Block]:
        """Blocks newest first: every block, those of one version (``name`` and ``number``), or those of any version
        of the entrant ``name`` (``number`` None; a ``number`` without ``name`` is ignored). Raises ``NotFound``
        for an unknown entrant or version."""
        if name is None:
            return self.store.blocks(before=before, limit=limit)
        if number is not None:
            return self.store.blocks(version_id=self.version(name, number).id, before=before, limit=limit)
        return self.store.blocks(entrant_id=self.entrant(name).id, before=before, limit=limit)

    def block(self, block_id: int) -> Block:
        return self.store.block(block_id)

    def games(self, block_id: int) -> list[GameRecord]:
        return self.store.games(block_id)

    def game(self, game_id: str) -> GameRecord:
        game = self.store.game(game_id)
        if game is None:
            raise NotFound(f"no game {visible(game_id)!r}")
        return game

    def game_log(self, game_id: str) -> Path:
        """The game's log file (it holds every hand: public once the game is over)."""
        game = self.game(game_id)
        if game.log_path is None:
            raise Refused(f"game {visible(game_id)} kept no log")
        return self.layout.root / game.log_path

    def stderr_logs(self, name: str, number: int) -> list[Path]:
        """The files of the version's stderr (ranked play, one per lane and start; the gate's too): for its author
        only."""
        v = self.version(name, number)
        out = sorted(self.layout.bots.glob(f"{glob.escape(v.key)}.*.log"))
        gate = self.layout.gate_dir(v.id)
        if gate.is_dir():
            out += sorted(gate.glob("bot-stderr-*.log"))
        return out

    def faults(self, name: str, number: int, limit: int = 100) -> list[dict[str, Any]]:
        v = self.version(name, number)
        keys = ("game", "seat", "kind", "round", "turn", "detail", "line")
        return [dict(zip(keys, row, strict=True)) for row in self.store.faults(v.id, limit)]

    def fault_kinds(self, name: str, number: int) -> dict[str, int]:
        return self.store.fault_kinds(self.version(name, number).id)

    def rating_history(self, name: str, number: int) -> list[tuple[int, float, float]]:
        """(block, mu, sigma): version ``number`` of ``name``'s live rating after each of its blocks (its chart)."""
        return self.store.rating_history(self.version(name, number).id)

    def epochs(self) -> list[Epoch]:
        return self.store.epochs()

    def export_games(self) -> Iterator[str]:
        """Every finished game as one JSON line each (``export.jsonl``), so that anyone can re-rate the ladder."""
        for game in self.store.export_games():
            yield json.dumps(game, separators=(",", ":")) + "\n"
