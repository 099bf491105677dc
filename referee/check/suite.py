"""Run the conformance suite against one bot: handshake, the planned games, the probe, bye; then judge."""

from __future__ import annotations

import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import trio

from referee.check.errors import CheckError
from referee.check.model import CheckReport, Evidence, GameSummary
from referee.check.observe import ObservedBot, unknown_message
from referee.check.plan import PlannedGame, plan_games
from referee.check.probe import probe_bot
from referee.check.verdicts import Observations, SuiteGame, evaluate
from referee.engine import STANDARD, Ruleset
from referee.runner import (
    BotFault,
    BotSettings,
    BotSpec,
    BotSpecError,
    Player,
    RunnerConfig,
    SandboxMode,
    UnsolicitedOutput,
    opaque_game_id,
    play_game,
)
from referee.runner.spec import resolve_opponent, sample_bot_spec

__all__ = [
    "DEFAULT_GAMES",
    "DEFAULT_OPPONENTS",
    "CheckOptions",
    "resolve_opponent",
    "run_check",
    "sample_bot_spec",
    "stderr_tail",
]

#: The sample bots the suite plays against by default (fast ones; add others with ``opponents``).
DEFAULT_OPPONENTS = ("random_bot", "greedy", "heuristic")
DEFAULT_GAMES = 24
#: How long to wait for stray output after the bot's last game.
STRAY_WAIT = 0.2

Progress = Callable[[str], None]


@dataclass(frozen=True)
class CheckOptions(BotSettings):
    """How to run the suite: how the bot under check runs (``BotSettings``), ``games`` regular games (plus one
    with unknown fields), ``jobs`` at once.

    ``logs``: folder for game logs and stderr logs (a temporary folder, removed afterwards, when None).
    ``ruleset``: the rules its games are played by (a ladder's gate: the ladder's own, as in its ranked play).
    """

    games: int = DEFAULT_GAMES
    seed: int = 23
    jobs: int = 2
    opponents: tuple[BotSpec, ...] = ()
    logs: Path | None = None
    ruleset: Ruleset = STANDARD


class _Lane:
    """One table at a time: the bot under check and a pool of opponent processes, reused across games."""

    def __init__(
        self,
        index: int,
        spec: BotSpec,
        config: RunnerConfig,
        opp_config: RunnerConfig,
        logs: Path,
        ruleset: Ruleset = STANDARD,
    ) -> None:
        self.bot = ObservedBot(Player(spec, config, logs / f"bot-stderr-{index}.log"))
        self.ruleset = ruleset
        self.index = index
        self.opp_config = opp_config
        self.logs = logs
        self.pool: dict[tuple[str, int], Player] = {}
        self.specs: dict[str, BotSpec] = {}

    def opponent(self, spec: BotSpec, copy: int) -> Player:
        key = (spec.name, copy)
        if key not in self.pool:
            self.pool[key] = Player(spec, self.opp_config, self.logs / f"opp-{spec.name}-{self.index}-{copy}.log")
        return self.pool[key]

    async def play(self, planned: PlannedGame, tolerance: bool, specs: dict[str, BotSpec]) -> SuiteGame:
        copies: dict[str, int] = {}
        seats: list[ObservedBot | Player] = []
        for name in planned.lineup:
            if name is None:
                seats.append(self.bot)
                continue
            seats.append(self.opponent(specs[name], copies.get(name, 0)))
            copies[name] = copies.get(name, 0) + 1
        self.bot.begin(planned.game_id, tolerance=tolerance)
        result = await play_game(
            seats,
            game_id=planned.game_id,
            ruleset=self.ruleset,
            deal=planned.deal,
            log_path=self.logs / f"{planned.game_id}.jsonl",
            wire_id=opaque_game_id(),  # the form of a contest's ids: nothing tells the bot it is being checked
        )
        return SuiteGame(planned, tolerance, result, self.bot.record)

    async def stray_output(self) -> Evidence | None:
        """A line the bot wrote after its last game (nothing asked for it), found by sending one more message.

        The message is of a type the bot does not know (protocol v1 lets a bot receive such, with no reply).
        """
        if not self.bot.ready:
            return None
        await trio.sleep(STRAY_WAIT)
        last = self.bot.record.exchanges[-1].sent if self.bot.record.exchanges else None
        try:
            await self.bot.player.notify(unknown_message("end"), trio.current_time() + 1.0)
        except UnsolicitedOutput as exc:
            what = f"unsolicited: {exc.detail} (after the message shown, the last of its games)"
            line = exc.line.rstrip("\r\n") if exc.line is not None else None
            return Evidence(what, self.bot.record.game_id, 0, None, last, line)
        except BotFault:
            pass
        return None

    async def close(self) -> tuple[bool, float] | None:
        """Close every process; for the bot under check, whether it exited by itself after bye (and how fast)."""
        outcome = None
        if self.bot.ready:
            start = time.monotonic()
            await self.bot.aclose()
            seconds = time.monotonic() - start
            outcome = (seconds < self.bot.player.config.grace, seconds)
        else:
            await self.bot.aclose()
        for p in self.pool.values():
            await p.aclose()
        return outcome


async def run_check(
    spec: BotSpec, options: CheckOptions = CheckOptions(), progress: Progress | None = None
) -> CheckReport:
    """Run the suite against ``spec`` and judge it. Bot misbehaviour is in the report, never raised.

    Raises ``BotSpecError`` when an opponent cannot be found or the sandbox mode cannot be honoured,
    ``ConfigError`` for impossible timings, ``CheckError`` for fewer than one game.
    """
    if options.games < 1:
        raise CheckError("--games must be at least 1")
    opponents = options.opponents or tuple(sample_bot_spec(n) for n in DEFAULT_OPPONENTS)
    specs = {o.name: o for o in opponents}
    if len(specs) != len(opponents):
        raise BotSpecError("two opponents have the same name: give each opponent once")
    shown = spec.name
    if spec.name in specs:  # a sample bot checked against itself: names kept apart as a contest numbers them
        spec = replace(spec, name=f"{spec.name}-2")
    # The sample bots are trusted: bare, and given at least the default move time.
    opp_config = RunnerConfig(
        move_time=max(options.move_time, BotSettings.move_time),
        startup_time=options.startup_time,
        sandbox=SandboxMode.NONE,
    )
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="referee-check-") as tmp:
        logs = options.logs or Path(tmp)
        logs.mkdir(parents=True, exist_ok=True)
        # The bot under check cannot read the opponents' hands in the logs.
        config = RunnerConfig.of(options, hidden=(str(logs),))
        obs = await _collect(spec, options, config, opp_config, specs, logs, progress or (lambda _: None))
        checks = evaluate(obs)
        tail = stderr_tail(sorted(logs.glob("bot-stderr-*.log"))) if any(c.failed for c in checks) else ()
    games = tuple(
        GameSummary(
            g.planned.game_id,
            g.result.names,
            g.planned.seat,
            g.result.scores,
            g.result.ranks,
            bool(g.faults),
            str(g.result.log_path) if options.logs and g.result.log_path else None,
        )
        for g in sorted(obs.games, key=lambda g: g.planned.game_id)
    )
    notes = _opponent_notes(obs.games)
    if options.logs:
        notes.append(f"game logs and stderr logs are in {options.logs}")
    name = obs.hello.name if obs.hello is not None else None
    return CheckReport(shown, name, tuple(checks), games, time.monotonic() - started, tuple(notes), tail)


def stderr_tail(paths: Sequence[Path], lines: int = 15) -> tuple[str, ...]:
    """The last ``lines`` lines of the bot's stderr logs, each log's lines in order (unreadable logs skipped)."""
    out: list[str] = []
    for path in paths:
        try:
            text = path.read_bytes()[-16384:].decode("utf-8", "replace")
        except OSError:
            continue
        out.extend(line for line in text.splitlines() if line.strip())
    return tuple(out[-lines:])


def _opponent_notes(games: Sequence[SuiteGame]) -> list[str]:
    notes = []
    for g in games:
        for f in g.result.faults:
            if f.seat != g.planned.seat:
                notes.append(f"opponent fault in game {g.planned.game_id}: {f.describe(list(g.result.names))}")
    return notes


async def _collect(
    spec: BotSpec,
    options: CheckOptions,
    config: RunnerConfig,
    opp_config: RunnerConfig,
    specs: dict[str, BotSpec],
    logs: Path,
    progress: Progress,
) -> Observations:
    obs = Observations(move_time=options.move_time, grace=config.grace)
    plan = plan_games(options.games, tuple(specs), seed=options.seed, ruleset=options.ruleset)
    control = plan[0]
    tolerance_game = replace(control, game_id="check-unknown-fields")
    jobs = max(1, min(options.jobs, len(plan) + 1))
    lanes = [_Lane(i, spec, config, opp_config, logs, options.ruleset) for i in range(jobs)]

    try:
        first = lanes[0].bot
        await first.ensure_started()
        obs.startup_fault, obs.hello = first.startup_fault, first.hello
        if first.ready:
            progress(f"hello from {first.hello.name if first.hello else '?'}; playing {len(plan) + 1} games")
            send, receive = trio.open_memory_channel[tuple[PlannedGame, bool]](len(plan) + 1)
            # The dressed-up game last: its unknown fields are the one thing of the suite a contest never sends,
            # so no plain game comes after it (a bot that behaved only when it saw it would behave in none);
            # what it leaves behind shows in the stray-output probe and the bye after it.
            for planned in plan:
                send.send_nowait((planned, False))
            send.send_nowait((tolerance_game, True))
            send.close()

            async def work(lane: _Lane) -> None:
                async for planned, tolerance in receive.clone():
                    played = await lane.play(planned, tolerance, specs)
                    obs.games.append(played)
                    progress(f"{planned.game_id}: {'fault' if played.faults else 'ok'}")

            async with trio.open_nursery() as games:
                for lane in lanes:
                    games.start_soon(work, lane)
            receive.close()
        # The probe (a hello with an unknown field, a message of unknown type) after every game, for the same
        # reason as the dressed-up game: no process of the bot sees what a contest never sends before a plain game.
        obs.probe = await probe_bot(spec, config, logs / "bot-stderr-probe.log")
    except BaseException:  # interrupted (Ctrl-C) or a referee bug: no bot process may outlive the suite
        with trio.CancelScope(shield=True):
            for lane in lanes:
                await lane.close()
        raise
    for lane in lanes:
        stray = await lane.stray_output()
        if stray is not None:
            obs.stray.append(stray)
        outcome = await lane.close()
        if outcome is not None:
            obs.bye_exits.append(outcome)
    return obs
