"""``referee play``: one game between bots (or you and bots) with a readable or JSON summary."""

from __future__ import annotations

import json
import re
import secrets
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

import click

from referee.cli.interrupt import stops_cleanly
from referee.cli.options import (
    clock_option,
    limit_option,
    load_ruleset,
    move_time_option,
    read_json_file,
    rules_option,
    sandbox_option,
    startup_time_option,
    time_bank_option,
)

if TYPE_CHECKING:
    from referee.engine import Deal, Ruleset
    from referee.runner import GameResult
    from referee.runner.game import Participant
    from referee.runner.human import HumanPlayer
    from referee.settings import ClockMode, SandboxMode


@click.command("play")
@click.argument("bots", nargs=-1, required=True, metavar="BOT BOT [BOT [BOT]]")
@click.option(
    "--human",
    is_flag=True,
    help="You take seat 0 at the terminal, with no time limit (--move-time is the BOTs'); the BOTs take the others.",
)
@click.option(
    "--seed",
    type=int,
    default=None,
    help="Deal from this seed, to replay a game; anyone who knows or guesses it knows every hand, so it is for "
    "testing.  [default: a fresh random 63-bit seed, kept out of the game id and shown after the game]",
)
@click.option(
    "--deal",
    "deal_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help='Deal from a JSON file {"rounds":[{"hands":[[...],...]},...]} instead of a seed.',
)
@move_time_option()
@startup_time_option()
@time_bank_option
@click.option(
    "--log",
    "log_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Game log (JSON Lines) path [default: referee-logs/<game>.jsonl].",
)
@click.option("--json", "as_json", is_flag=True, help="Print exactly one JSON object with the result.")
@sandbox_option()
@clock_option()
@rules_option
@limit_option
@stops_cleanly("play")  # a Ctrl-C before or after the games: one line, exit 130
def play_cmd(
    bots: tuple[str, ...],
    human: bool,
    seed: int | None,
    deal_file: Path | None,
    move_time: float,
    startup_time: float,
    time_bank: float | None,
    log_file: Path | None,
    as_json: bool,
    sandbox: SandboxMode,
    clock: ClockMode,
    rules_file: Path | None,
    limits: dict[str, int | None],
) -> None:
    """Play one game; seats follow the order of the BOTs.

    A BOT is a .py file (run with this Python), a .js file (run with node), another executable file, a
    quoted command line such as "java -jar bot.jar", or a sample bot's name (greedy, heuristic, random_bot,
    montecarlo, js_bot), as check and compare take them. Bot faults (timeouts, crashes, protocol errors, illegal
    moves) forfeit the bot's game and are listed in the summary; the game log records every message, and each
    bot's stderr is saved beside it (LOG.seatN.NAME.stderr.log). Read a log back with "referee replay LOG",
    re-check it with "referee verify LOG".
    """
    from protocol import check_line_bound
    from referee.cli.interrupt import interrupted
    from referee.engine import RefereeError
    from referee.runner import (
        BotSettings,
        Limits,
        Player,
        RunnerConfig,
        Stopped,
        check_results_hidden,
        entrant_paths,
        run_until_stopped,
    )
    from referee.runner.layout import PLAY_LOGS_DIR
    from referee.runner.safe_text import visible
    from referee.runner.spec import resolve_opponent

    seats = len(bots) + (1 if human else 0)
    if not 2 <= seats <= 4:
        raise click.UsageError(
            f"a game has 2 to 4 players; got {seats} ({'you and ' if human else ''}{len(bots)} BOTs)"
        )
    if seed is not None and deal_file is not None:
        raise click.UsageError("give --seed or --deal, not both")
    try:
        ruleset = load_ruleset(rules_file)
        deal = _load_deal(deal_file, ruleset) if deal_file is not None else None
        specs = [resolve_opponent(b) for b in bots]  # a file, a command line, or a sample bot's name
        if deal is None and seed is None:
            seed = secrets.randbits(63)
        # The id (which every bot is told) carries nothing of the deal: a time and a random tag.
        game_id = f"play-{time.strftime('%Y%m%d-%H%M%S')}-{secrets.token_hex(3)}"
        log_path = log_file or Path.cwd() / PLAY_LOGS_DIR / f"{game_id}.jsonl"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        settings = BotSettings(move_time, startup_time, time_bank, sandbox, clock, Limits(**limits))
        # No bot reads the game's log.
        config = RunnerConfig.of(settings, hidden=(str(log_path.parent),), entrants=entrant_paths(specs))
        check_results_hidden(specs, config)
        entrants: list[Participant] = [_human(as_json, move_time)] if human else []
        for seat, spec in enumerate(specs, start=len(entrants)):
            stderr = log_path.with_name(f"{log_path.stem}.seat{seat}.{_safe(spec.name)}.stderr.log")
            entrants.append(Player(spec, config, stderr))
        check_line_bound(ruleset, [e.name for e in entrants], game_id)
        result = run_until_stopped(lambda: _play(entrants, game_id, ruleset, seed, deal, log_path))
    except Stopped:
        interrupted("play", f"the game's log so far: {visible(str(log_path))}")
    except RefereeError as exc:
        raise click.ClickException(str(exc)) from None
    except OSError as exc:
        raise click.ClickException(f"{exc.filename or ''}: {exc.strerror or exc}".lstrip(": ")) from None
    if as_json:
        click.echo(json.dumps(result.to_json()))
    else:
        _print_summary(result)


async def _play(
    entrants: list[Participant], game_id: str, ruleset: Ruleset, seed: int | None, deal: Deal | None, log_path: Path
) -> GameResult:
    import trio

    from referee.runner import opaque_game_id, play_game

    try:
        wire_id = opaque_game_id()  # the log keeps game_id; the bots see an id of the same form as a tournament's
        return await play_game(
            entrants, game_id=game_id, ruleset=ruleset, seed=seed, deal=deal, log_path=log_path, wire_id=wire_id
        )
    finally:
        with trio.CancelScope(shield=True):
            async with trio.open_nursery() as nursery:
                for e in entrants:
                    nursery.start_soon(e.aclose)


def _human(as_json: bool, bots_move_time: float) -> HumanPlayer:
    """The person's seat (no time limit; ``bots_move_time`` is the bots'); with --json its screen goes to stderr so
    stdout carries only the result object."""
    from referee.runner.human import HumanPlayer

    if not as_json:
        return HumanPlayer(bots_move_time=bots_move_time)

    def ask(prompt: str) -> str:
        sys.stderr.write(prompt)
        sys.stderr.flush()
        return input()

    return HumanPlayer(
        ask=ask, say=lambda text: print(text, file=sys.stderr, flush=True), bots_move_time=bots_move_time
    )


def _load_deal(path: Path, ruleset: Ruleset) -> Deal:
    from referee.engine import RefereeError, deal_from_json

    data = read_json_file(path, "deal file")
    try:
        return deal_from_json(data, ruleset)
    except RefereeError as exc:
        raise click.ClickException(f"deal file {path}: {exc}") from None


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:40] or "bot"


def _print_summary(result: GameResult) -> None:
    """The readable result; names, fault details and offending lines are shown literally (``visible``)."""
    from referee.runner.safe_text import line_text, visible

    how = f"seed {result.seed}" if result.seed is not None else "dealt from file"
    click.echo(f"Game {result.game_id} ({how})")
    names = [visible(n) for n in result.names]
    width = max(len(n) for n in names)
    for seat in sorted(range(len(names)), key=lambda s: (result.ranks[s], s)):
        note = "  forfeit" if seat in result.forfeits else ""
        click.echo(
            f"  rank {result.ranks[seat]}  seat {seat}  {names[seat]:<{width}}  score {result.scores[seat]:>4}{note}"
        )
    if result.faults:
        click.echo("Faults:")
        for fault in result.faults:
            click.echo(f"  {visible(fault.describe(result.names))}")
            if fault.line:
                click.echo(f"      line: {visible(line_text(fault.line, 100) or '')}")
    click.echo(f"Log: {visible(str(result.log_path))}")
    sys.stdout.flush()
