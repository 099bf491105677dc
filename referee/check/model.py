"""What a conformance run finds: named checks, each passed, failed or not reached, with evidence."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any


class Outcome(StrEnum):
    """How one check ended. ``skipped`` means the suite never reached what the check looks at; ``warned`` that it
    passed, but the bot did something that costs it points for nothing (it does not fail the bot)."""

    PASSED = "passed"
    WARNED = "warned"
    FAILED = "failed"
    SKIPPED = "skipped"


@dataclass(frozen=True, slots=True)
class Evidence:
    """Where a check failed: the game and round, the message the referee sent and the line the bot sent back.

    ``round`` is 1-based (0 when the failure is outside any round, e.g. the handshake); ``sent`` and
    ``received`` are the raw lines (``None`` when there was none, e.g. a timeout has no line received).
    """

    what: str
    game: str | None = None
    round: int = 0
    turn: int | None = None
    sent: str | None = None
    received: str | None = None

    def where(self) -> str:
        """``game check-03, round 2, turn 7`` (the parts known), or an empty string."""
        parts = []
        if self.game is not None:
            parts.append(f"game {self.game}")
        if self.round:
            parts.append(f"round {self.round}")
        if self.turn is not None:
            parts.append(f"turn {self.turn}")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "what": self.what,
            "game": self.game,
            "round": self.round,
            "turn": self.turn,
            "sent": self.sent,
            "received": self.received,
        }


@dataclass(frozen=True, slots=True)
class CheckResult:
    """One named check: its outcome, a one-line summary and, when failed, the evidence."""

    name: str
    title: str
    outcome: Outcome
    summary: str
    evidence: tuple[Evidence, ...] = ()
    figures: dict[str, Any] = field(default_factory=dict)

    @property
    def failed(self) -> bool:
        return self.outcome is Outcome.FAILED

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "outcome": self.outcome.value,
            "summary": self.summary,
            "evidence": [e.to_dict() for e in self.evidence],
            "figures": dict(self.figures),
        }


@dataclass(frozen=True, slots=True)
class DistinctFault:
    """One fault as the bot's author should fix it, however many checks it failed and however often it happened:
    ``evidence`` is its first occurrence, ``checks`` the failed checks it shows in, ``times`` its occurrences."""

    evidence: Evidence
    checks: tuple[str, ...]
    times: int

    def to_dict(self) -> dict[str, Any]:
        return {**self.evidence.to_dict(), "checks": list(self.checks), "times": self.times}


def distinct_faults(checks: tuple[CheckResult, ...]) -> tuple[DistinctFault, ...]:
    """The evidence of every failed check, each fault once (faults are the same when they say the same thing),
    in order of first appearance."""
    first: dict[str, Evidence] = {}
    names: dict[str, list[str]] = {}
    places: dict[str, set[tuple[str | None, int, int | None]]] = {}
    for c in checks:
        if not c.failed:
            continue
        for e in c.evidence:
            first.setdefault(e.what, e)
            if c.name not in names.setdefault(e.what, []):
                names[e.what].append(c.name)
            places.setdefault(e.what, set()).add((e.game, e.round, e.turn))
    return tuple(DistinctFault(e, tuple(names[what]), len(places[what])) for what, e in first.items())


@dataclass(frozen=True, slots=True)
class GameSummary:
    """One game the suite played: who sat where, the result, and the faults of the bot under check."""

    game_id: str
    names: tuple[str, ...]
    seat: int
    scores: tuple[int, ...]
    ranks: tuple[int, ...]
    faulted: bool
    log_path: str | None

    def to_dict(self) -> dict[str, Any]:
        return {
            "game": self.game_id,
            "names": list(self.names),
            "seat": self.seat,
            "scores": list(self.scores),
            "ranks": list(self.ranks),
            "faulted": self.faulted,
            "log": self.log_path,
        }


@dataclass(frozen=True, slots=True)
class CheckReport:
    """The whole run: the bot, every check in a fixed order, the games played and the run's duration.

    ``stderr_tail``: when a check failed, the last lines the bot wrote on stderr (its own log), to show why.
    """

    bot: str
    name: str | None
    checks: tuple[CheckResult, ...]
    games: tuple[GameSummary, ...]
    seconds: float
    notes: tuple[str, ...] = ()
    stderr_tail: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        """True when no check failed (checks not reached do not fail the bot)."""
        return not any(c.failed for c in self.checks)

    def check(self, name: str) -> CheckResult:
        """The check called ``name``. Raises ``KeyError`` for an unknown name."""
        for c in self.checks:
            if c.name == name:
                return c
        raise KeyError(name)

    @property
    def failed_names(self) -> tuple[str, ...]:
        return tuple(c.name for c in self.checks if c.failed)

    @property
    def faults(self) -> tuple[DistinctFault, ...]:
        """Each distinct fault once, with the checks it failed (``distinct_faults``)."""
        return distinct_faults(self.checks)

    def to_dict(self) -> dict[str, Any]:
        return {
            "bot": self.bot,
            "name": self.name,
            "passed": self.passed,
            "seconds": round(self.seconds, 3),
            "checks": [c.to_dict() for c in self.checks],
            "faults": [f.to_dict() for f in self.faults],
            "games": [g.to_dict() for g in self.games],
            "notes": list(self.notes),
            "stderr_tail": list(self.stderr_tail),
        }
