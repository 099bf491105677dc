"""``referee compare NEW OLD``: is the new version stronger? A sequential test on duplicate deals (exit 0/1/3)."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from referee.cli.interrupt import resume_hint, stops_cleanly
from referee.cli.options import limit_option, move_time_option, results_folder_options, rules_option, sandbox_option
from referee.cli.results_folder import (
    ResultsFolder,
    check_unchanged,
    fail,
    refuse,
    results_directory,
    storage_failed,
)

if TYPE_CHECKING:
    from rich.console import Console

    from referee.compare.run import Metric, Settings
    from referee.settings import SandboxMode
    from referee.tournament import DealSecret, ResultsStore, TournamentParams

#: The panel when none is given: the quick Python sample bots, so that a quick bot's comparison answers in a minute or
#: two (with montecarlo, which simulates every move, a block takes about eight times as long: --panel montecarlo).
DEFAULT_PANEL = ("random_bot", "greedy", "heuristic")
#: Exit status per verdict (2 is a usage error, 130 an interruption).
EXIT = {"stronger": 0, "not stronger": 1, "inconclusive": 3}
#: The defaults of the test's settings (docs/compare.md says why); no --max-games: the cap is sized from power.
DEFAULTS: dict[str, Any] = {"alpha": 0.05, "beta": 0.05, "metric": "matchpoints", "max_games": None}
DEFAULT_D1 = {"matchpoints": 0.05, "points": 1.0, "ranks": 0.1}
#: Game ids are written for at least this many games when the cap is sized (ids grow a digit beyond it).
MAX_SIZED_GAMES = 999_999


def _fail(message: str, code: int = 2) -> NoReturn:
    fail("compare", message, code)


@click.command("compare")
@click.argument("new", required=False, metavar="NEW")
@click.argument("old", required=False, metavar="OLD")
@click.option(
    "--panel",
    multiple=True,
    metavar="BOT",
    help="An opponent filling the other seats: a sample bot's name or a BOT; repeatable.  "
    f"[default: the quick sample bots {', '.join(DEFAULT_PANEL)}; add --panel montecarlo for a stronger, slower one]",
)
@click.option("--table-size", "-k", type=int, help="Players per game, 2 to 4.  [default: min(4, 1 + panel)]")
@click.option("--seed", type=int, help="Fixes every deal and table.  [default: random, printed]")
@click.option(
    "--max-games",
    type=int,
    help="Stop as inconclusive (exit 3) before playing more games than this.  [default: a cap sized for power "
    "1 - beta at d1 from the spread of the blocks so far, printed]",
)
@click.option("--alpha", type=float, help="Chance of 'stronger' when the true difference is d0.  [default: 0.05]")
@click.option("--beta", type=float, help="Chance of 'not stronger' when the true difference is d1.  [default: 0.05]")
@click.option(
    "--metric",
    type=click.Choice(["matchpoints", "ranks", "points"]),
    help="The gain the test runs on (positive: NEW better): matchpoints (NEW's share of the opponents it beat on a "
    "deal minus OLD's; betting tests with a guarantee), ranks (OLD's rank minus NEW's per game; betting tests) or "
    "points (OLD's score minus NEW's per game; GSPRT, calibrated for near-normal blocks only).  "
    "[default: matchpoints]",
)
@click.option("--d0", type=float, help="H0: NEW's gain is at most this (no better).  [default: 0]")
@click.option(
    "--d1",
    type=float,
    help="H1: NEW's gain is at least this, the gain worth detecting.  [default: 0.05 matchpoints, 0.1 ranks, "
    "1.0 points]",
)
@click.option("--jobs", "-j", type=int, default=2, show_default=True, help="Games played at the same time.")
@move_time_option(stored=True)
@sandbox_option(stored=True)
@rules_option
@limit_option
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object (progress goes to stderr).")
@results_folder_options("comparison", "compare")
def compare_cmd(**options: Any) -> None:
    """Is NEW stronger than OLD? Plays both on the same deals, seats and opponents until a sequential test decides.

    Each block is one deal at one table of panel opponents in every seat rotation, played once with NEW and once
    with OLD in the same seats; its gain is NEW's result minus OLD's (matchpoints: the share of the opponents beaten
    on the deal; positive means NEW did better). After every block two betting tests weigh H0 (the gain is at most
    --d0) and H1 (it is at least --d1), valid however long the test runs, and stop at the first bound: exit status 0
    when NEW is stronger, 1 when it is not, 3 when the cap runs out first, 2 for a usage error. Results are stored
    like a tournament's; Ctrl-C stops cleanly, and --resume FOLDER continues. See docs/compare.md.
    """
    # The results folder's lock is held until the comparison ends; a Ctrl-C outside the games (they stop
    # cleanly on their own) leaves nothing half-written.
    with stops_cleanly("compare"), ResultsFolder("compare") as held:
        given = CompareOptions(**options)
        _start(_resolve(held, given), given)


@dataclass(frozen=True)
class CompareOptions:
    """The options of ``referee compare`` as given (None: not given)."""

    new: str | None
    old: str | None
    panel: tuple[str, ...]
    table_size: int | None
    seed: int | None
    max_games: int | None
    alpha: float | None
    beta: float | None
    metric: Metric | None
    d0: float | None
    d1: float | None
    jobs: int
    move_time: float | None
    sandbox: SandboxMode | None
    rules_file: Path | None
    limits: dict[str, int | None]
    as_json: bool
    out: Path | None
    resume: Path | None


@dataclass(frozen=True)
class ComparePlan:
    """A comparison settled by ``_resolve``: where, between which entrants, with which test and deal secret."""

    directory: Path
    params: TournamentParams
    settings: Settings
    secret: DealSecret
    resumed: bool


def _resolve(held: ResultsFolder, given: CompareOptions) -> ComparePlan:
    """Check the options, read the comparison the results folder holds (if any), settle the parameters, the test
    and the deal secret; every problem is one line and an exit. Takes the folder's lock."""
    from referee.cli.options import load_ruleset
    from referee.compare import CompareError, CompareState, block_batches, games_per_block, stored_settings
    from referee.engine import RulesetError
    from referee.runner import BotSpecError, ConfigError, check_results_hidden
    from referee.tournament import (
        DB_NAME,
        DealSecret,
        ParamsError,
        Requested,
        ResultsStore,
        StoreError,
        resolve_params,
    )

    directory = results_directory("compare", given.out, given.resume, "compare")
    if given.jobs < 1:
        _fail(f"--jobs must be at least 1, got {given.jobs}")
    if (given.new is None) != (given.old is None):
        _fail("give both NEW and OLD (the new and the old version of the bot)")
    if given.new is None and given.resume is None:
        _fail("give NEW and OLD (bot files or command lines), or --resume FOLDER")
    stored: TournamentParams | None = None
    stored_test: Settings | None = None
    secret = DealSecret.new()
    if directory.exists():
        held.lock(directory)
    if (directory / DB_NAME).exists():
        try:
            with ResultsStore(directory, create=False) as existing:
                stored, stored_test = existing.params(), stored_settings(existing)
                if stored is not None and stored_test is not None:
                    secret = existing.deal_secret()
        except (StoreError, CompareError) as e:
            _fail(f"results folder {directory}: {e}", 1)
        if stored is not None and stored_test is None:
            _fail(f"results folder {directory} holds a tournament, not a comparison: give another --out")
    entrants = None
    if given.new is not None and given.old is not None:
        entrants = _entrants(given.new, given.old, given.panel)
    table_size = given.table_size
    if table_size is None and stored is None and entrants is not None:
        table_size = min(4, len(entrants) - 1)
    if table_size is not None and not 2 <= table_size <= 4:
        _fail(f"--table-size must be 2 to 4, got {table_size}")
    ruleset = load_ruleset(given.rules_file).to_dict() if given.rules_file is not None else None
    requested = Requested(
        entrants,
        table_size=table_size,
        seed=given.seed,
        move_time=given.move_time,
        sandbox=given.sandbox,
        ruleset=ruleset,
        limits=given.limits or None,
    )
    try:
        params = resolve_params(stored, requested)
        settings = _settings(stored_test, given.alpha, given.beta, given.metric, given.d0, given.d1, given.max_games)
        block_batches(0, params.names[2:], params.table_size, params.seed, secret)
        check_results_hidden(params.bot_specs().values(), params.runner_config(results=directory), nested=True)
        params.check_line_length([f"g{settings.max_games or MAX_SIZED_GAMES:06d}"])
        CompareState(params.table_size, settings)  # a design the metric cannot test is refused here
    except (ParamsError, CompareError, ConfigError, RulesetError, BotSpecError, ValueError) as e:
        refuse("compare", directory, stored is not None, str(e).replace("tournament", "comparison"))
    if settings.max_games is not None and settings.max_games < games_per_block(params.table_size):
        _fail(
            f"--max-games {settings.max_games} is less than one block: a block at tables of {params.table_size} "
            f"is {games_per_block(params.table_size)} games"
        )
    check_unchanged("compare", directory, params.entrants if stored is not None else ())
    held.lock(directory)
    return ComparePlan(directory, params, settings, secret, stored is not None)


def _start(plan: ComparePlan, given: CompareOptions) -> None:
    """Open the store (a new comparison: initialise it, and store the test), then play and present it."""
    from rich.console import Console

    from referee.tournament import ResultsStore, StoreError

    console = Console(stderr=given.as_json, highlight=False)
    if not console.is_terminal:
        console = Console(stderr=given.as_json, highlight=False, width=max(console.width, 160))
    try:
        store = ResultsStore(plan.directory)
    except StoreError as e:
        _fail(str(e), 1)
    with store:
        try:
            if not plan.resumed:
                store.initialise(plan.params, plan.secret)
            store.set_meta("compare", plan.settings.to_json())
        except StoreError as e:
            _storage_failed(plan.directory, e)
        _run(
            store, plan.params, plan.settings, given.jobs, console, given.as_json, plan.directory, resumed=plan.resumed
        )


def _storage_failed(directory: Path, e: BaseException) -> NoReturn:
    storage_failed(directory, e, "compare")


def _entrants(new: str, old: str, panel: tuple[str, ...]) -> tuple[Any, ...]:
    """NEW as ``new``, OLD as ``old``, then the panel (sample bot names or BOTs), every name unique."""
    from dataclasses import replace

    from referee.check import resolve_opponent, sample_bot_spec
    from referee.runner import BotSpecError, parse_bot_spec
    from referee.tournament import EntrantInfo, with_unique_names

    try:
        specs = [replace(parse_bot_spec(new), name="new"), replace(parse_bot_spec(old), name="old")]
        specs += [resolve_opponent(p) for p in panel] if panel else [sample_bot_spec(n) for n in DEFAULT_PANEL]
    except BotSpecError as e:
        _fail(str(e))
    return tuple(EntrantInfo.from_spec(s) for s in with_unique_names(specs))


def _settings(
    stored: Settings | None,
    alpha: float | None,
    beta: float | None,
    metric: Metric | None,
    d0: float | None,
    d1: float | None,
    max_games: int | None,
) -> Settings:
    """The test's settings: the stored ones (a resume: only --max-games may change) or the given ones with
    defaults. Raises ``CompareError`` naming an impossible value or a difference from the stored test."""
    from dataclasses import replace

    from referee.compare import Design, Settings

    if stored is not None:
        asked: dict[str, float | None] = {"alpha": alpha, "beta": beta, "d0": d0, "d1": d1}
        given: dict[str, Any] = {k: v for k, v in asked.items() if v is not None}
        candidate = Settings(replace(stored.design, **given), metric or stored.metric, stored.max_games)
        diff = stored.mismatch(candidate)
        if diff is not None:
            from referee.compare import CompareError

            raise CompareError(f"it holds a comparison where {diff}")
        return stored if max_games is None else replace(stored, max_games=max_games)
    metric = metric or DEFAULTS["metric"]
    design = Design(
        alpha=DEFAULTS["alpha"] if alpha is None else alpha,
        beta=DEFAULTS["beta"] if beta is None else beta,
        d0=0.0 if d0 is None else d0,
        d1=DEFAULT_D1[metric] if d1 is None else d1,
    )
    return Settings(design, metric, DEFAULTS["max_games"] if max_games is None else max_games)


def _run(
    store: ResultsStore,
    params: TournamentParams,
    settings: Settings,
    jobs: int,
    console: Console,
    as_json: bool,
    directory: Path,
    *,
    resumed: bool,
) -> None:
    from referee.compare import run_compare
    from referee.compare.display import BlockLines, cap_line, verdict_line
    from referee.runner import BotSpecError, ConfigError
    from referee.runner.safe_text import literal
    from referee.tournament import LocalExecutor, StoreError, standings_from_store

    new, old, *panel = params.entrants
    design = settings.design
    console.print(
        literal(
            f"{'Continuing' if resumed else 'Starting'} comparison in {directory}: NEW `{new.command()}` vs OLD "
            f"`{old.command()}` at tables of {params.table_size} with {', '.join(p.name for p in panel)}"
            f"{' (the default panel: the quick sample bots)' if tuple(p.name for p in panel) == DEFAULT_PANEL else ''}"
            "; seed "
            f"{params.seed}; {settings.metric}: H0 gain <= {design.d0:g} vs H1 gain >= {design.d1:g} (NEW minus OLD), "
            f"alpha {design.alpha:g}, beta {design.beta:g}, "
            + (f"at most {settings.max_games} games" if settings.max_games else "a cap sized from power")
        )
    )
    started = time.monotonic()
    try:
        outcome = run_compare(store, params, settings, LocalExecutor(jobs), progress=BlockLines(console))
    except (ConfigError, BotSpecError) as e:  # e.g. --sandbox bwrap without bubblewrap: found when a bot starts
        _fail(f"{e}; finished games are saved: continue with referee compare --resume {directory}")
    except (OSError, StoreError) as e:
        _storage_failed(directory, e)
    seconds = time.monotonic() - started
    state = outcome.state
    standings = standings_from_store(store)
    faults = store.first_faults()
    forfeits = {e.name: dict(sorted(e.forfeits.items())) for e in standings.entrants if e.forfeits}
    for entry in sorted(standings.entrants, key=lambda e: params.names.index(e.name)):
        if entry.name in faults:
            game_id, kind, detail = faults[entry.name]
            whose = {"new": "NEW", "old": "OLD"}.get(entry.name, f"panel bot {entry.name}")
            counted = " (they count against it)" if entry.name in ("new", "old") else ""
            console.print(
                literal(
                    f"{whose}: {sum(entry.forfeits.values())} forfeit(s){counted}; first in {game_id}: {kind}: "
                    f"{detail} (its stderr: {directory / 'bots' / entry.name}.*.log)"
                )
            )
    if outcome.interrupted:
        played = f"{state.blocks} block(s) ({outcome.played} game(s) played now; finished games are saved)"
        resume_hint("compare", played, directory)
    verdict = state.verdict or "inconclusive"
    console.print(verdict_line(state))
    console.print(cap_line(state))
    console.print(f"{outcome.played} games played in {seconds:.0f} s; results in {directory}")
    if as_json:
        data = state.to_dict() | {"forfeits": forfeits, "out": str(directory), "seed": params.seed}
        data["seconds"] = round(seconds, 1)
        click.echo(json.dumps(data))
    sys.exit(EXIT[verdict])
