"""The API's JSON bodies, each a frozen pydantic model: what the OpenAPI document describes and clients get.

Bodies built from the ladder's own records ignore fields they do not name, so a ladder that records more still
answers; the fields named here are the API's contract (docs/web.md).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "BlockBody",
    "BlockSeat",
    "EntrantBody",
    "EpochBody",
    "ErrorBody",
    "FaultBody",
    "GameBody",
    "GateBody",
    "HeadToHead",
    "LeaderRowBody",
    "LeaderboardBody",
    "LogFile",
    "Me",
    "NoticeBody",
    "VersionBody",
]


class _Body(BaseModel):
    model_config = ConfigDict(frozen=True, extra="ignore")


class ErrorBody(_Body):
    """Every refusal: the HTTP status again and one line saying what was wrong and what to do."""

    error: str
    status: int


class Me(_Body):
    """Who the token belongs to: an entrant (``name``) or the organiser (``admin``)."""

    name: str | None
    admin: bool


class LeaderRowBody(_Body):
    """A version on the leaderboard. ``place``, its ``rank_interval`` (joint 95%), ``matchpoints`` (expected
    against the whole field, predicted from a Bradley-Terry fit to the blocks) with a 95% interval, the distinct
    ``opponents`` it met, and ``separated_from_next`` (at 95%, Holm) are the official standing (None while
    in placement); ``live_mu``/``live_sigma`` are the live OpenSkill rating, for information."""

    entrant: str
    version: int
    key: str
    state: str
    submitted_at: str
    blocks: int
    games: int
    forfeits: int
    place: int | None = None
    rank_interval: list[int] | None = None
    matchpoints: float | None = None
    matchpoints_ci95: list[float] | None = None
    relative_score: float | None = None
    relative_score_ci95: list[float] | None = None
    deals: int | None = None
    opponents: int | None = None
    separated_from_next: bool | None = None
    p_next: float | None = None
    live_mu: float | None = None
    live_sigma: float | None = None


class LeaderboardBody(_Body):
    """The ranked versions in official order, then those still in placement; ``note`` says which figure is official
    and how its intervals are made. ``computed_at``: when this standing was computed (it follows each block)."""

    official: str
    note: str
    blocks: int
    games: int
    ranked: list[LeaderRowBody]
    placement: list[LeaderRowBody]
    computed_at: str


class GateBody(_Body):
    """A version's gate: when it ran, whether it passed, and why not (one line each)."""

    started_at: str
    finished_at: str | None
    passed: bool | None
    reasons: list[str]


class VersionBody(_Body):
    """A version and its status: ``state`` is one of submitted, building, gating, placement, ranked, failed,
    suspended, retired. ``reason``, ``gate`` and ``build_output`` are its author's (and the organiser's) only:
    None for anyone else."""

    entrant: str
    version: int
    key: str
    digest: str
    state: str
    since: str
    submitted_at: str
    placement_left: int
    blocks: int
    games: int
    forfeits: int
    live_mu: float | None = None
    live_sigma: float | None = None
    fault_kinds: dict[str, int] = Field(default_factory=dict)
    command: list[str] | None = None
    build: list[str] | None = None
    reason: str | None = None
    gate: GateBody | None = None
    build_output: str | None = None


class EntrantBody(_Body):
    """An entrant and its versions, newest first. ``reason`` (why it is suspended) is for itself only."""

    name: str
    state: str
    created_at: str
    reason: str | None = None
    versions: list[VersionBody]


class BlockSeat(_Body):
    """A version's result on a block: its total score over the rotations (lower is better), its games and
    forfeits, its matchpoint share of the table and its relative score per game."""

    key: str
    total: int
    games: int
    forfeits: int
    matchpoints: float
    relative: float


class GameBody(_Body):
    """A stored game: its seats (version keys in seat order), scores, ranks and forfeits."""

    id: str
    block: int
    rotation: int
    seats: list[str]
    scores: list[int]
    ranks: list[int]
    forfeits: list[bool]
    duration: float
    finished_at: str


class BlockBody(_Body):
    """A duplicate block: one deal (``seed``, from epoch ``epoch``'s secret) at one table, every seat rotation.
    ``seed`` is None until the block is done: it gives every hand of the deal, which nobody may see while the deal
    is in play (a void block is played again from the same deal)."""

    id: int
    epoch: int
    kind: str
    state: str
    seed: str | None
    attempts: int
    created_at: str
    finished_at: str | None
    reason: str | None
    results: list[BlockSeat]
    games: list[GameBody] | None = None


class EpochBody(_Body):
    """An epoch's deal secret: its SHA-256 ``commitment`` published when it opened, the ``secret`` once it closed
    (None while open). ``referee verify-deals`` checks the deals of its blocks against them. ``chain_head``: the
    results' hash chain's last link when the epoch was revealed (None before): ``referee audit DIR --head HEAD``
    checks that no game stored before it changed since."""

    id: int
    scheme: str
    commitment: str
    opened_at: str
    closed_at: str | None
    secret: str | None
    blocks: int
    chain_head: str | None = None


class FaultBody(_Body):
    """One of a version's faults (its author's only): the game, seat, kind, where, the detail and the bot's line."""

    game: str
    seat: int
    kind: str
    round: int | None
    turn: int | None
    detail: str
    line: str | None


class LogFile(_Body):
    """A file of a version's stderr (its author's only): its name, where it was written (``source``: "ranked play"
    or "gate"), its size and its last ``text`` (at most 64 KiB, from the start of a line when cut)."""

    name: str
    size: int
    text: str
    truncated: bool
    source: str = "ranked play"


class HeadToHead(_Body):
    """A version against one opponent: the blocks they met in, and its share of the pairwise comparisons on them
    (ahead: 1, level: a half)."""

    opponent: str
    blocks: int
    share: float


class NoticeBody(_Body):
    """A notice an entrant was sent (``referee.ladder.notices``): its kind (gate failed, suspended, faulting,
    entrant suspended), the version (None: the entrant itself), what happened, when, and the page it is about."""

    id: int
    kind: str
    entrant: str
    version: str | None
    text: str
    at: str
    page: str
