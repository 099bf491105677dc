"""``referee verify-deals RESULTS``: re-derive every deal of a tournament from its revealed secret."""

from __future__ import annotations

import sys
from pathlib import Path

import click


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
    """Check that every deal of the tournament in RESULTS came from its committed secret.

    The secret must hash (SHA-256) to the commitment printed before the first game, and every game's deal must
    be the one the secret gives its table (HMAC-SHA256 of the secret and the table's place in the schedule):
    the stored seeds, the schedule and the deal in each game log are re-derived and compared. Exits with status
    1 on any disagreement.
    """
    from referee.runner.safe_text import visible
    from referee.tournament import DealSecret, DealSecretError, StoreError
    from referee.tournament.deal_check import check_deals

    try:
        secret = DealSecret.from_file(secret_file) if secret_file is not None else None
        check = check_deals(results, secret=secret, commitment=commitment)
    except (DealSecretError, StoreError) as exc:
        click.echo(f"referee verify-deals: error: {visible(str(exc))}", err=True)
        sys.exit(2)
    for line in check.problems:
        click.echo(f"{results}: DISAGREES: {visible(line)}")
    if check.more:
        click.echo(f"{results}: ... and {check.more} more disagreement(s)")
    if not check.ok:
        sys.exit(1)
    note = "" if check.revealed else " (the tournament has not revealed it yet: it is unfinished)"
    click.echo(
        f"{results}: verified: the secret {check.secret} hashes to the commitment {check.commitment}{note}; "
        f"all {check.games} games of {check.deals} deals were dealt from it"
    )
