"""Where a ladder keeps what it keeps: one folder, every path named here.

    DIR/ladder.toml        the settings (``config``), written commented by ``referee ladder init``
    DIR/ladder.sqlite      the store (``store``): entrants, versions, gate results, epochs, blocks, games, ratings
    DIR/.referee.lock      held by the one ``serve`` of the folder (``referee.contest.lock``)
    DIR/versions/<digest>/ each version's files, copied in at submission, read-only, named by its content hash
    DIR/incoming/          submissions being unpacked (a half-unpacked one is removed at the next start)
    DIR/builds/<digest>.log  a version's build output, for its author
    DIR/builds/<digest>.source.tar.gz  a version's files as submitted, kept before its build (``platform_build``)
    DIR/gate/<version>/    the gate's game logs and the bot's stderr
    DIR/games/<nnnn>/      game logs, <block>.<rotation>.jsonl, a thousand blocks to a folder
    DIR/bots/<version>/    each version's stderr in ranked play (one file per lane)

Every bot is shown only its own version folder: the store, the logs and every other version are hidden from it
(``hidden_paths``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from referee.ladder.config import CONFIG_NAME

__all__ = ["DB_NAME", "LadderLayout"]

DB_NAME = "ladder.sqlite"


@dataclass(frozen=True, slots=True)
class LadderLayout:
    """The paths of the ladder folder ``root`` (absolute)."""

    root: Path

    @classmethod
    def of(cls, directory: Path | str) -> LadderLayout:
        return cls(Path(directory).expanduser().resolve())

    @property
    def config(self) -> Path:
        return self.root / CONFIG_NAME

    @property
    def db(self) -> Path:
        return self.root / DB_NAME

    @property
    def versions(self) -> Path:
        return self.root / "versions"

    @property
    def incoming(self) -> Path:
        return self.root / "incoming"

    @property
    def builds(self) -> Path:
        return self.root / "builds"

    @property
    def gate(self) -> Path:
        return self.root / "gate"

    @property
    def games(self) -> Path:
        return self.root / "games"

    @property
    def bots(self) -> Path:
        return self.root / "bots"

    def version_dir(self, digest: str) -> Path:
        return self.versions / digest

    def build_log(self, digest: str) -> Path:
        return self.builds / f"{digest}.log"

    def source_pack(self, digest: str) -> Path:
        return self.builds / f"{digest}.source.tar.gz"

    def gate_dir(self, version_id: int) -> Path:
        return self.gate / str(version_id)

    def block_dir(self, block_id: int) -> Path:
        """The folder of a block's game logs (``<block>.<rotation>.jsonl``): a thousand blocks to a folder."""
        return self.games / f"{block_id // 1000:04d}"

    def bots_dir(self, version_id: int) -> Path:
        return self.bots / str(version_id)

    def folders(self) -> tuple[Path, ...]:
        """The folders a ladder needs, made by ``referee ladder init`` and at each start."""
        return (self.versions, self.incoming, self.builds, self.gate, self.games, self.bots)

    def hidden_paths(self) -> tuple[str, ...]:
        """What no bot may read: the store, its WAL files, the settings and every log (versions are hidden from
        each other as entrants of the contest, ``referee.runner.entrant_paths``)."""
        db = str(self.db)
        return (
            db,
            db + "-wal",
            db + "-shm",
            str(self.config),
            str(self.builds),
            str(self.gate),
            str(self.games),
            str(self.bots),
            str(self.incoming),
        )
