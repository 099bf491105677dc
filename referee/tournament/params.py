"""A tournament's parameters: what defines its schedule and its conditions, stored with its results.

Each option is declared once (``referee.tournament.options``; a format's own in its module of
``referee.tournament.formats``): its JSON round trip, its default and how a refused resume names it come from
there. A resumed tournament must have the same parameters as the one it continues, or its games would not be
comparable; ``TournamentParams.mismatch`` names the first difference.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field, fields, replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from protocol import check_line_bound
from referee.contest.schedule import default_table_size
from referee.engine import Ruleset
from referee.runner import (
    BotSettings,
    BotSpec,
    ClockMode,
    Limits,
    RunnerConfig,
    SandboxMode,
    entrant_paths,
    opaque_game_id,
)
from referee.settings import settings_fields
from referee.tournament.errors import ParamsError
from referee.tournament.fingerprint import changed_file, file_digests
from referee.tournament.formats import FORMATS, format_options
from referee.tournament.options import (
    CLOCK,
    CONCEALED,
    CORE,
    DEFAULT_MAX_GAMES,
    FORMAT,
    MAX_GAMES,
    SEED,
    TABLE_SIZE,
    Option,
)

__all__ = [
    "DEFAULT_MAX_GAMES",
    "EntrantInfo",
    "Requested",
    "TournamentParams",
    "resolve_params",
]


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
    concealed: tuple[str, ...] = CONCEALED.default
    clock: ClockMode = CLOCK.default
    format: str = FORMAT.default
    max_games: int = MAX_GAMES.default
    #: Every format's own options by name (``formats.format_options``; one not given has its default): read one
    #: with its declaration, ``TOP.of(params)``.
    options: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "sandbox", SandboxMode(self.sandbox))
        object.__setattr__(self, "clock", ClockMode(self.clock))
        # every format's options, at their defaults unless given: two parameters are equal when their values are
        object.__setattr__(self, "options", {o.name: self.options.get(o.name, o.default) for o in format_options()})

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(e.name for e in self.entrants)

    def bot_settings(self) -> BotSettings:
        """How its bots run. Raises the runner's ``ConfigError`` for impossible values."""
        chosen = {name: getattr(self, name) for name in settings_fields() if name != "limits"}
        return BotSettings(**chosen, limits=Limits(**self.limits))

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
        # The bots see an opaque id of fixed length in place of each game id (``execute.wire_id``).
        check_line_bound(self.game_ruleset(), widest, max([*game_ids, opaque_game_id(b"")], key=len))

    def value(self, option: Option[Any]) -> Any:
        """The value of ``option``: a field of these parameters, or one of a format's options."""
        return getattr(self, option.name) if option.name in _FIELDS else option.of(self)

    def changed(self, changes: Mapping[str, Any]) -> TournamentParams:
        """A copy with ``changes``: option name (a field, or a format's option) → its new value. Raises
        ``TypeError`` for a name that is neither."""
        unknown = [name for name in changes if name not in _FIELDS and name not in _format_option_names()]
        if unknown:
            raise TypeError(f"unknown tournament option {unknown[0]!r}")
        own = {name: value for name, value in changes.items() if name in _FIELDS}
        theirs = {name: value for name, value in changes.items() if name not in _FIELDS}
        return replace(self, **own, options={**self.options, **theirs}) if theirs else replace(self, **own)

    def to_json(self) -> str:
        """Every option by name (each format's too, at its default when it is not this one's), as ``from_json``
        reads it back."""
        data: dict[str, Any] = {"entrants": [asdict(e) for e in self.entrants]}
        data.update((o.name, self.value(o)) for o in (*CORE, *format_options()))
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> TournamentParams:
        """Raises ``ValueError`` (or ``KeyError``/``TypeError``) on text not written by ``to_json``; an option an
        older referee did not store takes its default."""
        data = json.loads(text)
        entrants = tuple(
            EntrantInfo(e["name"], tuple(e["argv"]), e.get("cwd"), dict(e.get("env") or {}), dict(e.get("files") or {}))
            for e in data["entrants"]
        )
        own = {o.name: o.load(data) for o in CORE}
        return cls(entrants=entrants, **own, options={o.name: o.load(data) for o in format_options()})

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
        for option in (*CORE, *format_options()):
            was, now = self.value(option), other.value(option)
            if option.compared and was != now:
                return f"{option.named} was {was}; now {now}"
        return None


#: The options that are fields of ``TournamentParams`` (the rest are formats' options).
_FIELDS = frozenset(f.name for f in fields(TournamentParams)) - {"options"}


def _format_option_names() -> set[str]:
    return {o.name for o in format_options()}


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


class Requested:
    """What the organiser asked for: the entrants (None: not given), and each option given by its name (a field of
    ``TournamentParams`` or a format's option), ``Requested(entrants, seed=7, top=5)``. A value of None is not
    given: the default, or the stored value on a resume. Raises ``TypeError`` for a name no option has."""

    __slots__ = ("entrants", "given")

    def __init__(self, entrants: tuple[EntrantInfo, ...] | None = None, **options: Any) -> None:
        known = {o.name for o in CORE} | _format_option_names()
        unknown = [name for name in options if name not in known]
        if unknown:
            raise TypeError(f"unknown tournament option {unknown[0]!r}")
        self.entrants = entrants
        #: Option name → the value asked for, for every option given.
        self.given: dict[str, Any] = {name: value for name, value in options.items() if value is not None}

    def __repr__(self) -> str:
        return f"Requested({self.entrants!r}, **{self.given!r})"


def _table_size(requested: Requested) -> int:
    """The requested table size, else ``min(4, entrants)`` as the format takes it (a gauntlet: at most one seat
    more than its challengers)."""
    given = requested.given
    if TABLE_SIZE.name in given:
        return int(given[TABLE_SIZE.name])
    size = default_table_size(len(requested.entrants or ()))
    fmt = FORMATS.get(given.get(FORMAT.name, FORMAT.default))
    return size if fmt is None else fmt.table_size(size, given)


def resolve_params(stored: TournamentParams | None, requested: Requested) -> TournamentParams:
    """The parameters to run with: the stored ones (a resume) or the requested ones with defaults filled in.

    On a resume every requested value must equal the stored one. Raises ``ParamsError`` naming the difference,
    or when a new tournament has no entrants, and the runner's ``ConfigError`` for an impossible bot setting.
    Every default is its option's (``referee.tournament.options``, the bots' from ``BotSettings``); the seed's is
    random, the table size's ``min(4, entrants)``, the ruleset's the standard one.
    """
    given = requested.given
    if stored is not None:
        candidate = stored.changed(given)
        if requested.entrants is not None:
            candidate = replace(candidate, entrants=requested.entrants)
        diff = stored.mismatch(candidate)
        if diff is not None:
            raise ParamsError(f"it holds a tournament where {diff}")
        return stored
    if not requested.entrants:
        raise ParamsError("no entrants: give bot files (e.g. bots/*.py) or --manifest bots.toml")
    bots = BotSettings(**{k: v for k, v in given.items() if k in settings_fields() and k != "limits"})
    own = {o.name: given.get(o.name, o.default) for o in CORE}
    own.update((name, getattr(bots, name)) for name in settings_fields() if name != "limits")
    own["limits"] = dict(own["limits"])
    own[TABLE_SIZE.name] = _table_size(requested)
    own[SEED.name] = given.get(SEED.name, secrets.randbelow(2**31))
    own["ruleset"] = given.get("ruleset", Ruleset().to_dict())
    options = {o.name: given.get(o.name, o.default) for o in format_options()}
    return TournamentParams(entrants=requested.entrants, **own, options=options)
