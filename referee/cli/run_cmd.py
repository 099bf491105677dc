"""``referee run`` (a round-robin tournament) and ``referee standings`` (its standings, again)."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from referee.cli import collector
from referee.cli.interrupt import resume_hint, stops_cleanly
from referee.cli.options import (
    clock_option,
    limit_option,
    load_ruleset,
    logs_option,
    move_time_option,
    results_folder_options,
    rules_option,
    sandbox_option,
    startup_time_option,
    time_bank_option,
)
from referee.cli.results_folder import (
    ResultsFolder,
    check_unchanged,
    refuse,
    results_directory,
    storage_failed,
    tidy,
)
from referee.cli.results_folder import fail as _fail
from referee.tournament.formats import FORMATS, format_of, format_options
from referee.tournament.formats.gauntlet import CHALLENGERS
from referee.tournament.options import FORMAT, MAX_GAMES, REPEATS, SEED, TABLE_SIZE, Option

if TYPE_CHECKING:
    from rich.console import Console

    from referee.settings import ClockMode, SandboxMode
    from referee.tournament import (
        DealSecret,
        EntrantInfo,
        Executor,
        Requested,
        RunOutcome,
        Standings,
        Tally,
        TournamentParams,
    )

#: Largest number of entrants for which the head-to-head matrix is printed (it is always in standings.json).
H2H_PRINT_MAX = 10


def _write_standings(
    directory: Path, standings: Standings, deals: dict[str, str | None], lost: list[dict[str, object]]
) -> tuple[Path, Path]:
    csv_path, json_path = directory / "standings.csv", directory / "standings.json"
    csv_path.write_text(standings.to_csv(), encoding="utf-8")
    data = {**standings.to_dict(), "deals": deals, "workers_lost": lost}
    json_path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return csv_path, json_path


def _console(*, stderr: bool = False) -> Console:
    """The console on stdout; not a terminal (a pipe, a file, CI): wide enough for every column of the tables
    (names up to 48 characters, a declared name up to 40), which a terminal may have to fold or leave out, and
    without rich's highlighting and emoji codes (colours that are not shown there; the referee's lines have no
    emoji codes, and the names are printed literally anyway): they cost a few milliseconds of regular expressions."""
    from rich.console import Console

    console = Console(stderr=stderr)
    if console.is_terminal:
        return console
    return Console(width=max(console.width, 200), highlight=False, emoji=False, stderr=stderr)


def _print_standings(console: Console, standings: Standings) -> None:
    from referee.tournament import head_to_head_table, standings_table

    console.print(standings_table(standings, width=console.width))
    if 2 < len(standings.entrants) <= H2H_PRINT_MAX:
        console.print(head_to_head_table(standings))


F = TypeVar("F", bound=Callable[..., Any])

#: The tournament's options ``referee run`` makes from their declarations (the bots' settings come from
#: ``referee.cli.options``, shared with the other commands): passed to ``Requested`` by name.
DECLARED: tuple[Option[Any], ...] = (TABLE_SIZE, REPEATS, SEED, FORMAT, MAX_GAMES, *format_options())


def _declared(option: Option[Any]) -> Callable[[F], F]:
    """The ``referee run`` option of a tournament option's declaration (its flag, help and default said)."""
    names = [option.flag or "", *([option.short] if option.short else []), option.name]
    if option is FORMAT:
        summaries = "; ".join(f"{fmt.name}: {fmt.summary}" for fmt in FORMATS.values())
        said = f"{summaries}.  [default: {FORMAT.default}]"
        return click.option(*names, type=click.Choice(tuple(FORMATS)), help=said)
    return click.option(
        *names, type=option.kind, multiple=option.multiple, metavar=option.metavar, help=option.help_text()
    )


def _each_declared(options: tuple[Option[Any], ...]) -> Callable[[F], F]:
    """``_declared`` of each of ``options``, listed by ``--help`` in that order."""

    def add(f: F) -> F:
        for option in reversed(options):
            f = _declared(option)(f)
        return f

    return add


def _entrants(
    bots: tuple[str, ...], manifest: Path | None, challengers: tuple[str, ...] = ()
) -> tuple[tuple[EntrantInfo, ...] | None, list[str], tuple[str, ...]]:
    """The entrants (None when none is given), a line per name that had to change (``name_entrants``), and the
    names of the challengers among them."""
    from referee.runner import BotSpecError, parse_bot_spec
    from referee.runner.safe_text import visible
    from referee.tournament import EntrantInfo, ManifestError, bot_files, load_manifest_entries, name_entrants

    specs = []
    marked: list[bool] = []
    try:  # a folder stands for the bots in it (bot_files)
        given = [f for b in bots for f in (bot_files(Path(b)) if Path(b).is_dir() else [b])]
    except BotSpecError as e:
        _fail("run", str(e))
    for bot, challenger in [(b, False) for b in given] + [(c, True) for c in challengers]:
        try:
            specs.append(parse_bot_spec(bot))
            marked.append(challenger)
        except BotSpecError as e:
            _fail("run", f"--challenger {bot}: {e}" if challenger else str(e))
    if manifest is not None:
        try:
            entries = load_manifest_entries(manifest)
        except ManifestError as e:
            _fail("run", str(e))
        specs.extend(spec for spec, _ in entries)
        marked.extend(flag for _, flag in entries)
    if not specs:
        return None, [], ()
    named, notes = name_entrants(specs)
    chosen = tuple(s.name for s, flag in zip(named, marked, strict=True) if flag)
    lines = [f"referee run: {visible(note)}" for note in notes]
    return tuple(EntrantInfo.from_spec(s) for s in named), lines, chosen


@click.command("run")
@click.argument("bots", nargs=-1, metavar="BOT...")
@click.option(
    "--manifest",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Entrants from a bots.toml file: one [[bot]] table each, with command and optional name, cwd, env.",
)
@_each_declared((TABLE_SIZE, REPEATS))
@click.option("--jobs", "-j", type=int, help="Tables played at the same time.  [default: number of cores]")
@_declared(SEED)
@click.option(
    "--deal-secret",
    type=click.Path(path_type=Path, dir_okay=False),
    help="File holding the deal secret in hex (e.g. revealed by an earlier run) to deal the same cards again.  "
    "[default: a new random secret; only its SHA-256 is shown until the last game]",
)
@move_time_option(stored=True)
@startup_time_option(stored=True)
@time_bank_option
@sandbox_option(stored=True)
@clock_option(stored=True)
@results_folder_options("tournament", "tournament")
@click.option("--fresh-bots", is_flag=True, help="Start a new bot process for every game (slower).")
@logs_option
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Progress as JSON events on stdout, one object a line (start, progress, race_round, worker_lost, stop, "
    "standings); everything else goes to stderr.",
)
@click.option(
    "--lane-processes",
    is_flag=True,
    help="Play each of the --jobs tables in a worker process of its own, so that the referee's own work uses "
    "several cores (for machines with cores to spare; more CPU in all).",
)
@rules_option
@limit_option
@_each_declared((FORMAT, MAX_GAMES, *format_options()))
@click.option(
    "--cluster",
    metavar="ADDRESS",
    help="Play the tables on a Dask cluster: a scheduler address (tcp://host:8786) or local:N (N worker processes "
    "here). Needs 'referee[cluster]'; see docs/cluster.md.",
)
def run_cmd(**options: Any) -> None:
    """Run a tournament between BOT files (bots/*.py, bot.js, executables) or command lines.

    Every table plays one deal in every seat rotation (duplicate format). By default (--format round-robin) every
    combination of --table-size entrants meets, --games times with fresh deals; large fields use --format
    balanced or race (see docs/statistics.md). Results go to an SQLite database in the results folder, with game logs in
    games/ (compressed: zstdcat reads them; see --logs), bot stderr in bots/ and standings.csv/json. Ctrl-C stops
    cleanly; run again with --resume FOLDER (or the same --out) to continue: finished games are kept and not replayed.

    The Python sample bots take --noise P, a share P of random legal moves: "sample_bots/greedy.py --noise 0.2"
    (as a BOT in quotes, or a manifest command) is a weaker copy, so copies with different P make a field of known
    order (examples/race/make_field.py writes one).
    """
    run(RunOptions.of(options))


def run(given: RunOptions, executor: Executor | None = None) -> None:
    """Run the tournament ``given`` asks for, as ``referee run`` does (``ladder final`` builds its own options);
    every problem is one line and an exit. ``executor``: play on it instead of the one the options make (the tests'
    in-process fakes)."""
    # The results folder's lock is held until the run ends; a Ctrl-C outside the games (they stop
    # cleanly on their own) leaves nothing half-written.
    with stops_cleanly("run"), ResultsFolder("run") as held:
        with collector.loading():  # most of the run's modules load here
            plan = _resolve(held, given)
            console = _console(stderr=given.as_json)
        if executor is not None:
            plan = replace(plan, executor=executor)
        played = _play(plan, console, json_events=given.as_json)
        _present(plan, played, console)


def _storage_failed(directory: Path, e: BaseException) -> NoReturn:
    storage_failed(directory, e, "run")


@dataclass(frozen=True)
class RunOptions:
    """The options of ``referee run`` as given (None: not given)."""

    bots: tuple[str, ...]
    manifest: Path | None
    jobs: int | None
    deal_secret: Path | None
    move_time: float | None
    startup_time: float | None
    time_bank: float | None
    sandbox: SandboxMode | None
    clock: ClockMode | None
    out: Path | None
    resume: Path | None
    fresh_bots: bool
    cluster: str | None
    rules_file: Path | None
    limits: dict[str, int | None]
    lane_processes: bool = False
    #: The options made from their declarations (``DECLARED``) by name; a repeatable one not given is ().
    declared: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def of(cls, options: dict[str, Any]) -> RunOptions:
        """The options click parsed (keyword → value)."""
        declared = {o.name: options.pop(o.name) for o in DECLARED}
        return cls(**options, declared=declared)

    @property
    def challengers(self) -> tuple[str, ...]:
        """The ``--challenger`` BOTs."""
        return tuple(self.declared.get(CHALLENGERS.name) or ())

    logs: str = "full"
    as_json: bool = False


@dataclass(frozen=True)
class Plan:
    """A run settled by ``_resolve``: where, what, with which deal secret, played by which executor."""

    directory: Path
    params: TournamentParams
    secret: DealSecret
    resumed: bool
    executor: Executor
    #: Lines to say once the run is sure to start (entrant names that had to change).
    naming: list[str]
    #: How much of each game its log keeps (--logs).
    logs: str = "full"
    #: The secret came from --deal-secret (stored with the tournament: verify-deals reports it).
    given_secret: bool = False


def _resolve(held: ResultsFolder, given: RunOptions) -> Plan:
    """Check the options, read the tournament the results folder holds (if any), settle the parameters and the
    deal secret; every problem is one line and an exit (``_fail``). Takes the folder's lock when it exists."""
    from referee.engine import RulesetError
    from referee.runner import BotSpecError, ConfigError, check_results_hidden
    from referee.tournament import (
        DealSecret,
        DealSecretError,
        ParamsError,
        ScheduleError,
        check_format,
        planned_games,
        resolve_params,
    )

    directory = results_directory("run", given.out, given.resume, "tournament")
    executor = _executor(given)
    entrants, naming, chosen = _entrants(given.bots, given.manifest, given.challengers)
    requested = _requested(given, entrants, chosen)
    if directory.exists():
        held.lock(directory)
    stored, secret = _stored(directory)
    try:
        from_file = DealSecret.from_file(given.deal_secret) if given.deal_secret is not None else None
    except DealSecretError as e:
        _fail("run", str(e))
    if secret is not None and from_file is not None and from_file != secret:
        not_its = f"--deal-secret {given.deal_secret} is not the secret of its tournament"
        _fail("run", f"results folder {directory}: {not_its}")
    try:
        params = resolve_params(stored, requested)
        check_format(params)
        check_results_hidden(params.bot_specs().values(), params.runner_config(results=directory), nested=True)
        params.check_line_length([f"g{planned_games(params) or params.max_games:06d}"])  # the longest game id
    except (ParamsError, ScheduleError, ConfigError, RulesetError, BotSpecError) as e:
        refuse("run", directory, stored is not None, str(e))
    check_unchanged("run", directory, params.entrants if stored is not None else (), "entrant ")
    held.lock(directory)
    if from_file is not None and stored is None:
        naming.append(
            f"referee run: note: the deals come from the secret in {given.deal_secret}, not from one drawn now: "
            "whoever knows it knows every deal (verify-deals will say so)"
        )
        if (weak := from_file.weakness()) is not None:
            naming.append(f"referee run: note: that secret is not random ({weak}): anyone may guess every deal")
    secret = secret or from_file or DealSecret.new()
    return Plan(directory, params, secret, stored is not None, executor, naming, given.logs, from_file is not None)


def _executor(given: RunOptions) -> Executor:
    """The lanes of this machine (--jobs, --fresh-bots) or the Dask cluster of --cluster (whose modules load only
    then)."""
    if given.jobs is not None and given.jobs < 1:
        _fail("run", f"--jobs must be at least 1, got {given.jobs}")
    if given.cluster is None:
        from referee.tournament import LocalExecutor

        jobs = given.jobs or len(os.sched_getaffinity(0))
        return LocalExecutor(jobs, fresh=given.fresh_bots, workers=given.lane_processes)
    from referee.tournament import ClusterError, DaskExecutor, check_cluster_address

    try:
        check_cluster_address(given.cluster)
    except ClusterError as e:
        _fail("run", str(e))
    if given.jobs is not None:
        _fail("run", "--jobs does not apply with --cluster: a Dask worker plays --nthreads tables at once")
    if given.fresh_bots:
        _fail("run", "--fresh-bots is not available with --cluster")
    if given.lane_processes:
        _fail("run", "--lane-processes does not apply with --cluster: each Dask worker is a process of its own")
    return DaskExecutor(given.cluster)


def _requested(given: RunOptions, entrants: tuple[EntrantInfo, ...] | None, chosen: tuple[str, ...]) -> Requested:
    """What the options ask of the tournament (its entrants and the names of the challengers among them given)."""
    from referee.tournament import Requested

    declared = {name: None if value == () else value for name, value in given.declared.items()}
    declared[CHALLENGERS.name] = chosen or None  # the --challenger BOTs, as the entrants they became
    return Requested(
        entrants,
        **declared,
        move_time=given.move_time,
        startup_time=given.startup_time,
        time_bank=given.time_bank,
        sandbox=given.sandbox,
        clock=given.clock,
        ruleset=load_ruleset(given.rules_file).to_dict() if given.rules_file is not None else None,
        limits=given.limits or None,
        # No bot reads the manifest.
        concealed=(str(given.manifest.resolve()),) if given.manifest is not None else None,
    )


def _stored(directory: Path) -> tuple[TournamentParams | None, DealSecret | None]:
    """The parameters and the deal secret of the tournament in ``directory``; (None, None) when it holds none."""
    from referee.tournament import DB_NAME, ResultsStore, StoreError

    if not (directory / DB_NAME).exists():
        return None, None
    try:
        with ResultsStore(directory, create=False) as existing:
            stored = existing.params()
            if existing.meta().get("compare") is not None:
                _fail("run", f"{directory} holds a comparison: continue it with referee compare --resume {directory}")
            return stored, existing.deal_secret() if stored is not None else None
    except StoreError as e:
        _fail("run", str(e), 1)


@dataclass(frozen=True)
class Played:
    """What a run leaves to show: its outcome and, read back from the store, the standings, each entrant's first
    fault and the deal commitment (and secret, once revealed)."""

    outcome: RunOutcome
    standings: Standings
    faults: dict[str, tuple[str, str, str]]
    deals: dict[str, str | None]
    #: The count behind ``standings``, with the ratings' history, handed to the report.
    tally: Tally
    #: The workers lost in every session of the run (``lost_workers``).
    lost: list[dict[str, object]]


def _play(plan: Plan, console: Console, *, json_events: bool = False) -> Played:
    """Open the store (a new tournament: initialise it), say what starts, run the tournament; a failure of the
    cluster, of a bot's sandbox or of the disk is one line (every finished game is saved). ``json_events``: the
    progress as JSON events on stdout (``JsonProgress``), the standings as the last one."""
    with collector.loading():  # the live display's modules
        from referee.contest.workers_lost import lost_workers
        from referee.runner import BotSpecError
        from referee.runner.logfile import LogLevel
        from referee.tournament import (
            ClusterError,
            LaneError,
            LiveProgress,
            ResultsStore,
            StoreError,
            run_tournament,
            tally_from_store,
        )
        from referee.tournament.live import JsonProgress

    directory = plan.directory
    try:
        store = ResultsStore(directory)
    except StoreError as e:
        _fail("run", str(e), 1)
    with store:
        if not plan.resumed:
            try:
                store.initialise(plan.params, plan.secret, given=plan.given_secret)
            except StoreError as e:
                _storage_failed(directory, e)
        _announce(plan, console)
        progress = JsonProgress(sys.stdout) if json_events else LiveProgress(console)
        try:
            outcome = run_tournament(store, plan.params, plan.executor, progress=progress, logs=LogLevel(plan.logs))
        except ClusterError as e:
            _fail("run", f"{e}; finished games are saved: fix it and continue with referee run --resume {directory}", 1)
        except LaneError as e:  # a lane's worker process died (killed, out of memory)
            _fail("run", f"{e}; finished games are saved: continue with referee run --resume {directory}", 1)
        except BotSpecError as e:  # e.g. --sandbox bwrap without bubblewrap: found when the first bot starts
            _fail("run", f"{e}; finished games are saved: continue with referee run --resume {directory}")
        except (OSError, StoreError) as e:
            _storage_failed(directory, e)
        tally = tally_from_store(store, history=True)
        played = Played(outcome, tally.standings(), store.first_faults(), store.deals(), tally, lost_workers(store))
        if isinstance(progress, JsonProgress):
            progress.event("standings", **played.standings.to_dict(), deals=played.deals, workers_lost=played.lost)
        return played


def _announce(plan: Plan, console: Console) -> None:
    """The lines before the first game: renamed entrants (stderr), what is played where, the deal commitment."""
    from referee.runner.safe_text import literal

    for line in plan.naming:  # once the run is sure to start: a refused run says one line, its error
        click.echo(line, err=True)
    verb = "Continuing" if plan.resumed else "Starting"
    console.print(literal(f"{verb} {_describe(plan.params)} in {plan.directory}: seed {plan.params.seed}"))
    console.print(
        f"Deal commitment (SHA-256 of the deal secret, revealed when the last game ends): {plan.secret.commitment}",
        soft_wrap=True,
    )


def _present(plan: Plan, played: Played, console: Console) -> None:
    """The standings, each faulty entrant's first fault, how a race ended; standings.csv/json and the report are
    written; then the deal secret once revealed, or the resume line of an interrupted run (exit 130)."""
    from rich.text import Text

    from referee.cli.report_cmd import report_after_run
    from referee.runner.safe_text import literal

    directory, outcome, standings = plan.directory, played.outcome, played.standings
    _print_standings(console, standings)
    for entry in standings.entrants:
        if entry.name not in played.faults:
            continue
        game_id, kind, detail = played.faults[entry.name]
        console.print(
            Text.assemble(
                literal(entry.name, "yellow"),
                literal(
                    f": {sum(entry.forfeits.values())} forfeit(s); first in {game_id}: {kind}: {detail} "
                    f"(its stderr: {directory / 'bots' / entry.name}.*.log)"
                ),
            )
        )
    if standings.decided is not None:  # what the format decided: how a race ended, a gauntlet's verdicts
        for line in standings.decided.lines():
            console.print(literal(line))
    if played.lost:
        now = len(outcome.lost)
        tables = sum(len(t) for w in played.lost if isinstance(t := w.get("tables"), list))
        session = f", {now} in this session" if now != len(played.lost) else ""
        console.print(
            f"Workers lost during the run: {len(played.lost)}{session}; the {tables} table(s) they were playing "
            "were played again by the others, each game stored once",
            highlight=False,
        )
    try:
        csv_path, json_path = _write_standings(directory, standings, played.deals, played.lost)
    except OSError as e:
        _storage_failed(directory, e)
    console.print(literal(f"Standings written to {csv_path} and {json_path}"))
    if played.deals["secret"] is not None:
        console.print(
            literal(f"Deal secret (revealed; check every deal with: referee verify-deals {directory}): ")
            + literal(str(played.deals["secret"])),
            soft_wrap=True,
        )
    if played.deals.get("chain_head") is not None:
        head = str(played.deals["chain_head"])
        console.print(
            literal(f"Results chain head (publish it; check the results with: referee audit {directory} --head HEAD): ")
            + literal(head),
            soft_wrap=True,
        )
    report_after_run(directory, played.tally, err=console.stderr)
    tidy(directory)
    if outcome.interrupted:
        done = outcome.done_before + outcome.played
        of = "games of the race" if format_of(plan.params).adaptive else f"of {outcome.total} games"  # a race: no total
        resume_hint("run", f"{done} {of} (finished games are saved)", directory)


def _describe(params: TournamentParams) -> str:
    """One line: the format, the entrants and the size of the schedule."""
    n, k = len(params.entrants), params.table_size
    names = ", ".join(params.names) if n <= 12 else f"{', '.join(params.names[:10])}, ..."
    return format_of(params).describe(params, f"{n} entrants ({names}), tables of {k}")


@click.command("standings")
@click.argument("directory", type=click.Path(path_type=Path, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the standings as JSON (as in standings.json).")
def standings_cmd(directory: Path, as_json: bool) -> None:
    """Print the standings of the tournament in DIRECTORY again, from its results database."""
    from referee.contest.workers_lost import lost_workers
    from referee.tournament import ResultsStore, StoreError, standings_from_store

    try:
        with ResultsStore(directory, read_only=True) as store, store.snapshot():
            store.tournament()
            standings = standings_from_store(store)
            deals = store.deals()
            lost = lost_workers(store)
    except StoreError as e:
        _fail("standings", str(e))
    data: dict[str, Any] = {**standings.to_dict(), "deals": deals, "workers_lost": lost}
    if as_json:
        click.echo(json.dumps(data, indent=2))
    else:
        _print_standings(_console(), standings)
