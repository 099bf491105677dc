"""``referee verify-deals``: check a tournament's deals against its committed secret.

Anyone holding a results folder can re-derive every deal: the secret must hash to the commitment published
before the first game (``SHA-256``), the schedule made from the stored parameters and that secret must give each
stored game the batch, seats and deal seed it has, and each game log must hold the deal that seed deals.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from referee.contest.chain import ChainAudit, Findings
from referee.contest.deal_secret import DealSecret
from referee.contest.errors import ScheduleError
from referee.contest.schedule import TableBatch
from referee.engine import RulesetError, seeded_deal
from referee.runner import LogError
from referee.runner.gamelog import read_header
from referee.tournament.errors import StoreError
from referee.tournament.formats import schedule_of
from referee.tournament.params import TournamentParams
from referee.tournament.store import ResultsStore, SeatRow

__all__ = ["DealCheck", "audit_results", "check_deals", "check_log_deal"]


@dataclass(slots=True)
class DealCheck(Findings):
    """The outcome: ``problems`` (one line each, empty when every deal checks), the commitment and the secret
    checked, how many games and deals were re-derived, and whether the tournament had revealed its secret."""

    commitment: str
    secret: str
    revealed: bool
    games: int = 0
    deals: int = 0
    #: What the check flags without disagreeing: a secret given with ``--deal-secret``, a secret plainly not random.
    notes: list[str] = field(default_factory=list)


def _schedule(
    params: TournamentParams, secret: DealSecret, stored: Mapping[str, Sequence[SeatRow]]
) -> list[TableBatch]:
    """Every block the tournament's format schedules with ``secret``: a race's rounds replayed from the results."""
    return schedule_of(params, secret).blocks(stored)


def check_deals(directory: Path, *, secret: DealSecret | None = None, commitment: str | None = None) -> DealCheck:
    """Check every stored game's deal in ``directory`` (see the module doc).

    ``secret``: the secret to check (default: the one the results hold); ``commitment``: the commitment as it
    was published (default: the stored one). Raises ``StoreError`` when the folder holds no tournament with a
    deal commitment; every disagreement is a line of the result.
    """
    with ResultsStore(directory, read_only=True) as store, store.snapshot():
        params = store.tournament()
        meta = store.meta()
        stored_commitment = meta.get("deal_commitment")
        if stored_commitment is None:
            raise StoreError(f"{directory} holds a tournament without a deal commitment (made by an older referee)")
        secret = secret or store.deal_secret()
        rows = store.dealt_games()
        stored = {g.game_id: g.seats for g in store.games()}
        seats = {game_id: tuple(r.entrant for r in rows_) for game_id, rows_ in stored.items()}
    check = DealCheck(stored_commitment, secret.hex, "revealed_at" in meta)
    if meta.get("deal_secret_given") == "1":
        check.notes.append(
            "the secret was given with --deal-secret, not drawn by the referee: chosen by the organiser or revealed "
            "by an earlier tournament, so whoever knew it knew every deal"
        )
    if (weak := secret.weakness()) is not None:
        check.notes.append(f"the secret is not random ({weak}): anyone may guess it, and so every deal")
    published = (commitment or stored_commitment).strip().lower()
    if published != stored_commitment:
        check.problem(f"the results hold the commitment {stored_commitment}, not the published {published}")
    if secret.commitment != published:
        check.problem(f"SHA-256 of the secret is {secret.commitment}, not the commitment {published}")
    try:
        ruleset = params.game_ruleset()
        schedule = {g.game_id: g for b in _schedule(params, secret, stored) for g in b.games}
    except (RulesetError, ScheduleError) as exc:
        check.problem(f"the stored parameters make no schedule: {exc}")
        return check
    deals: set[int] = set()
    for game_id, batch, seed, log_path in rows:
        check.games += 1
        planned = schedule.get(game_id)
        if planned is None:
            check.problem(f"{game_id}: not a game of the tournament's schedule")
            continue
        if (batch, seed, seats.get(game_id)) != (planned.batch, planned.seed, planned.seats):
            check.problem(
                f"{game_id}: stored as batch {batch}, seed {seed}, seats {seats.get(game_id)}; "
                f"the secret gives batch {planned.batch}, seed {planned.seed}, seats {planned.seats}"
            )
            continue
        deals.add(batch)
        dealt = partial(seeded_deal, seed, len(planned.seats), ruleset)
        check_log_deal(check, game_id, directory, log_path, seed, dealt)
    check.deals = len(deals)
    return check


def check_log_deal(
    check: Findings, game: str, folder: Path, log_path: str | None, seed: int, deal: Callable[[], object]
) -> None:
    """Add a problem line to ``check`` (each begun with ``game``) unless the game log ``folder/log_path`` opens
    with deal seed ``seed`` and the deal ``deal()`` gives (called only when the seeds agree)."""
    if log_path is None:
        check.problem(f"{game}: no game log to check its deal in")
        return
    path = folder / log_path
    try:
        header = read_header(path)
    except LogError as exc:
        check.problem(f"{game}: {exc}")
        return
    if header.seed != seed:
        check.problem(f"{game}: {path} was dealt from seed {header.seed}, the secret gives {seed}")
    elif header.deal != deal():
        check.problem(f"{game}: {path} holds a deal that is not the deal of seed {seed}")


def audit_results(directory: Path, head: str | None = None) -> ChainAudit:
    """Check the stored games of ``directory`` against their hash chain (``ResultsStore.audit_chain``): every game
    whose rows or log changed since it was stored, every game missing, every game added (after ``head``, the head as
    it was published). Raises ``StoreError`` when the folder holds no tournament, or one begun without a chain."""
    with ResultsStore(directory, read_only=True) as store, store.snapshot():
        store.tournament()
        return store.audit_chain(head.strip().lower() if head is not None else None)
