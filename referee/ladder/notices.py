"""Notices: what an author is told when one of its versions fails its gate, is suspended for its faults or starts
faulting, and when the organiser suspends the entrant. Each is kept in the store (table ``notices``), listed on
the entrant's ``/me`` and the organiser's page, and sent on by ``serve``'s courier (``courier``) to the webhook
and the mail addresses ``[notices]`` of ladder.toml names.

Each notice keeps, per channel, where its delivery stands: ``NULL`` (to send), ``off`` (the channel was not
configured when it was recorded: a webhook added later does not send the backlog), ``sent TIME`` or
``gave up TIME: WHY``.

A version *starts faulting* when it forfeits in a block and none of its recent games before that block
(``[faults] recent_games``) was a forfeit: one notice when a quiet version begins to fail, not one per block
(the suspension, if it comes, is a notice of its own).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any
from urllib.parse import quote

from referee.ladder.config import NoticesSection
from referee.ladder.store import LadderStore, now

__all__ = ["OFF", "Channel", "Notice", "NoticeKind", "notices_of", "pending", "recent_notices", "record", "settle"]

#: A channel that was not configured when the notice was recorded.
OFF = "off"


class NoticeKind(StrEnum):
    GATE_FAILED = "gate failed"
    SUSPENDED = "suspended"  # a version, for its faults
    FAULTING = "faulting"  # a version started faulting
    ENTRANT_SUSPENDED = "entrant suspended"  # by the organiser


@dataclass(frozen=True, slots=True)
class Notice:
    """A kept notice: about an entrant's version (or the entrant), what and why, when, and each channel's delivery."""

    id: int
    entrant: str
    version: str | None  # its key, name#number; None for the entrant's own
    kind: NoticeKind
    text: str
    at: str
    webhook: str | None
    mail: str | None

    @property
    def page(self) -> str:
        """The path of the page it is about (the version's, else the entrant's)."""
        base = f"/entrants/{quote(self.entrant, safe='')}"
        return base if self.version is None else f"{base}/versions/{self.version.rsplit('#', 1)[1]}"

    def to_json(self) -> dict[str, Any]:
        """The webhook's body."""
        return {
            "notice": self.id, "kind": self.kind.value, "entrant": self.entrant, "version": self.version,
            "text": self.text, "at": self.at, "page": self.page,
        }  # fmt: skip


class Channel(StrEnum):
    """Where a notice is sent on (``courier``)."""

    WEBHOOK = "webhook"
    MAIL = "mail"


_COLUMNS = (
    "SELECT n.id, e.name, CASE WHEN v.id IS NULL THEN NULL ELSE e.name || '#' || v.number END, n.kind, n.text, "
    "n.at, n.webhook, n.mail FROM notices n JOIN entrants e ON e.id = n.entrant_id "
    "LEFT JOIN versions v ON v.id = n.version_id"
)


def _notice(row: Sequence[Any]) -> Notice:
    nid, entrant, version, kind, text, at, webhook, mail = row
    return Notice(int(nid), entrant, version, NoticeKind(kind), text, at, webhook, mail)


def record(
    store: LadderStore,
    config: NoticesSection,
    entrant_id: int,
    version_id: int | None,
    kind: NoticeKind,
    text: str,
    *,
    entrant: str | None = None,
) -> int:
    """Keep a notice (for ``version_id``, or the entrant itself) and mark each channel ``config`` does not configure
    for it as ``off``. ``entrant`` (its name) decides whether it has a mail address of its own. Returns its id."""
    mail_to = bool(config.mail_to) or (entrant is not None and entrant in config.entrant_mail)
    with store._write() as db:
        cur = db.execute(
            "INSERT INTO notices(entrant_id, version_id, kind, text, at, webhook, mail) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (
                entrant_id, version_id, kind.value, text, now(), None if config.webhook else OFF,
                None if config.smtp_host and mail_to else OFF,
            ),
        )  # fmt: skip
        return int(cur.lastrowid or 0)


def notices_of(store: LadderStore, entrant_id: int, limit: int = 50) -> list[Notice]:
    """An entrant's latest notices, newest first."""
    rows = store._read(f"{_COLUMNS} WHERE n.entrant_id = ? ORDER BY n.id DESC LIMIT ?", (entrant_id, int(limit)))
    return [_notice(r) for r in rows]


def recent_notices(store: LadderStore, limit: int = 50) -> list[Notice]:
    """Everyone's latest notices, newest first (the organiser's page)."""
    return [_notice(r) for r in store._read(f"{_COLUMNS} ORDER BY n.id DESC LIMIT ?", (int(limit),))]


def pending(store: LadderStore, limit: int = 100) -> list[Notice]:
    """Notices with a channel still to send, oldest first."""
    rows = store._read(f"{_COLUMNS} WHERE n.webhook IS NULL OR n.mail IS NULL ORDER BY n.id LIMIT ?", (int(limit),))
    return [_notice(r) for r in rows]


def settle(store: LadderStore, notice_id: int, channel: Channel, outcome: str) -> None:
    """Where ``channel``'s delivery of the notice ended (``sent TIME``, ``gave up TIME: WHY``)."""
    column = "webhook" if channel is Channel.WEBHOOK else "mail"
    with store._write() as db:
        db.execute(f"UPDATE notices SET {column} = ? WHERE id = ?", (outcome[:500], notice_id))
