"""``referee ladder``: a contest that stays open (init, add, submit, activate, retire, suspend, status, serve,
final).

Each subcommand opens the ladder folder through ``referee.ladder.Ladder`` (the same service the web server uses),
does one thing and prints it; a refusal is one line on stderr and exit status 2.
"""

from __future__ import annotations

import errno
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from referee.cli.interrupt import stops_cleanly
from referee.cli.ladder_final import FINAL_FORMATS, FINAL_OPTIONS
from referee.cli.results_folder import fail
from referee.cli.run_cmd import _each_declared

if TYPE_CHECKING:
    from referee.ladder import Ladder, Leaderboard

F = TypeVar("F", bound=Callable[..., Any])

#: ``referee.ladder.final.DEFAULT_MAX_GAMES`` (not imported here: the CLI loads the ladder only when it runs).
DEFAULT_FINAL_GAMES = 2_000

_DIR = click.argument("directory", metavar="DIR", type=click.Path(path_type=Path, file_okay=False))


@contextmanager
def _refusals(command: str) -> Iterator[None]:
    """A ``RefereeError`` (a ladder's refusal, a bad ladder.toml, a busy folder) becomes one line and status 2."""
    from referee.engine import RefereeError

    with stops_cleanly(f"ladder {command}"):
        try:
            yield
        except RefereeError as exc:
            fail(f"ladder {command}", str(exc))


#: The errors of a disk that is full or cannot be written: ``serve`` stops on them in one line.
_DISK_FULL = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EROFS, errno.EIO})


@contextmanager
def _opened(command: str, directory: Path) -> Iterator[Ladder]:
    from referee.ladder import Ladder

    with _refusals(command):
        ladder = Ladder.open(directory)
        try:
            yield ladder
        finally:
            ladder.close()


@click.group("ladder")
def ladder_group() -> None:
    """A contest that stays open: versioned submissions, a gate, matchmaking and live ratings (docs/ladder.md)."""


@ladder_group.command("init")
@_DIR
def init_cmd(directory: Path) -> None:
    """Make a ladder folder: a commented ladder.toml and an empty store; prints the organiser's admin token once."""
    from referee.ladder import Ladder

    with _refusals("init"):
        ladder, token = Ladder.init(directory)
        ladder.close()
    click.echo(f"ladder made in {ladder.layout.root}; edit {ladder.layout.config} to set its rules")
    click.echo(f"organiser (admin) token, shown once: {token}")


@ladder_group.command("add")
@_DIR
@click.argument("name")
def add_cmd(directory: Path, name: str) -> None:
    """Add an entrant NAME; prints its token once (give it to the entrant: it submits with it)."""
    with _opened("add", directory) as ladder:
        entrant, token = ladder.add_entrant(name)
    click.echo(f"entrant {entrant.name} added; its token, shown once: {token}")


@ladder_group.command("token")
@_DIR
@click.argument("name", required=False)
@click.option("--admin", is_flag=True, help="A new organiser token instead.")
def token_cmd(directory: Path, name: str | None, admin: bool) -> None:
    """Issue a new token for entrant NAME (or --admin); the old one stops working."""
    with _opened("token", directory) as ladder:
        if admin == (name is not None):
            fail("ladder token", "give an entrant NAME or --admin")
        token = ladder.new_admin_token() if admin else ladder.new_entrant_token(name or "")
    click.echo(f"new token, shown once: {token}")


@ladder_group.command("submit")
@click.argument("args", nargs=-1, metavar="DIR NAME PATH | --server URL --token-file F PATH")
@click.option(
    "--server",
    metavar="URL",
    help="Submit through the web API of a running `referee ladder serve` (from anywhere, e.g. a bot's CI) instead of "
    "into a ladder folder; then give PATH only.",
)
@click.option(
    "--token-file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="With --server: a file holding the entrant's token (the one `referee ladder add` printed).",
)
@click.option("--entrant", metavar="NAME", help="With --server and the organiser's token: the entrant to submit for.")
@click.option(
    "--wait",
    "wait_for",
    type=click.FloatRange(min=0, min_open=True),
    metavar="SECONDS",
    help="With --server: follow the version through its build, gate and placement until it is ranked (then say its "
    "place, rank interval, figure and page) or failed (exit status 1 when it is not ranked), for at most SECONDS.",
)
def submit_cmd(
    args: tuple[str, ...], server: str | None, token_file: Path | None, entrant: str | None, wait_for: float | None
) -> None:
    """Submit a new version: a bot file, a folder with a bot.toml, or a .tar.gz/.zip holding one.

    Into a ladder folder: DIR NAME PATH. Over the web: --server URL --token-file F PATH (a folder is packed into
    a .tar.gz first). The bot is copied into the ladder (later edits of PATH change nothing); `serve` builds it,
    runs its gate and its placement, then ranks it.
    """
    if server is not None:
        _submit_remote(args, server, token_file, entrant, wait_for)
        return
    if len(args) != 3 or token_file or entrant or wait_for:
        raise click.UsageError("give DIR NAME PATH, or --server URL --token-file F PATH")
    directory, name, bot = Path(args[0]), args[1], Path(args[2])
    with _opened("submit", directory) as ladder:
        version = ladder.submit(name, bot)
    click.echo(
        f"{version.key} submitted ({version.files} files, {version.size:,} bytes, digest {version.digest[:16]}); "
        "it waits for its gate"
    )


def _submit_remote(
    args: tuple[str, ...], server: str, token_file: Path | None, entrant: str | None, wait_for: float | None
) -> None:
    """``submit --server``: the version goes through the web API (``referee.web.client``)."""
    if len(args) != 1 or token_file is None:
        raise click.UsageError("with --server give --token-file F and one PATH")
    from referee.web.client import placed, read_token, submit, wait

    with _refusals("submit"):
        token = read_token(token_file)
        done = submit(server, token, Path(args[0]), entrant=entrant)
        click.echo(f"{done.key} submitted to {server}: {done.state}")
        if wait_for is None:
            return
        final = wait(server, token, done, timeout=wait_for, on_state=lambda state: click.echo(f"{done.key}: {state}"))
        if final["state"] != "ranked":
            why = final.get("reason") or (final.get("gate") or {}).get("reasons") or final["state"]
            fail(
                "ladder submit", f"{done.key} is {final['state']}: {why if isinstance(why, str) else '; '.join(why)}", 1
            )
        click.echo(placed(server, token, done.key))


@ladder_group.command("retire")
@_DIR
@click.argument("name")
@click.option("--version", "number", type=int, help="Retire this version only (default: the entrant and all).")
def retire_cmd(directory: Path, name: str, number: int | None) -> None:
    """Retire an entrant (or one version): it stops playing; its games and last rating are kept, frozen."""
    with _opened("retire", directory) as ladder:
        retired = ladder.retire(name, number)
    click.echo(f"retired: {', '.join(v.key for v in retired) or 'no active version'}")


@ladder_group.command("activate")
@click.argument("args", nargs=-1, metavar="DIR NAME VERSION | --server URL --token-file F NAME VERSION")
@click.option("--server", metavar="URL", help="Through the web API of a running `referee ladder serve` (authors).")
@click.option(
    "--token-file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="With --server: a file holding the entrant's token (or the organiser's).",
)
def activate_cmd(args: tuple[str, ...], server: str | None, token_file: Path | None) -> None:
    """Make an earlier version that passed its gate active again (a rollback): it plays again where it left off,
    its blocks and rating as they were; the entrant's version it replaces is retired, as a newer one retires it.

    In a ladder folder (the organiser): DIR NAME VERSION. Over the web (the author, with its token): --server URL
    --token-file F NAME VERSION.
    """
    if server is not None:
        if len(args) != 2 or token_file is None:
            raise click.UsageError("with --server give --token-file F, NAME and VERSION")
        from referee.web.client import activate, read_token

        name, number = args[0], _version_number(args[1])
        with _refusals("activate"):
            body = activate(server, read_token(token_file), name, number)
        click.echo(f"{body['key']} is {body['state']} again on {server}")
        return
    if len(args) != 3 or token_file:
        raise click.UsageError("give DIR NAME VERSION, or --server URL --token-file F NAME VERSION")
    from referee.ladder.rollback import activate as activate_here

    with _opened("activate", Path(args[0])) as ladder:
        done = activate_here(ladder, args[1], _version_number(args[2]), organiser=True)
    retired = ", ".join(v.key for v in done.retired)
    click.echo(f"{done.version.key} is {done.version.state.value} again" + (f"; retired: {retired}" if retired else ""))


def _version_number(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise click.UsageError(f"VERSION is a version number (1, 2, ...), not {text!r}")
    return int(text)


@ladder_group.command("suspend")
@_DIR
@click.argument("name")
@click.option("--reason", default="", help="Shown to the entrant.")
@click.option("--lift", is_flag=True, help="Reinstate the entrant instead.")
def suspend_cmd(directory: Path, name: str, reason: str, lift: bool) -> None:
    """Suspend an entrant (none of its versions plays until --lift), with a reason shown to it."""
    with _opened("suspend", directory) as ladder:
        entrant = ladder.reinstate(name) if lift else ladder.suspend(name, reason)
    click.echo(f"{entrant.name}: {entrant.state.value}" + (f" ({entrant.reason})" if entrant.reason else ""))


@ladder_group.command("serve")
@_DIR
@click.option("--jobs", type=int, help="Tables played at once.  [default: [serve] jobs of ladder.toml]")
@click.option(
    "--listen",
    default="127.0.0.1:8023",
    show_default=True,
    metavar="HOST:PORT",
    help="Serve the ladder's pages and API here (docs/web.md); put a TLS proxy in front before opening it.",
)
@click.option("--no-web", is_flag=True, help="Run the ladder without its web server.")
@click.option(
    "--lane-processes",
    is_flag=True,
    help="Play each lane's blocks in a worker process of its own (every core; docs/cluster.md).",
)
@click.option(
    "--cluster",
    metavar="ADDRESS",
    help="Play the blocks on a Dask cluster: a scheduler's address, or local:N (docs/cluster.md).",
)
@click.option(
    "--behind-proxy",
    is_flag=True,
    help="The web server sits behind one reverse proxy that terminates TLS: client addresses from "
    "X-Forwarded-For, the sign-in cookie Secure.",
)
def serve_cmd(
    directory: Path,
    jobs: int | None,
    listen: str,
    no_web: bool,
    lane_processes: bool,
    cluster: str | None,
    behind_proxy: bool,
) -> None:
    """Run the ladder until Ctrl-C or SIGTERM: gate new versions, play blocks, keep the ratings current, and
    serve its pages and API (one process: the web server, the scheduler and the lanes; with --lane-processes each
    lane in a worker process of its own, with --cluster the blocks on a Dask cluster, versions shipped by digest).

    Submissions, retirements and suspensions made meanwhile (from the shell or the web) take effect at the next
    block. A stop abandons the blocks in play (they are played again at the next start) and closes every bot.
    """
    from referee.ladder.serve import ServeOptions, serve
    from referee.runner import Stopped, run_until_stopped

    if jobs is not None and jobs < 1:
        fail("ladder serve", "--jobs must be at least 1")

    def say(line: str) -> None:
        # Each line stamped with the UTC second it was said, so an organiser can line serve's output up with
        # the pages, the store and the bots' stderr.
        stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        click.echo(f"{stamp} ladder: {line}")

    options = ServeOptions(jobs=jobs, announce=say, lanes=_lanes_of(lane_processes, cluster))
    with _refusals("serve"):
        if no_web:
            work: Callable[[], Any] = lambda: serve(directory, options)  # noqa: E731
        else:
            from referee.web import WebSettings, parse_listen, serve_with_web

            parse_listen(listen)  # a bad --listen: one line before anything starts

            class Listening:
                @staticmethod
                def started(url: str) -> None:
                    say(f"pages and API on {url} (docs/web.md)")

            settings = WebSettings(behind_proxy=behind_proxy)
            work = partial(serve_with_web, directory, options, listen, settings=settings, task_status=Listening())

        from referee.ladder import LadderStoreError
        from referee.ladder.errors import ClusterGone

        try:  # a full disk, or a Dask scheduler gone, met by every lane: one error (ClusterGone: one line, status 2)
            run_until_stopped(work, storage=(OSError, LadderStoreError, ClusterGone))
        except (OSError, LadderStoreError) as exc:
            if isinstance(exc, OSError) and exc.errno not in _DISK_FULL:
                raise
            if isinstance(exc, OSError):
                reason = f"cannot write to {directory}: {exc.strerror}"
            else:  # the store's own advice would repeat the one below
                reason = f"cannot write the ladder database in {directory}: {exc.reason}"
            fail("ladder serve", f"{reason}; every finished block is stored, the blocks in play are played again "
                 "at the next start: make room (or make the folder writable) and start it again", 1)  # fmt: skip
        except Stopped:
            click.echo(
                "referee ladder serve: stopped; every finished block is stored, the blocks in play are played again "
                "at the next start, every bot is closed",
                err=True,
            )
            raise SystemExit(130) from None


def _lanes_of(lane_processes: bool, cluster: str | None) -> Any:
    """Where ``serve``'s lanes play (``referee.ladder.lanes``): None for in the serve process."""
    if lane_processes and cluster:
        fail("ladder serve", "--lane-processes and --cluster exclude each other: give one")
    if lane_processes:
        from referee.ladder.lanes_process import ProcessLanes

        return ProcessLanes
    if cluster:
        from referee.tournament.cluster import check_cluster_address
        from referee.tournament.errors import ClusterError

        try:
            check_cluster_address(cluster)
        except ClusterError as e:
            fail("ladder serve", str(e))
        from referee.ladder.lanes_dask import DaskLanes

        return partial(DaskLanes, cluster)
    return None


@ladder_group.command("final")
@_DIR
@click.option("--format", "format_", type=click.Choice(FINAL_FORMATS), default="race", show_default=True)
@_each_declared(FINAL_OPTIONS)
@click.option(
    "--table-size",
    "-k",
    type=int,
    help="Players per game.  [default: race: the ladder's table sizes, mixed by their weights; else the largest]",
)
@click.option("--jobs", "-j", type=int, help="Tables played at the same time.  [default: [serve] jobs]")
@click.option(
    "--max-games",
    type=click.IntRange(min=1),
    default=DEFAULT_FINAL_GAMES,
    show_default=True,
    help="race: stop here if the order is not settled, and say what was proved.",
)
@click.option(
    "--out", "-o", type=click.Path(path_type=Path, file_okay=False), help="Results folder.  [default: DIR/final]"
)
def final_cmd(
    directory: Path,
    format_: str,
    table_size: int | None,
    jobs: int | None,
    max_games: int,
    out: Path | None,
    **declared: Any,
) -> None:
    """Close submissions and the ladder's epoch (its secret is revealed) and play a final between the active
    versions: a race for the --top places (or another format that ranks a field) with a fresh committed deal
    secret, as referee run plays it, into a normal results folder (its standings, report and verify-deals). Stop
    `ladder serve` first. The race plays the ladder's mix of table sizes, so that it ranks by the ladder's
    official figure. It ends settled, or at --max-games with what it proved, and says whether its order agrees
    with the ladder's rank intervals. Run it again with the same --out to continue an interrupted final."""
    from referee.cli.ladder_final import FinalRequest, close_for_final, play_final

    request = FinalRequest(format_, table_size, jobs, max_games, out, declared)
    with _opened("final", directory) as ladder:
        closed = close_for_final(ladder, request)
    play_final(closed, request)


@ladder_group.command("status")
@_DIR
@click.option("--json", "as_json", is_flag=True, help="One JSON object: leaderboard, gate queue, epoch, serve.")
def status_cmd(directory: Path, as_json: bool) -> None:
    """The leaderboard (official standing and live rating), the versions at the gate, the epoch."""
    with _opened("status", directory) as ladder:
        status = ladder.status()
        board = ladder.leaderboard()
    if as_json:
        click.echo(json.dumps(status, indent=2))
        return
    _print_status(status, board)


def _num(x: float | None, digits: int = 3) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def _print_status(status: dict[str, Any], board: Leaderboard) -> None:
    from rich.table import Table

    from referee.cli.run_cmd import _console
    from referee.runner.safe_text import literal

    console = _console()
    serving = status["serving"]
    console.print(
        f"ladder {literal(status['ladder'])}: "
        + (f"served by pid {serving}" if serving else "not being served")
        + f"; {board.blocks:,} blocks, {board.games:,} games"
    )
    table = Table(title="official standing (expected matchpoints against the field)", title_justify="left")
    for col in ("place", "rank 95%", "version", "matchpoints [95%]", "sep.", "deals", "opponents", "games",
                "live mu±sigma"):  # fmt: skip
        table.add_column(col, justify="left" if col == "version" else "right")
    for r in board.rows:
        o = r.official
        assert o is not None
        ci = "" if o.matchpoints_ci95 is None else f" [{o.matchpoints_ci95[0]:.3f}, {o.matchpoints_ci95[1]:.3f}]"
        lo, hi = o.rank_interval
        table.add_row(
            str(o.place),
            str(lo) if lo == hi else f"{lo}-{hi}",
            literal(r.version.key),
            _num(o.matchpoints) + ci,
            ">" if o.separated_from_next else "",
            str(o.deals),
            str(o.opponents),
            str(r.version.games),
            "-" if r.live is None else f"{r.live[0]:.1f}±{r.live[1]:.1f}",
        )
    console.print(table)
    console.print(board.OFFICIAL_NOTE, style="dim")
    if board.placement:
        left = ", ".join(f"{r.version.key} ({r.version.placement_left} blocks left)" for r in board.placement)
        console.print(literal(f"in placement: {left}"))
    if status["gate"]:
        console.print(literal("at the gate: " + ", ".join(f"{g['key']} ({g['state']})" for g in status["gate"])))
    if status["epoch"]:
        console.print(f"epoch {status['epoch']['id']}: deals committed to SHA-256 {status['epoch']['commitment']}")
