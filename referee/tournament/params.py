"""A tournament's parameters: what defines its schedule and its conditions, stored with its results.

A resumed tournament must have the same parameters as the one it continues, or its games would not be
comparable; ``TournamentParams.mismatch`` names the first difference.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from protocol import check_line_bound
from referee.engine import RefereeError, Ruleset
from referee.runner import BotSettings, BotSpec, ClockMode, Limits, RunnerConfig, SandboxMode, entrant_paths
from referee.settings import settings_fields
from referee.tournament.fingerprint import changed_file, file_digests
from referee.tournament.schedule import default_table_size

__all__ = [
    "DEFAULT_MAX_GAMES",
    "FORMATS",
    "EntrantInfo",
    "ParamsError",
    "Requested",
    "TournamentParams",
    "resolve_params",
]

#: The schedule formats of ``referee run --format``.
FORMATS = ("round-robin", "balanced", "gauntlet", "race")
#: The most games any format plays unless ``--max-games`` says otherwise.
DEFAULT_MAX_GAMES = 100_000


class ParamsError(RefereeError, ValueError):
    """The requested tournament cannot be run (no entrants, or it differs from the one it would continue)."""


@dataclass(frozen=True, slots=True)
class EntrantInfo:
    """An entrant as stored: its unique tournament name and how to start it."""

    name: str
    argv: tuple[str, ...]
    cwd: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    #: Path → SHA-256 of the files its command names in its folder, when the tournament began (``fingerprint``).
    files: dict[str, str] = field(default_factory=dict)

    def command(self) -> str:
        """The command line as one readable string."""
        return " ".join(self.argv)

    @classmethod
    def from_spec(cls, spec: BotSpec) -> EntrantInfo:
        """The entrant of ``spec``, with the digests of its files as they are now."""
        return cls(spec.name, tuple(spec.argv), str(spec.cwd), dict(spec.env), file_digests(spec.argv, str(spec.cwd)))

    def changed(self) -> str | None:
        """How the entrant's files differ from when the tournament began (a phrase), or None."""
        return changed_file(self.files)

    def to_spec(self) -> BotSpec:
        return BotSpec(self.name, self.argv, Path(self.cwd or "."), MappingProxyType(dict(self.env)))


@dataclass(frozen=True, slots=True)
class TournamentParams:
    """Everything that defines a tournament's games. JSON round-trips through ``to_json``/``from_json``."""

    entrants: tuple[EntrantInfo, ...]
    table_size: int
    repeats: int
    seed: int
    ruleset: dict[str, Any]
    move_time: float
    startup_time: float
    time_bank: float | None
    sandbox: SandboxMode
    #: The ``--limit`` values given (a field of ``Limits`` each); the others take ``Limits``' defaults.
    limits: dict[str, int | None] = field(default_factory=dict)
    #: Files of the contest no bot may read besides the entrants' own (the manifest); not part of what defines
    #: the games, so a resume never compares them.
    concealed: tuple[str, ...] = ()
    clock: ClockMode = ClockMode.WALL
    format: str = "round-robin"
    max_games: int = DEFAULT_MAX_GAMES
    tables_per_entrant: int | None = None  # balanced
    challengers: tuple[str, ...] = ()  # gauntlet: the entrants that play the field
    top: int = 3  # race: the places to settle
    confidence: float = 0.95  # race
    tie_margin: float = 0.0  # race: points per game within which two entrants may be reported in either order

    def __post_init__(self) -> None:
        object.__setattr__(self, "sandbox", SandboxMode(self.sandbox))
        object.__setattr__(self, "clock", ClockMode(self.clock))

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(e.name for e in self.entrants)

    def bot_settings(self) -> BotSettings:
        """How its bots run. Raises the runner's ``ConfigError`` for impossible values."""
        return BotSettings(
            self.move_time, self.startup_time, self.time_bank, self.sandbox, self.clock, Limits(**self.limits)
        )

    def bot_specs(self) -> dict[str, BotSpec]:
        """Entrant name → how the runner starts its bot."""
        return {e.name: e.to_spec() for e in self.entrants}

    def runner_config(self, results: Path | None = None) -> RunnerConfig:
        """The runner's settings, with the ``results`` folder (when given) hidden from every bot. Raises the
        runner's ``ConfigError`` for impossible values."""
        return RunnerConfig.of(
            self.bot_settings(),
            hidden=() if results is None else (str(results),),
            entrants=entrant_paths(self.bot_specs().values()) + self.concealed,
        )

    def game_ruleset(self) -> Ruleset:
        """The ruleset every game is played with. Raises ``RulesetError`` for an invalid one, or one that cannot
        deal tables of ``table_size`` (e.g. hands too large for the deck)."""
        ruleset = Ruleset.from_dict(self.ruleset)
        ruleset.validate(self.table_size)
        return ruleset

    def check_line_length(self, game_ids: Iterable[str]) -> None:
        """Raise ``RulesetError`` when a game of this tournament (the longest names at one table, the longest
        of ``game_ids``) could make the referee send a line over ``protocol.MAX_SENT_LINE`` bytes."""
        widest = sorted(self.names, key=lambda n: len(n.encode("utf-8")), reverse=True)[: self.table_size]
        check_line_bound(self.game_ruleset(), widest, max(game_ids, key=len, default=""))

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> TournamentParams:
        """Raises ``ValueError`` (or ``KeyError``/``TypeError``) on text not written by ``to_json``."""
        data = json.loads(text)
        entrants = tuple(
            EntrantInfo(e["name"], tuple(e["argv"]), e.get("cwd"), dict(e.get("env") or {}), dict(e.get("files") or {}))
            for e in data["entrants"]
        )
        return cls(
            entrants=entrants,
            table_size=int(data["table_size"]),
            repeats=int(data["repeats"]),
            seed=int(data["seed"]),
            ruleset=dict(data["ruleset"]),
            move_time=float(data["move_time"]),
            startup_time=float(data["startup_time"]),
            time_bank=None if data.get("time_bank") is None else float(data["time_bank"]),
            sandbox=SandboxMode(data["sandbox"]),
            clock=ClockMode(data.get("clock") or ClockMode.WALL),
            limits=dict(data.get("limits") or {}),
            concealed=tuple(data.get("concealed") or ()),
            format=str(data.get("format", "round-robin")),
            max_games=int(data.get("max_games", DEFAULT_MAX_GAMES)),
            tables_per_entrant=None if data.get("tables_per_entrant") is None else int(data["tables_per_entrant"]),
            challengers=tuple(str(c) for c in data.get("challengers") or ()),
            top=int(data.get("top", 3)),
            confidence=float(data.get("confidence", 0.95)),
            tie_margin=float(data.get("tie_margin", 0.0)),
        )

    def mismatch(self, other: TournamentParams) -> str | None:
        """The first difference between the stored tournament (``self``) and ``other``, as a sentence; or None."""
        if self.names != other.names:
            return f"the entrants were {', '.join(self.names)}; now {', '.join(other.names)}"
        for mine, theirs in zip(self.entrants, other.entrants, strict=True):
            if mine.argv != theirs.argv:
                return f"entrant {mine.name} was started with `{mine.command()}`; now `{theirs.command()}`"
            if mine.cwd != theirs.cwd:
                return f"entrant {mine.name} ran in the folder {mine.cwd}; now {theirs.cwd}"
            if mine.env != theirs.env:
                return f"entrant {mine.name}'s environment {_env_change(mine.env, theirs.env)}"
        labels = {
            "table_size": "--table-size",
            "repeats": "--games",
            "seed": "--seed",
            "ruleset": "the ruleset",
            "move_time": "--move-time",
            "startup_time": "the startup time",
            "time_bank": "the time bank",
            "sandbox": "--sandbox",
            "clock": "--clock",
            "limits": "--limit",
            "format": "--format",
            "max_games": "--max-games",
            "tables_per_entrant": "--tables-per-entrant",
            "challengers": "the challengers",
            "top": "--top",
            "confidence": "--confidence",
            "tie_margin": "--tie-margin",
        }
        for name, label in labels.items():
            was, now = getattr(self, name), getattr(other, name)
            if was != now:
                return f"{label} was {was}; now {now}"
        return None


def _env_change(was: dict[str, str], now: dict[str, str]) -> str:
    """The first difference between two environments, as a phrase with the values quoted (repr)."""
    for key in sorted(was.keys() | now.keys()):
        if key not in now:
            return f"had {key}={was[key]!r}; now it has no {key}"
        if key not in was:
            return f"had no {key}; now {key}={now[key]!r}"
        if was[key] != now[key]:
            return f"had {key}={was[key]!r}; now {key}={now[key]!r}"
    return "is the same"  # pragma: no cover - only called when the two differ


@dataclass(frozen=True, slots=True)
class Requested:
    """What the organiser asked for; None means "not given" (a default, or the stored value on a resume)."""

    entrants: tuple[EntrantInfo, ...] | None = None
    table_size: int | None = None
    repeats: int | None = None
    seed: int | None = None
    move_time: float | None = None
    startup_time: float | None = None
    time_bank: float | None = None
    sandbox: str | None = None
    ruleset: dict[str, Any] | None = None
    limits: dict[str, int | None] | None = None
    clock: str | None = None
    concealed: tuple[str, ...] | None = None
    format: str | None = None
    max_games: int | None = None
    tables_per_entrant: int | None = None
    challengers: tuple[str, ...] | None = None
    top: int | None = None
    confidence: float | None = None
    tie_margin: float | None = None


def _table_size(requested: Requested) -> int:
    """The requested table size, else ``min(4, entrants)`` (a gauntlet: at most one seat more than its challengers)."""
    if requested.table_size is not None:
        return requested.table_size
    size = default_table_size(len(requested.entrants or ()))
    if requested.format == "gauntlet" and requested.challengers:
        size = min(size, len(requested.challengers) + 1)
    return size


def resolve_params(stored: TournamentParams | None, requested: Requested) -> TournamentParams:
    """The parameters to run with: the stored ones (a resume) or the requested ones with defaults filled in.

    On a resume every requested value must equal the stored one. Raises ``ParamsError`` naming the difference,
    or when a new tournament has no entrants. The default seed is random; the table size defaults to
    ``min(4, entrants)`` and the number of games per table to 1.
    """
    given = {k: v for k, v in asdict(requested).items() if v is not None and k != "entrants"}
    if stored is not None:
        candidate = replace(stored, **given)
        if requested.entrants is not None:
            candidate = replace(candidate, entrants=requested.entrants)
        diff = stored.mismatch(candidate)
        if diff is not None:
            raise ParamsError(f"it holds a tournament where {diff}")
        return stored
    if not requested.entrants:
        raise ParamsError("no entrants: give bot files (e.g. bots/*.py) or --manifest bots.toml")
    bots = BotSettings(**{k: v for k, v in given.items() if k in settings_fields() and k != "limits"})
    return TournamentParams(
        entrants=requested.entrants,
        table_size=_table_size(requested),
        repeats=1 if requested.repeats is None else requested.repeats,
        seed=secrets.randbelow(2**31) if requested.seed is None else requested.seed,
        ruleset=Ruleset().to_dict() if requested.ruleset is None else requested.ruleset,
        move_time=bots.move_time,
        startup_time=bots.startup_time,
        time_bank=bots.time_bank,
        sandbox=bots.sandbox,
        clock=bots.clock,
        limits={} if requested.limits is None else requested.limits,
        concealed=requested.concealed or (),
        format=requested.format or "round-robin",
        max_games=DEFAULT_MAX_GAMES if requested.max_games is None else requested.max_games,
        tables_per_entrant=requested.tables_per_entrant,
        challengers=requested.challengers or (),
        top=3 if requested.top is None else requested.top,
        confidence=0.95 if requested.confidence is None else requested.confidence,
        tie_margin=0.0 if requested.tie_margin is None else requested.tie_margin,
    )
