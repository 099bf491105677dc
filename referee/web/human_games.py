"""Human games: a person plays one unranked game in the browser against ranked versions of the ladder.

Where they run: in the web server's process, on its trio loop (``referee ladder serve`` runs the web on a loop of
its own in a thread of the serve process: ``server.WebThread``), beside the pages. Each bot is started as ranked
play starts it, with the runner settings of ``ladder.toml`` (sandbox, limits, move time) and the ladder's hidden
paths (``RunnerConfig.of(config.bot_settings(), hidden=layout.hidden_paths())``, as ``serve`` makes it), as a
process of its own; the person's seat is a ``human_seat.BrowserSeat``. Nothing of a human game reaches the store:
it is never rated and never counts in the standing.

Bounds (``[human]`` of ``ladder.toml``): at most ``at_once`` games at once on the server and ``per_person`` for one
person (a signed-in entrant or the organiser; a signed-out address when ``anyone`` lets signed-out people play).
A game waits ``idle`` seconds for each of the person's moves; then, or when the person leaves, it is abandoned:
its bots are ended at once and what was played is kept. When the web server stops, its games are abandoned too.

Each game keeps, in ``games/human/`` (hidden from every bot, as the ranked games' logs are): its game log
(``ID.jsonl``, every hand in it: shown only once the game is over), its bots' stderr (``ID.seatN.stderr.log``) and,
once over, its summary (``ID.json``), which the web lists.
"""

from __future__ import annotations

import hmac
import json
import logging
import re
import secrets
import time
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from pathlib import Path
from typing import Any

import trio

from protocol import check_line_bound
from referee.contest.pool import PlayerFactory
from referee.engine import RefereeError
from referee.ladder.botmanifest import BotManifest, version_spec
from referee.ladder.config import HumanSection
from referee.ladder.errors import NotFound, Refused, SeatRefused
from referee.ladder.model import EntrantState, Version, VersionState
from referee.runner import Player, RunnerConfig, opaque_game_id, play_game
from referee.runner.safe_text import visible
from referee.web.contained import one_line
from referee.web.human_seat import BrowserSeat

__all__ = ["GAME_TRANSITIONS", "GameState", "HumanGame", "HumanGames", "opponents"]

#: The summaries listed on the page of human games.
LISTED = 20
log = logging.getLogger("referee.web.human")
_ID = re.compile(r"human-\d{8}-\d{6}-[0-9a-f]{8}")


class GameState(StrEnum):
    PLAYING = "playing"
    OVER = "over"  # played to its end
    ABANDONED = "abandoned"  # the person left, made no move in time, or the server stopped: bots ended
    FAILED = "failed"  # the referee could not play it (one line says why)


#: A game's lifecycle: it is played, then ends one way, for good.
GAME_TRANSITIONS: dict[GameState, frozenset[GameState]] = {
    GameState.PLAYING: frozenset({GameState.OVER, GameState.ABANDONED, GameState.FAILED}),
    GameState.OVER: frozenset(),
    GameState.ABANDONED: frozenset(),
    GameState.FAILED: frozenset(),
}


@dataclass
class HumanGame:
    """One human game: its id, who plays it (``owner``: who it counts against; ``person``: the name shown), the
    names at its table (the person at ``seat``), its state and why it ended."""

    id: str
    owner: str
    person: str
    names: tuple[str, ...]
    seat: BrowserSeat
    secret: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    state: GameState = GameState.PLAYING
    reason: str = ""
    started: float = field(default_factory=time.time)
    ended: trio.Event = field(default_factory=trio.Event)
    scope: trio.CancelScope = field(default_factory=trio.CancelScope)

    def held_by(self, secret: str | None) -> bool:
        """Whether ``secret`` (the game's cookie) is this game's: only its person sees and plays it."""
        return secret is not None and hmac.compare_digest(secret.encode(), self.secret.encode())

    def move_to(self, state: GameState, reason: str = "") -> bool:
        """Move to ``state`` if ``GAME_TRANSITIONS`` allows it now; whether it moved."""
        if state not in GAME_TRANSITIONS[self.state]:
            return False
        self.state, self.reason = state, reason
        return True

    def abandon(self, reason: str) -> None:
        """End the game now (the person left, or made no move in time): its bots are ended by ``HumanGames``."""
        if self.move_to(GameState.ABANDONED, reason):
            self.scope.cancel()


def opponents(ladder: Any) -> list[Version]:
    """The versions a person may play against: every ranked version of an active entrant, by key."""
    active = {e.id for e in ladder.entrants() if e.state == EntrantState.ACTIVE}
    found = [v for v in ladder.store.versions(states=[VersionState.RANKED]) if v.entrant_id in active]
    return sorted(found, key=lambda v: (v.entrant, v.number))


class HumanGames:
    """The human games of one ladder (``ladder``: a ``referee.ladder.Ladder``), run in ``run``'s nursery (the web
    app's lifespan). ``factory`` makes each bot (default: the runner's ``Player``, a sandboxed process)."""

    def __init__(self, ladder: Any, factory: PlayerFactory | None = None) -> None:
        self.ladder = ladder
        self.config: HumanSection = ladder.config.human
        self.folder: Path = ladder.layout.games / "human"
        self.factory = factory or Player
        self.live: dict[str, HumanGame] = {}
        self._nursery: trio.Nursery | None = None

    async def run(self, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> None:
        """Hold the games' nursery until cancelled; cancelling it abandons every game and ends its bots."""
        async with trio.open_nursery() as nursery:
            self._nursery = nursery
            task_status.started()
            try:
                await trio.sleep_forever()
            finally:
                self._nursery = None

    def may_play(self, principal: Any) -> str | None:
        """Why ``principal`` (None: signed out) may not play here, or None when it may."""
        if self.config.at_once == 0:
            return "the organiser has not opened human seats on this ladder ([human] at_once = 0)"
        if principal is None and not self.config.anyone:
            return "sign in to play: this ladder keeps its human seats for entrants"
        return None

    def start(self, owner: str, person: str, versions: Sequence[Version]) -> HumanGame:
        """Start a game of the person (``owner`` is who it counts against) at seat 0 against ``versions`` (chosen
        from ``opponents``). Raises ``SeatRefused`` over a bound, ``Refused`` for a table the ladder's rules do
        not allow, ``RulesetError`` when the names would make a line too long."""
        if self._nursery is None:
            raise SeatRefused("the server is stopping: try again in a minute", 503)
        sizes = self.ladder.config.games.table_sizes
        if len(versions) + 1 not in sizes:
            allowed = ", ".join(str(k - 1) for k in sizes)
            raise Refused(f"choose {allowed} opponents: this ladder plays tables of {', '.join(map(str, sizes))}")
        if len(self.live) >= self.config.at_once:
            raise SeatRefused(
                f"{self.config.at_once} human games are played now, the most at once here: try again in a few minutes",
                503,
            )
        mine = sum(1 for g in self.live.values() if g.owner == owner)
        if mine >= self.config.per_person:
            raise SeatRefused(
                f"you play {mine} game{'s' if mine > 1 else ''} already (at most {self.config.per_person} at once): "
                "finish or leave it first",
                429,
            )
        game_id = f"human-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(4)}"
        names = (f"{person} (human)", *(v.key for v in versions))
        ruleset = self.ladder.config.ruleset()
        check_line_bound(ruleset, names, game_id)
        holder: list[HumanGame] = []
        seat = BrowserSeat(names[0], idle=self.config.idle, on_idle=lambda why: holder[0].abandon(why))
        game = HumanGame(game_id, owner, person, names, seat)
        holder.append(game)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.live[game_id] = game
        self._nursery.start_soon(self._play, game, list(versions))
        return game

    async def _play(self, game: HumanGame, versions: list[Version]) -> None:
        settings = self.ladder.config.bot_settings()
        config = replace(RunnerConfig.of(settings, hidden=self.ladder.layout.hidden_paths()), freeze=True)
        bots: list[Any] = []
        result = None
        try:
            with game.scope:
                for seat, v in enumerate(versions, start=1):
                    spec = version_spec(v.key, BotManifest(v.command, v.build), self.ladder.version_folder(v))
                    bots.append(self.factory(spec, config, self.folder / f"{game.id}.seat{seat}.stderr.log"))
                game.seat.bots = bots  # frozen while the person thinks over a turn
                result = await play_game(
                    [game.seat, *bots],
                    game_id=game.id,
                    ruleset=self.ladder.config.ruleset(),
                    log_path=self.folder / f"{game.id}.jsonl",
                    wire_id=opaque_game_id(),
                )
            if result is not None:
                game.move_to(GameState.OVER)
        except RefereeError as exc:
            game.move_to(GameState.FAILED, str(exc).splitlines()[0] if str(exc) else type(exc).__name__)
        except Exception as exc:  # a referee bug must not take the web server down: the game fails, said in a line
            log.error("web: human game %s failed: %s", game.id, one_line(exc))
            game.move_to(GameState.FAILED, f"referee error {type(exc).__name__}")
        finally:
            game.move_to(GameState.ABANDONED, "the server stopped")
            with trio.CancelScope(shield=True):
                async with trio.open_nursery() as nursery:
                    for bot in bots:
                        nursery.start_soon(bot.aclose)
                self._keep(game, result)
            self.live.pop(game.id, None)
            game.ended.set()
            game.seat.changed.set()

    def _keep(self, game: HumanGame, result: Any) -> None:
        """Write the game's summary beside its log."""
        summary = {
            "id": game.id,
            "person": game.person,
            "names": list(game.names),
            "human_seat": 0,
            "state": game.state.value,
            "reason": game.reason,
            "scores": list(result.scores) if result is not None else None,
            "ranks": list(result.ranks) if result is not None else None,
            "forfeits": list(result.forfeits) if result is not None else [],
            "started": game.started,
            "finished": time.time(),
        }
        path = self.folder / f"{game.id}.json"
        path.with_suffix(".tmp").write_text(json.dumps(summary), encoding="utf-8")
        path.with_suffix(".tmp").replace(path)

    def summary(self, game_id: str) -> dict[str, Any]:
        """A finished game's summary. Raises ``NotFound`` when there is none (no such game, or still played)."""
        if not _ID.fullmatch(game_id):
            raise NotFound(f"no human game {visible(game_id[:60])}")
        try:
            found: dict[str, Any] = json.loads((self.folder / f"{game_id}.json").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            raise NotFound(f"no finished human game {game_id}") from None
        return found

    def log_path(self, game_id: str) -> Path:
        """The log of a finished game (every hand in it). Raises ``NotFound`` while the game is played or when
        there is none."""
        self.summary(game_id)
        return self.folder / f"{game_id}.jsonl"

    def finished(self, limit: int = LISTED) -> list[dict[str, Any]]:
        """The newest ``limit`` finished games' summaries, newest first."""
        if not self.folder.is_dir():
            return []
        paths = sorted(self.folder.glob("human-*.json"), reverse=True)[:limit]
        out = []
        for path in paths:
            try:
                out.append(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError):
                continue
        return out

    def of(self, owner: str) -> list[HumanGame]:
        """The games ``owner`` plays now."""
        return [g for g in self.live.values() if g.owner == owner]
