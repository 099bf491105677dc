"""A contest that stays open: ``referee ladder``.

``Ladder`` (``service``) is what the shell commands and the web server call: ``Ladder.init``/``Ladder.open`` a
ladder folder (``layout``, ``config``), add entrants (each with a token, ``tokens``), submit versions (``intake``:
a file, a folder or an archive, hostile input), retire and suspend them, and read the leaderboard (the official
standing of ``standing`` and the live rating of ``rating``), blocks, games and epochs from the store (``store``);
an author's rollback to an earlier version (``rollback``) and the notices it is sent (``notices``, ``courier``).

Every name loads its module on first use (PEP 562), as in ``referee.tournament``.
"""

from typing import TYPE_CHECKING

from referee.lazy import lazy_names

if TYPE_CHECKING:
    from referee.ladder.botmanifest import BotManifest, parse_manifest
    from referee.ladder.config import CONFIG_NAME, LadderConfig, default_toml, load_config
    from referee.ladder.errors import ConfigFileError, IntakeError, LadderError, LadderStoreError, NotFound, Refused
    from referee.ladder.intake import IntakeLimits, Staged, stage
    from referee.ladder.layout import LadderLayout
    from referee.ladder.model import (
        Block,
        BlockKind,
        BlockState,
        Entrant,
        EntrantState,
        Epoch,
        GameRecord,
        GateRecord,
        SeatRecord,
        Version,
        VersionState,
    )
    from referee.ladder.notices import Notice, NoticeKind
    from referee.ladder.rating import LiveRating
    from referee.ladder.rollback import Activated, activate
    from referee.ladder.service import Ladder, Leaderboard, LeaderRow, VersionStatus
    from referee.ladder.standing import OfficialRow, official_standing
    from referee.ladder.store import LadderStore
    from referee.ladder.tokens import Principal

_WHERE: dict[str, str] = {
    "BotManifest": "referee.ladder.botmanifest",
    "parse_manifest": "referee.ladder.botmanifest",
    "CONFIG_NAME": "referee.ladder.config",
    "LadderConfig": "referee.ladder.config",
    "default_toml": "referee.ladder.config",
    "load_config": "referee.ladder.config",
    "ConfigFileError": "referee.ladder.errors",
    "IntakeError": "referee.ladder.errors",
    "LadderError": "referee.ladder.errors",
    "LadderStoreError": "referee.ladder.errors",
    "NotFound": "referee.ladder.errors",
    "Refused": "referee.ladder.errors",
    "IntakeLimits": "referee.ladder.intake",
    "Staged": "referee.ladder.intake",
    "stage": "referee.ladder.intake",
    "LadderLayout": "referee.ladder.layout",
    "Block": "referee.ladder.model",
    "BlockKind": "referee.ladder.model",
    "BlockState": "referee.ladder.model",
    "Entrant": "referee.ladder.model",
    "EntrantState": "referee.ladder.model",
    "Epoch": "referee.ladder.model",
    "GameRecord": "referee.ladder.model",
    "GateRecord": "referee.ladder.model",
    "SeatRecord": "referee.ladder.model",
    "Version": "referee.ladder.model",
    "VersionState": "referee.ladder.model",
    "Notice": "referee.ladder.notices",
    "NoticeKind": "referee.ladder.notices",
    "LiveRating": "referee.ladder.rating",
    "Activated": "referee.ladder.rollback",
    "activate": "referee.ladder.rollback",
    "Ladder": "referee.ladder.service",
    "LeaderRow": "referee.ladder.service",
    "Leaderboard": "referee.ladder.service",
    "VersionStatus": "referee.ladder.service",
    "OfficialRow": "referee.ladder.standing",
    "official_standing": "referee.ladder.standing",
    "LadderStore": "referee.ladder.store",
    "Principal": "referee.ladder.tokens",
}

__getattr__, __dir__ = lazy_names(__name__, _WHERE, globals())

__all__ = sorted(_WHERE)
