"""``referee verify-deals RESULTS``: re-derive every deal of a tournament from its revealed secret; ``referee audit
RESULTS``: check every stored game against the results' hash chain."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from referee.contest.chain import ChainAudit


@click.command("verify-deals")
@click.argument("results", type=click.Path(path_type=Path, file_okay=False))
@click.option(
    "--commitment",
    metavar="HEX",
    help="The commitment as it was published before the first game.  [default: the one the results hold]",
)
@click.option(
    "--secret",
    "secret_file",
    type=click.Path(path_type=Path, dir_okay=False),
    help="A file holding the secret in hex, as it was revealed.  [default: the one the results hold]",
)
def verify_deals_cmd(results: Path, commitment: str | None, secret_file: Path | None) -> None:
    """Check that every deal of the tournament (or ladder) in RESULTS came from its committed secret.

    The secret must hash (SHA-256) to the commitment printed before the first game, and every game's deal must
    be the one the secret gives its table (HMAC-SHA256 of the secret and the table's place in the schedule):
    the stored seeds, the schedule and the deal in each game log are re-derived and compared. Exits with status
    1 on any disagreement. A ladder folder is checked epoch by epoch, each revealed epoch against its own secret.
    """
    from referee.ladder.deal_check import is_ladder
    from referee.runner.safe_text import visible
    from referee.tournament import DealSecret, DealSecretError, StoreError
    from referee.tournament.verify_deals import audit_results, check_deals

    if is_ladder(results):
        if commitment is not None or secret_file is not None:
            click.echo("referee verify-deals: error: a ladder is checked epoch by epoch with its own secrets", err=True)
            sys.exit(2)
        _verify_ladder(results)
        return
    try:
        secret = DealSecret.from_file(secret_file) if secret_file is not None else None
        check = check_deals(results, secret=secret, commitment=commitment)
    except (DealSecretError, StoreError) as exc:
        click.echo(f"referee verify-deals: error: {visible(str(exc))}", err=True)
        sys.exit(2)
    try:
        chain: ChainAudit | None = audit_results(results)
    except StoreError:
        chain = None  # begun by a referee without the chain: the deals can still be checked
    problems = [*check.problems, *(chain.problems if chain is not None else ())]
    for line in problems:
        click.echo(f"{results}: DISAGREES: {visible(line)}")
    more = check.more + (chain.more if chain is not None else 0)
    if more:
        click.echo(f"{results}: ... and {more} more disagreement(s)")
    if problems:
        sys.exit(1)
    note = "" if check.revealed else " (the tournament has not revealed it yet: it is unfinished)"
    chained = (
        "; no hash chain (begun by an older referee)"
        if chain is None
        else f"; the stored games match their hash chain (head {chain.head})"
    )
    click.echo(
        f"{results}: verified: the secret {check.secret} hashes to the commitment {check.commitment}{note}; "
        f"all {check.games} games of {check.deals} deals were dealt from it{chained}"
    )
    for line in check.notes:
        click.echo(f"{results}: NOTE: {line}")


def _verify_ladder(directory: Path) -> None:
    """Each revealed epoch of a ladder checked; an epoch still open is said to be so. Exit 1 on a disagreement."""
    from referee.ladder import LadderError
    from referee.ladder.deal_check import check_ladder_deals
    from referee.runner.safe_text import visible

    try:
        epochs = check_ladder_deals(directory)
    except LadderError as exc:
        click.echo(f"referee verify-deals: error: {visible(str(exc))}", err=True)
        sys.exit(2)
    bad = False
    for e in epochs:
        if e.check is None:
            click.echo(f"{directory}: epoch {e.epoch}: not revealed yet (open, or a block of it still in play)")
            continue
        for line in e.check.problems:
            click.echo(f"{directory}: epoch {e.epoch}: DISAGREES: {visible(line)}")
        if e.check.more:
            click.echo(f"{directory}: epoch {e.epoch}: ... and {e.check.more} more disagreement(s)")
        if e.check.ok:
            click.echo(
                f"{directory}: epoch {e.epoch}: verified: the secret {e.check.secret} hashes to the commitment "
                f"{e.check.commitment}; all {e.check.games} games of {e.check.deals} blocks were dealt from it"
            )
        bad = bad or not e.check.ok
    if bad:
        sys.exit(1)


@click.command("audit")
@click.argument("results", type=click.Path(path_type=Path, file_okay=False))
@click.option("--head", metavar="HEX", help="The chain head as it was published when the tournament ended.")
def audit_cmd(results: Path, head: str | None) -> None:
    """Check every stored game of RESULTS (a tournament or a ladder) against its hash chain.

    Each game was linked, as it was stored, to the ones before it: SHA-256 of its rows (scores, ranks, seats,
    faults, replay) and of its game log, chained in storage order. Names every game whose results or log changed
    since, every game that is missing and every game that was added (with --head, the head printed when the
    tournament ended: also every game after it, and a chain rewritten after an edit). A ladder plays on after an
    epoch publishes its head: its games after the head are counted as played since, not named. Exits with status 1
    on any difference. For a ladder, every row derived from the games (each block's state, table and results,
    the standing's sums, the counters) is derived again and each one that differs is named too.
    """
    from referee.ladder import LadderError
    from referee.ladder.deal_check import audit_ladder, is_ladder
    from referee.runner.safe_text import visible
    from referee.tournament import StoreError
    from referee.tournament.verify_deals import audit_results

    try:
        found = audit_ladder(results, head) if is_ladder(results) else audit_results(results, head)
    except (StoreError, LadderError) as exc:
        click.echo(f"referee audit: error: {visible(str(exc))}", err=True)
        sys.exit(2)
    for line in found.problems:
        click.echo(f"{results}: DIFFERS: {visible(line)}")
    if found.more:
        click.echo(f"{results}: ... and {found.more} more")
    if not found.ok:
        sys.exit(1)
    if head is None:
        matched = f"all {found.games} stored games match their hash chain (head {found.head})"
    elif found.grown:
        matched = (
            f"all {found.games} stored games match their hash chain: the {found.games - found.grown} up to the "
            f"published head unchanged, and {found.grown} played since (head now {found.head})"
        )
    else:
        matched = f"all {found.games} stored games match their hash chain (head {found.head}, the published head)"
    if found.derived:
        matched += f", and all {found.derived} rows derived from them (block results, sums, counters) match them"
    click.echo(f"{results}: audited: {matched}")
