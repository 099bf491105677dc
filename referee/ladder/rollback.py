"""A rollback: an author chooses which of its passed versions plays, ``activate(ladder, NAME, NUMBER)``.

The version comes back where it left: ``ranked`` when it had finished its placement, else ``placement`` with the
placement blocks it still had to play; its blocks, live rating and standing are as they were (nothing of a
version is ever deleted). Its entrant's other active versions beyond ``[submissions] active_versions`` are retired
as a newer version that passes its gate retires them ("replaced by version N"), so an author can go back and forth.

Who may bring back what (``model.VERSION_TRANSITIONS``: ``retired`` -> ``placement``/``ranked``):

- its author, a version that passed its gate and was retired by a newer version of its own ("replaced by ...");
  not one retired by the organiser, one still suspended for its faults, one superseded before its gate or one that
  failed it (a version suspended for its faults is "replaced" only when the organiser lifts its entrant's suspension
  while another version of it plays: ``Ladder.reinstate``);
- the organiser, any retired version that passed its gate.

Never for a suspended or retired entrant, nor once submissions are closed (the final). The whole choice is one
transaction: two choices at once cannot leave an entrant with none of its versions active.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol
from urllib.parse import quote

from referee.ladder.config import LadderConfig
from referee.ladder.errors import NotFound, Refused
from referee.ladder.model import ACTIVE_STATES, Entrant, EntrantState, Version, VersionState
from referee.ladder.store import LadderStore, _move, now
from referee.runner.safe_text import visible

__all__ = ["REPLACED", "Activated", "LadderLike", "activate", "may_activate", "same_bot"]


class LadderLike(Protocol):
    """What this module uses of a ``referee.ladder.Ladder`` (which calls ``same_bot`` when a bot is submitted): its
    settings, its store and its entrants by name."""

    config: LadderConfig
    store: LadderStore

    def entrant(self, name: str) -> Entrant: ...


#: How the reason of a version retired by a newer one begins (``gate.Gatekeeper._admit``, and ``activate``).
REPLACED = "replaced by version "


@dataclass(frozen=True, slots=True)
class Activated:
    """What ``activate`` did: the version made active (as it is now) and the versions it retired."""

    version: Version
    retired: tuple[Version, ...]


def may_activate(state: VersionState, reason: str | None, passed: bool | None, *, organiser: bool) -> str | None:
    """Why a version in ``state`` (retired for ``reason``; its gate ``passed``) may not be made active again, or None
    when it may (see the module's docstring)."""
    if state in ACTIVE_STATES:
        return "it is active already"
    if state != VersionState.RETIRED:
        return f"it is {state.value}: only a retired version that passed its gate can be made active again"
    if not passed:
        return "it never passed its gate"
    if not organiser and not (reason or "").startswith(REPLACED):
        return f"it was retired ({reason or 'no reason given'}), not replaced by a newer version: ask the organiser"
    return None


def activate(ladder: LadderLike, name: str, number: int, *, organiser: bool = False) -> Activated:
    """Make version ``number`` of ``name`` active again (its author's choice, or the organiser's with ``organiser``),
    retiring its entrant's other active versions beyond ``active_versions``. Raises ``NotFound`` (no such entrant or
    version), ``Refused`` (see ``may_activate``; a suspended or retired entrant; submissions closed),
    ``LadderStoreError``."""
    entrant = ladder.entrant(name)
    keep = ladder.config.submissions.active_versions
    store = ladder.store
    retired: list[int] = []
    with store._write() as db:
        row = db.execute(
            "SELECT v.id, v.state, v.reason, v.placement_left, g.passed FROM versions v "
            "LEFT JOIN gates g ON g.version_id = v.id WHERE v.entrant_id = ? AND v.number = ?",
            (entrant.id, number),
        ).fetchone()
        if row is None:
            raise NotFound(f"{visible(name)} has no version {number}")
        vid, state, reason, placement_left, passed = row
        key = f"{visible(name)}#{number}"
        closed = db.execute("SELECT value FROM meta WHERE key = 'submissions_closed'").fetchone()
        if closed is not None:
            raise Refused(f"{key} cannot be made active: submissions are closed ({closed[0]})")
        whose = db.execute("SELECT state, reason FROM entrants WHERE id = ?", (entrant.id,)).fetchone()
        if whose[0] != EntrantState.ACTIVE.value:
            raise Refused(f"{key} cannot be made active: {visible(name)} is {whose[0]} ({whose[1] or 'no reason'})")
        why_not = may_activate(
            VersionState(state), reason, None if passed is None else bool(passed), organiser=organiser
        )
        if why_not is not None:
            raise Refused(f"{key} cannot be made active: {why_not}")
        to = VersionState.PLACEMENT if placement_left > 0 else VersionState.RANKED
        said = "made active again by the organiser" if organiser else "made active again by its author"
        stamp = now()
        if not _move(db, vid, to, said, stamp, only=[VersionState.RETIRED]):
            raise Refused(f"{key} cannot be made active: it changed meanwhile, look again")  # pragma: no cover
        others = db.execute(
            f"SELECT id FROM versions WHERE entrant_id = ? AND id != ? AND state IN ({', '.join('?' * 2)}) "
            "ORDER BY number",
            (entrant.id, vid, *(s.value for s in ACTIVE_STATES)),
        ).fetchall()
        for (other,) in others[: max(0, len(others) - (keep - 1))]:
            if _move(db, other, VersionState.RETIRED, f"{REPLACED}{number}", stamp):
                retired.append(other)
    found = store.versions_by_id([vid, *retired])
    return Activated(found[vid], tuple(found[r] for r in retired))


def same_bot(ladder: LadderLike, entrant_id: int, digest: str) -> Refused | None:
    """The refusal of a submission that is the same bot (``digest``) as an earlier version of the entrant, saying how
    to play that one again; None when there is none."""
    same = next((v for v in ladder.store.versions(entrant_id=entrant_id) if v.digest == digest), None)
    if same is None:
        return None
    head = f"this bot is the same as your version {same.number} (same files and command)"
    gate = ladder.store.gate(same.id)
    why_not = may_activate(same.state, same.reason, gate.passed if gate else None, organiser=False)
    if why_not is None:
        return Refused(
            f"{head}: to play it again, make it active: the button on its page, "
            f"POST /api/entrants/{quote(same.entrant, safe='')}/versions/{same.number}/activate, or referee ladder "
            f"activate DIR {visible(same.entrant)} {same.number}"
        )
    return Refused(f"{head}; {why_not}")
