"""``referee run`` (a round-robin tournament) and ``referee standings`` (its standings, again)."""

from __future__ import annotations

import json
import os
import sqlite3
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from referee.cli.interrupt import resume_hint, stops_cleanly
from referee.cli.options import (
    clock_option,
    limit_option,
    load_ruleset,
    move_time_option,
    rules_option,
    sandbox_option,
    startup_time_option,
    time_bank_option,
)
from referee.cli.results_folder import ResultsFolder, storage_failed
from referee.cli.results_folder import fail as _fail

if TYPE_CHECKING:
    from rich.console import Console

    from referee.tournament import EntrantInfo, Standings, TournamentParams

#: The schedule formats (``referee.tournament.FORMATS``; a test checks they agree).
FORMATS = ("round-robin", "balanced", "gauntlet", "race")

#: Largest number of entrants for which the head-to-head matrix is printed (it is always in standings.json).
H2H_PRINT_MAX = 10


def _write_standings(directory: Path, standings: Standings, deals: dict[str, str | None]) -> tuple[Path, Path]:
    csv_path, json_path = directory / "standings.csv", directory / "standings.json"
    csv_path.write_text(standings.to_csv(), encoding="utf-8")
    data = {**standings.to_dict(), "deals": deals}
    json_path.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return csv_path, json_path


def _console() -> Console:
    """The console on stdout; not a terminal (a pipe, a file, CI): wide enough for the tables anyway."""
    from rich.console import Console

    console = Console()
    return console if console.is_terminal else Console(width=max(console.width, 140))


def _print_standings(console: Console, standings: Standings) -> None:
    from referee.tournament import head_to_head_table, standings_table

    console.print(standings_table(standings))
    if 2 < len(standings.entrants) <= H2H_PRINT_MAX:
        console.print(head_to_head_table(standings))


def _entrants(
    bots: tuple[str, ...], manifest: Path | None, challengers: tuple[str, ...] = ()
) -> tuple[tuple[EntrantInfo, ...] | None, list[str], tuple[str, ...]]:
    """The entrants (None when none is given), a line per name that had to change (``name_entrants``), and the
    names of the challengers among them."""
    from referee.runner import BotSpecError, parse_bot_spec
    from referee.runner.safe_text import visible
    from referee.tournament import EntrantInfo, ManifestError, load_manifest_entries, name_entrants

    specs = []
    marked: list[bool] = []
    for bot, challenger in [(b, False) for b in bots] + [(c, True) for c in challengers]:
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
@click.option("--table-size", "-k", type=int, help="Players per game, 2 to 4.  [default: min(4, entrants)]")
@click.option(
    "--games", "-n", "repeats", type=int, help="Deals per table; each is played in every seat rotation.  [default: 1]"
)
@click.option("--jobs", "-j", type=int, help="Tables played at the same time.  [default: number of cores]")
@click.option(
    "--seed", type=int, help="Tournament seed: with the deal secret, fixes every deal.  [default: random, printed]"
)
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
@click.option(
    "--out",
    "-o",
    type=click.Path(path_type=Path, file_okay=False),
    help="Results folder; an existing one is continued.  [default: tournament/<time>]",
)
@click.option(
    "--resume", type=click.Path(path_type=Path, file_okay=False), help="Continue the tournament in this folder."
)
@click.option("--fresh-bots", is_flag=True, help="Start a new bot process for every game (slower).")
@rules_option
@limit_option
@click.option(
    "--format",
    "format_",
    type=click.Choice(FORMATS),
    help="round-robin: every combination of entrants; balanced: every entrant at --tables-per-entrant tables, pairs "
    "meeting evenly; gauntlet: --challenger entrants play the field, the field never meets itself; race: adaptive, "
    "stops when the order of the --top entrants is settled at --confidence.  [default: round-robin]",
)
@click.option("--max-games", type=int, help="The most games any format may play.  [default: 100,000]")
@click.option("--tables-per-entrant", type=int, help="balanced: the tables (deals) each entrant sits at.")
@click.option(
    "--challenger",
    "challengers",
    multiple=True,
    metavar="BOT",
    help="gauntlet: a bot that plays the field (repeatable; or challenger = true in bots.toml).",
)
@click.option("--top", type=int, help="race: how many places to settle.  [default: 3]")
@click.option("--confidence", type=float, help="race: the confidence the order must reach.  [default: 0.95]")
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
    games/, bot stderr in bots/ and standings.csv/json. Ctrl-C stops cleanly; run again with --resume FOLDER
    (or the same --out) to continue: finished games are kept and not replayed.
    """
    # The results folder's lock is held until the run ends; a Ctrl-C outside the games (they stop
    # cleanly on their own) leaves nothing half-written.
    with stops_cleanly("run"), ResultsFolder("run") as held:
        _run(held=held, **options)


def _storage_failed(directory: Path, e: BaseException) -> NoReturn:
    storage_failed(directory, e, "run")


def _run(
    held: ResultsFolder,
    bots: tuple[str, ...],
    manifest: Path | None,
    table_size: int | None,
    repeats: int | None,
    jobs: int | None,
    seed: int | None,
    deal_secret: Path | None,
    move_time: float | None,
    startup_time: float | None,
    time_bank: float | None,
    sandbox: str | None,
    clock: str | None,
    out: Path | None,
    resume: Path | None,
    fresh_bots: bool,
    cluster: str | None,
    rules_file: Path | None,
    limits: dict[str, int | None],
    format_: str | None = None,
    max_games: int | None = None,
    tables_per_entrant: int | None = None,
    challengers: tuple[str, ...] = (),
    top: int | None = None,
    confidence: float | None = None,
) -> None:
    from rich.text import Text

    from referee.cli.report_cmd import report_after_run
    from referee.engine import RulesetError
    from referee.runner import BotSpecError, ConfigError, check_results_hidden
    from referee.runner.safe_text import literal
    from referee.tournament import (
        DB_NAME,
        ClusterError,
        DaskExecutor,
        DealSecret,
        DealSecretError,
        Executor,
        LiveProgress,
        LocalExecutor,
        ParamsError,
        Requested,
        ResultsStore,
        ScheduleError,
        StoreError,
        check_cluster_address,
        check_format,
        planned_games,
        resolve_params,
        run_tournament,
        standings_from_store,
    )

    if resume is not None and out is not None and resume != out:
        _fail("run", "give either --out or --resume (both name the results folder)")
    if jobs is not None and jobs < 1:
        _fail("run", f"--jobs must be at least 1, got {jobs}")
    if cluster is not None:
        try:
            check_cluster_address(cluster)
        except ClusterError as e:
            _fail("run", str(e))
        if jobs is not None:
            _fail("run", "--jobs does not apply with --cluster: a Dask worker plays --nthreads tables at once")
        if fresh_bots:
            _fail("run", "--fresh-bots is not available with --cluster")
    directory = resume or out
    if resume is not None and not (resume / DB_NAME).exists():
        _fail("run", f"--resume {resume}: no tournament there (results.sqlite not found)")
    if directory is None:
        directory = Path("tournament") / datetime.now(UTC).strftime("%Y%m%d-%H%M%S")
    entrants, naming, chosen = _entrants(bots, manifest, challengers)
    ruleset = load_ruleset(rules_file).to_dict() if rules_file is not None else None
    requested = Requested(
        entrants,
        table_size,
        repeats,
        seed,
        move_time,
        startup_time,
        time_bank,
        sandbox,
        ruleset,
        limits or None,
        clock=clock,
        format=format_,
        max_games=max_games,
        tables_per_entrant=tables_per_entrant,
        challengers=chosen or None,
        top=top,
        confidence=confidence,
    )
    if manifest is not None:
        requested = replace(requested, concealed=(str(manifest.resolve()),))  # no bot reads the manifest
    console = _console()
    stored = None
    secret = None
    if directory.exists():
        held.lock(directory)
    if (directory / DB_NAME).exists():
        try:
            with ResultsStore(directory, create=False) as existing:
                stored = existing.params()
                if existing.meta().get("compare") is not None:
                    _fail(
                        "run", f"{directory} holds a comparison: continue it with referee compare --resume {directory}"
                    )
                if stored is not None:
                    secret = existing.deal_secret()
        except StoreError as e:
            _fail("run", str(e), 1)
    try:
        given = DealSecret.from_file(deal_secret) if deal_secret is not None else None
    except DealSecretError as e:
        _fail("run", str(e))
    if secret is not None and given is not None and given != secret:
        _fail("run", f"results folder {directory}: --deal-secret {deal_secret} is not the secret of its tournament")
    secret = secret or given or DealSecret.new()
    try:
        params = resolve_params(stored, requested)
        check_format(params)
        check_results_hidden(params.bot_specs().values(), params.runner_config(results=directory))
        params.check_line_length([f"g{planned_games(params) or params.max_games:06d}"])  # the longest game id
    except (ParamsError, ScheduleError, ConfigError, RulesetError, BotSpecError) as e:
        where = f"results folder {directory}: " if stored is not None else ""
        hint = "; use the same options, or another --out" if stored is not None else ""
        _fail("run", f"{where}{e}{hint}")
    for entrant in params.entrants if stored is not None else ():
        if (what := entrant.changed()) is not None:
            _fail(
                "run",
                f"results folder {directory}: entrant {entrant.name} is not the program that played its games so far "
                f"({what}); put its files back as they were, or start a new tournament with another --out",
            )
    held.lock(directory)
    try:
        store = ResultsStore(directory)
    except StoreError as e:
        _fail("run", str(e), 1)
    with store:
        if stored is None:
            try:
                store.initialise(params, secret)
            except sqlite3.Error as e:
                _storage_failed(directory, e)
        verb = "Continuing" if stored is not None else "Starting"
        for line in naming:  # once the run is sure to start: a refused run says one line, its error
            click.echo(line, err=True)
        console.print(literal(f"{verb} {_describe(params)} in {directory}: seed {params.seed}"))
        console.print(
            f"Deal commitment (SHA-256 of the deal secret, revealed when the last game ends): {secret.commitment}",
            soft_wrap=True,
        )
        try:
            executor: Executor = (
                DaskExecutor(cluster)
                if cluster is not None
                else LocalExecutor(jobs or len(os.sched_getaffinity(0)), fresh=fresh_bots)
            )
            outcome = run_tournament(store, params, executor, progress=LiveProgress(console))
        except ClusterError as e:
            _fail("run", f"{e}; finished games are saved: fix it and continue with referee run --resume {directory}", 1)
        except BotSpecError as e:  # e.g. --sandbox bwrap without bubblewrap: found when the first bot starts
            _fail("run", f"{e}; finished games are saved: continue with referee run --resume {directory}")
        except (OSError, sqlite3.Error) as e:
            _storage_failed(directory, e)
        standings = standings_from_store(store)
        faults = store.first_faults()
        deals = store.deals()
    _print_standings(console, standings)
    for entry in standings.entrants:
        if entry.name not in faults:
            continue
        game_id, kind, detail = faults[entry.name]
        console.print(
            Text.assemble(
                literal(entry.name, "yellow"),
                literal(
                    f": {sum(entry.forfeits.values())} forfeit(s); first in {game_id}: {kind}: {detail} "
                    f"(its stderr: {directory / 'bots' / entry.name}.*.log)"
                ),
            )
        )
    if outcome.race is not None and outcome.race.reason is not None:
        console.print(literal(f"Race: {outcome.race.reason}; {outcome.race.games:,} games used"))
    try:
        csv_path, json_path = _write_standings(directory, standings, deals)
    except OSError as e:
        _storage_failed(directory, e)
    console.print(literal(f"Standings written to {csv_path} and {json_path}"))
    if deals["secret"] is not None:
        console.print(
            literal(f"Deal secret (revealed; check every deal with: referee verify-deals {directory}): ")
            + literal(str(deals["secret"])),
            soft_wrap=True,
        )
    report_after_run(directory)
    if outcome.interrupted:
        done = outcome.done_before + outcome.played
        resume_hint("run", f"{done} of {outcome.total} games (finished games are saved)", directory)


def _describe(params: TournamentParams) -> str:
    """One line: the format, the entrants and the size of the schedule."""
    from referee.tournament import planned_games

    n, k = len(params.entrants), params.table_size
    names = ", ".join(params.names) if n <= 12 else f"{', '.join(params.names[:10])}, ..."
    what = f"{n} entrants ({names}), tables of {k}"
    if params.format == "race":
        return (
            f"race: {what}, until the order of the top {params.top} is settled at {params.confidence:.0%} "
            f"(at most {params.max_games:,} games)"
        )
    games = planned_games(params)
    if params.format == "balanced":
        return f"balanced tournament: {what}, {params.tables_per_entrant} tables per entrant, {games:,} games"
    if params.format == "gauntlet":
        return f"gauntlet: {what}, challengers {', '.join(params.challengers)}, {games:,} games"
    return f"tournament: {what}, {params.repeats} deal(s) per table, {games:,} games"


@click.command("standings")
@click.argument("directory", type=click.Path(path_type=Path, file_okay=False))
@click.option("--json", "as_json", is_flag=True, help="Print the standings as JSON (as in standings.json).")
def standings_cmd(directory: Path, as_json: bool) -> None:
    """Print the standings of the tournament in DIRECTORY again, from its results database."""
    from referee.tournament import ResultsStore, StoreError, standings_from_store

    try:
        with ResultsStore(directory, read_only=True) as store, store.snapshot():
            if store.params() is None:
                _fail("standings", f"{directory} holds no tournament (its database is empty)")
            standings = standings_from_store(store)
            deals = store.deals()
    except StoreError as e:
        _fail("standings", str(e))
    data: dict[str, Any] = {**standings.to_dict(), "deals": deals}
    if as_json:
        click.echo(json.dumps(data, indent=2))
    else:
        _print_standings(_console(), standings)
