"""``ladder.toml``: the settings of one open contest, each with its default and its comment written once here.

``LadderConfig`` is a tree of frozen pydantic models, one per section of the file; ``default_toml()`` writes the
commented file ``referee ladder init`` creates (every key with its default and what it means, from the fields'
descriptions), and ``load_config`` reads one back, refusing an unknown key or an impossible value with one line
that names the key. ``serve`` reads the file when it starts.
"""

from __future__ import annotations

import os
import re
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from referee.engine import MAX_PLAYERS, MIN_PLAYERS, RefereeError, Ruleset
from referee.ladder.errors import ConfigFileError
from referee.settings import BotSettings, Limits, SandboxMode

__all__ = ["CONFIG_NAME", "LadderConfig", "default_toml", "load_config", "parse_size"]

CONFIG_NAME = "ladder.toml"

_SIZE = re.compile(r"^(\d+)\s*([kmg]i?b?|b)?$", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "k": 1024, "m": 1024**2, "g": 1024**3}


def parse_size(value: int | str) -> int:
    """Bytes from an integer or a size such as ``"64M"`` (K, M, G: powers of 1024). Raises ``ValueError``."""
    if isinstance(value, bool):
        raise ValueError('a size is a number of bytes or a text such as "64M"')
    if isinstance(value, int):
        if value < 1:
            raise ValueError("a size must be positive")
        return value
    match = _SIZE.match(value.strip())
    if match is None or int(match.group(1)) < 1:
        raise ValueError(f"{value!r} is not a size (a positive number, optionally ending in K, M or G)")
    return int(match.group(1)) * _UNITS[(match.group(2) or "").lower()[:1]]


class _Section(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", validate_default=True)


class GamesSection(_Section):
    """[games]: the tables and how each bot runs."""

    table_sizes: tuple[int, ...] = Field(
        default=(2, 3, 4), description="table sizes the matchmaker mixes (2 to 4 players)"
    )
    table_weights: tuple[float, ...] = Field(
        default=(1.0, 1.0, 2.0), description="how often each table size is chosen, relative (one weight per size)"
    )
    move_time: float = Field(default=BotSettings.move_time, gt=0, description="seconds a bot has for each reply")
    startup_time: float = Field(default=BotSettings.startup_time, gt=0, description="seconds a bot has to answer hello")
    time_bank: float = Field(
        default=0.0, ge=0, description="extra seconds per game beyond move_time, in total (0: none)"
    )
    sandbox: Literal["auto", "bwrap", "none"] = Field(
        default=BotSettings.sandbox.value,
        description='"auto" (bubblewrap when installed), "bwrap" (required), "none" (trusted bots only)',
    )
    clock: Literal["wall", "cpu"] = Field(
        default=BotSettings.clock.value, description='"wall" charges the reply\'s wall time, "cpu" the CPU time it used'
    )

    @model_validator(mode="after")
    def _sizes(self) -> GamesSection:
        if not self.table_sizes:
            raise ValueError("table_sizes: give at least one table size")
        if any(not MIN_PLAYERS <= k <= MAX_PLAYERS for k in self.table_sizes):
            raise ValueError(f"table_sizes: each size is {MIN_PLAYERS} to {MAX_PLAYERS}, got {list(self.table_sizes)}")
        if len(set(self.table_sizes)) != len(self.table_sizes):
            raise ValueError("table_sizes: each size once")
        if len(self.table_weights) != len(self.table_sizes):
            raise ValueError("table_weights: one weight per table size")
        if any(w < 0 for w in self.table_weights) or not sum(self.table_weights) > 0:
            raise ValueError("table_weights: weights are zero or more, and not all zero")
        return self


class LimitsSection(_Section):
    """[limits]: resource limits of each bot process (sizes may end in K, M or G)."""

    memory: int | str = Field(default="8G", description="address space of each bot process")
    cpu_seconds: int = Field(
        default=Limits.cpu_seconds or 86_400, ge=1, description="CPU seconds over a process's life"
    )
    processes: int = Field(default=Limits.processes or 256, ge=1, description="processes and threads of a bot")
    open_files: int = Field(default=Limits.open_files or 256, ge=1, description="open files of a bot process")
    file_size: int | str = Field(default="64M", description="the largest file a bot may write")
    tmp_size: int | str = Field(default="256M", description="the sandbox's private /tmp and /dev/shm together")
    ram: int | str = Field(
        default="2G",
        description="memory all processes of one bot start hold together (a memory cgroup each; all bots together "
        "hold at most the machine's memory less an eighth)",
    )
    game_output: int | str = Field(
        default="4M", description="bytes of one bot's lines in one game: a bot that sends more forfeits that game"
    )

    @field_validator("memory", "file_size", "tmp_size", "ram", "game_output")
    @classmethod
    def _size(cls, value: int | str) -> int:
        return parse_size(value)

    def limits(self) -> Limits:
        return Limits(
            address_space=parse_size(self.memory),
            cpu_seconds=self.cpu_seconds,
            processes=self.processes,
            open_files=self.open_files,
            file_size=parse_size(self.file_size),
            tmp_size=parse_size(self.tmp_size),
            ram=parse_size(self.ram),
            game_output=parse_size(self.game_output),
        )


class MatchmakingSection(_Section):
    """[matchmaking]: how the next block is chosen (docs/ladder.md gives the rule and its sources)."""

    placement_blocks: int = Field(default=6, ge=1, description="blocks a new version plays first, before it is ranked")
    max_wait: float = Field(
        default=900.0, gt=0, description="seconds: an active version that waited this long for a block is the next seed"
    )
    window: float = Field(
        default=2.0, gt=0, description="opponents come from within this many of the seed's sigmas of its rating"
    )
    wide_share: float = Field(
        default=0.2,
        ge=0,
        le=1,
        description="share of blocks whose opponents come from the whole field (keeps it connected)",
    )
    share_cap: float = Field(
        default=1.1,
        ge=1,
        description="an entrant over share_cap x the mean of today's bot time per entrant waits (fair share in time)",
    )
    size_slack: float = Field(
        default=4.0,
        ge=0,
        le=100,
        description="points a table size may fall behind its weight's share before a lane waits for seats to seat it",
    )
    pair_cap: float = Field(
        default=3.0,
        ge=1,
        description="no two versions meet in more than pair_cap x either's fair share of its opponents met + 1 blocks",
    )


class RatingSection(_Section):
    """[rating]: the live OpenSkill rating (Plackett-Luce), updated once per block."""

    mu: float = Field(default=25.0, description="a new version's rating")
    sigma: float = Field(default=25.0 / 3, gt=0, description="a new version's uncertainty")
    beta: float = Field(default=25.0 / 6, gt=0, description="the spread of one block's performance")
    tau: float = Field(default=0.0, ge=0, description="uncertainty added before each update (0: bots do not learn)")


class FaultsSection(_Section):
    """[faults]: suspension of a version that keeps faulting."""

    suspend_share: float = Field(
        default=0.25,
        gt=0,
        le=1,
        description="a version that forfeits more than this share of its recent games is suspended",
    )
    recent_games: int = Field(default=40, ge=1, description="how many of its latest games count as recent")


class SubmissionsSection(_Section):
    """[submissions]: what an entrant may submit."""

    per_day: int = Field(default=10, ge=1, description="submissions per entrant in 24 hours")
    active_versions: int = Field(
        default=1, ge=1, description="versions of an entrant that play at once (the newest ones)"
    )
    max_bytes: int | str = Field(default="16M", description="the largest file or archive accepted")
    max_unpacked: int | str = Field(default="64M", description="the most bytes an archive or folder may unpack to")
    max_files: int = Field(default=1000, ge=1, description="the most files an archive or folder may hold")
    max_ratio: float = Field(default=100.0, ge=1, description="the largest unpacked/packed ratio of an archive")
    build_time: float = Field(default=300.0, gt=0, description="seconds a build command may run")
    gate_games: int = Field(default=24, ge=1, description="games of the conformance suite (referee check) in the gate")

    @field_validator("max_bytes", "max_unpacked")
    @classmethod
    def _size(cls, value: int | str) -> int:
        return parse_size(value)


class EpochsSection(_Section):
    """[epochs]: each epoch has its own deal secret, committed before its first block and revealed at its end."""

    hours: float = Field(default=24.0, gt=0, description="an epoch closes after this many hours")
    blocks: int = Field(default=0, ge=0, description="or after this many blocks (0: by time only)")


class ServeSection(_Section):
    """[serve]: what referee ladder serve uses of the machine."""

    jobs: int = Field(default=2, ge=1, description="tables played at once")
    max_processes: int = Field(
        default=0,
        ge=0,
        description="live bot processes kept across blocks, at most (0: one per 128 MiB of the machine's memory, "
        "at most 512; a Python bot takes about 25 MiB)",
    )

    def process_cap(self) -> int:
        """``max_processes``, or for 0 one per 128 MiB of this machine's memory (at most 512, at least 16)."""
        if self.max_processes:
            return self.max_processes
        try:
            memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError):
            memory = 8 * 1024**3
        return max(16, min(512, memory // (128 * 1024**2)))


class HumanSection(_Section):
    """[human]: people playing unranked games against ranked versions on the web site (docs/ladder.md)."""

    at_once: int = Field(default=2, ge=0, description="human games played at once on the server (0: no human seats)")
    per_person: int = Field(
        default=1, ge=1, description="human games one person (or one signed-out address) plays at once"
    )
    anyone: bool = Field(default=False, description="people who are not signed in may play too")
    idle: float = Field(
        default=600.0, gt=0, description="seconds the game waits for a person's move; then it is abandoned, bots ended"
    )


class NoticesSection(_Section):
    """[notices]: where notices (a gate failed, a suspension, a version faulting; each on its entrant's /me) go too."""

    # Sent from a task of serve's own, one at a time, each in a worker thread with ``timeout``: a webhook or a mail
    # relay that is slow, hangs or refuses never holds up the ladder (``referee.ladder.courier``).

    webhook: str = Field(
        default="", description='a URL each notice is POSTed to as a small JSON object (http or https; "": none)'
    )
    timeout: float = Field(default=5.0, gt=0, le=120, description="seconds a webhook call or a mail may take")
    tries: int = Field(default=3, ge=1, le=10, description="attempts per notice and channel, 2, 4, 8... seconds apart")
    smtp_host: str = Field(default="", description='the SMTP relay notices are mailed through ("": no mail)')
    smtp_port: int = Field(default=25, ge=1, le=65535, description="its port")
    smtp_starttls: bool = Field(default=False, description="STARTTLS before anything is sent")
    smtp_user: str = Field(default="", description='the relay\'s user name ("": no login)')
    smtp_password_env: str = Field(
        default="", description="the environment variable that holds its password (never the password here)"
    )
    mail_from: str = Field(default="referee@localhost", description="the notices' From address")
    mail_to: tuple[str, ...] = Field(default=(), description="addresses that get every notice (the organiser's)")
    entrant_mail: dict[str, str] = Field(
        default={}, description="entrant name -> its address: each gets its own notices"
    )

    @field_validator("webhook")
    @classmethod
    def _url(cls, value: str) -> str:
        if value and not re.match(r"^https?://[^\s/]+", value):
            raise ValueError(f"{value!r} is not an http:// or https:// URL")
        return value

    @field_validator("mail_from", "mail_to", "entrant_mail")
    @classmethod
    def _addresses(cls, value: Any) -> Any:
        found = [value] if isinstance(value, str) else list(value.values() if isinstance(value, dict) else value)
        for address in found:
            if not re.fullmatch(r"[^@\s<>,]+@[^@\s<>,]+", address):
                raise ValueError(f"{address!r} is not a mail address")
        return value

    def mails(self) -> bool:
        """Whether notices are mailed at all."""
        return bool(self.smtp_host) and bool(self.mail_to or self.entrant_mail)


class LadderConfig(_Section):
    """The whole of ``ladder.toml``; every section and key is optional (the defaults above)."""

    games: GamesSection = GamesSection()
    rules: dict[str, Any] = Field(default_factory=dict)
    limits: LimitsSection = LimitsSection()
    matchmaking: MatchmakingSection = MatchmakingSection()
    rating: RatingSection = RatingSection()
    faults: FaultsSection = FaultsSection()
    submissions: SubmissionsSection = SubmissionsSection()
    epochs: EpochsSection = EpochsSection()
    serve: ServeSection = ServeSection()
    human: HumanSection = HumanSection()
    notices: NoticesSection = NoticesSection()

    @field_validator("rules")
    @classmethod
    def _rules(cls, value: dict[str, Any]) -> dict[str, Any]:
        try:
            Ruleset.from_dict(value)
        except RefereeError as exc:
            raise ValueError(str(exc)) from None
        return value

    @model_validator(mode="after")
    def _dealable(self) -> LadderConfig:
        ruleset = self.ruleset()
        for k in self.games.table_sizes:
            try:
                ruleset.validate(k)
            except RefereeError as exc:
                raise ValueError(f"[rules] at tables of {k}: {exc}") from None
        return self

    def ruleset(self) -> Ruleset:
        return Ruleset.from_dict(self.rules)

    def bot_settings(self) -> BotSettings:
        g = self.games
        return BotSettings(
            move_time=g.move_time,
            startup_time=g.startup_time,
            time_bank=g.time_bank or None,
            sandbox=SandboxMode(g.sandbox),
            clock=g.clock,  # type: ignore[arg-type]
            limits=self.limits.limits(),
        )


_HEAD = """\
# referee ladder: the settings of one open contest (docs/ladder.md).
# Every key is optional; the values below are the defaults. `referee ladder serve` reads this file when it starts.
"""

_SECTIONS: tuple[tuple[str, type[_Section]], ...] = (
    ("games", GamesSection),
    ("limits", LimitsSection),
    ("matchmaking", MatchmakingSection),
    ("rating", RatingSection),
    ("faults", FaultsSection),
    ("submissions", SubmissionsSection),
    ("epochs", EpochsSection),
    ("serve", ServeSection),
    ("human", HumanSection),
    ("notices", NoticesSection),
)


def _toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, tuple | list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, float):
        return repr(value)
    return str(value)


def default_toml() -> str:
    """The commented ``ladder.toml`` of a new ladder: every key with its default and its meaning."""
    out = [_HEAD]
    for name, model in _SECTIONS:
        out.append(f"\n[{name}]  # {(model.__doc__ or '').split(': ', 1)[-1].strip().rstrip('.')}")
        for key, field in model.model_fields.items():
            out.append(f"{key} = {_toml_value(field.default)}  # {field.description}")
        if name == "games":
            out.append("\n[rules]  # options of the ruleset (RULES.md); empty: the standard ruleset")
            out.append("# chip_floor = true")
    return "\n".join(out) + "\n"


def load_config(path: Path) -> LadderConfig:
    """The settings in ``path``. Raises ``ConfigFileError`` (one line naming the file and the key) for a file that
    cannot be read, is not TOML, or holds an unknown key or an impossible value."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigFileError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigFileError(f"{path} is not TOML: {exc}") from None
    try:
        return LadderConfig.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        message = str(first["msg"]).removeprefix("Value error, ")
        if first["type"] == "extra_forbidden":
            message = "unknown key (referee ladder init writes a ladder.toml with every key)"
        raise ConfigFileError(f"{path}: {where + ': ' if where else ''}{message}") from None
