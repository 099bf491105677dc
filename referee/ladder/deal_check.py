"""``referee verify-deals DIR`` for a ladder: every revealed epoch's deals re-derived from its secret.

For each epoch whose secret is revealed: the secret must hash (SHA-256) to the commitment stored (and announced)
when the epoch opened; each of its played blocks must carry the seed the secret gives it
(``HMAC-SHA256(secret, "referee-deal/1/<epoch>/<block>")``); and each game log of the block must hold that seed
and the deal it deals under the epoch's ruleset. An epoch still open (or closing) is listed as not checkable yet.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from referee.contest.chain import ChainAudit
from referee.contest.deal_secret import DealSecret
from referee.contest.errors import DealSecretError
from referee.engine import Ruleset, RulesetError, seeded_deal
from referee.ladder.layout import LadderLayout
from referee.ladder.model import BlockState
from referee.ladder.recount import recount
from referee.ladder.store import LadderStore
from referee.tournament.verify_deals import DealCheck, check_log_deal

__all__ = ["EpochCheck", "audit_ladder", "check_ladder_deals", "is_ladder"]


@dataclass(slots=True)
class EpochCheck:
    """One epoch's outcome: its number, and the check (None when its secret is not revealed yet)."""

    epoch: int
    check: DealCheck | None


def is_ladder(directory: Path) -> bool:
    return LadderLayout.of(directory).db.is_file()


def check_ladder_deals(directory: Path) -> list[EpochCheck]:
    """Check every revealed epoch of the ladder in ``directory``. Raises ``LadderStoreError`` for a folder that is
    not a ladder; every disagreement is a line of its epoch's ``DealCheck``."""
    layout = LadderLayout.of(directory)
    out = []
    with LadderStore(layout.db) as store, store.snapshot():
        for epoch in store.epochs():
            if epoch.secret is None:
                out.append(EpochCheck(epoch.id, None))
                continue
            check = DealCheck(epoch.commitment, epoch.secret, True)
            out.append(EpochCheck(epoch.id, check))
            try:
                secret = DealSecret.from_hex(epoch.secret)
            except DealSecretError as exc:
                check.problem(f"epoch {epoch.id}: its revealed secret is unusable ({exc})")
                continue
            if secret.commitment != epoch.commitment:
                check.problem(f"epoch {epoch.id}: SHA-256 of the secret is {secret.commitment}, not {epoch.commitment}")
            try:
                ruleset = Ruleset.from_dict(store.epoch_rules(epoch.id))
            except RulesetError as exc:
                check.problem(f"epoch {epoch.id}: its stored ruleset is unusable ({exc})")
                continue
            for block in store.blocks(states=[BlockState.DONE], limit=None, epoch_id=epoch.id):
                _check_block(layout, store, secret, epoch.id, block.id, block.seed, len(block.seats), ruleset, check)
    return out


def _check_block(
    layout: LadderLayout,
    store: LadderStore,
    secret: DealSecret,
    epoch: int,
    block_id: int,
    seed: int,
    players: int,
    ruleset: Ruleset,
    check: DealCheck,
) -> None:
    check.deals += 1
    expected = secret.seed(epoch, block_id)
    if seed != expected:
        check.problem(f"block {block_id}: stored with seed {seed}; the secret gives {expected}")
        return
    deal = seeded_deal(seed, players, ruleset)
    for game in store.games(block_id):
        check.games += 1
        check_log_deal(check, f"game {game.id}", layout.root, game.log_path, seed, lambda: deal)


def audit_ladder(directory: Path, head: str | None = None) -> ChainAudit:
    """``referee audit DIR`` for a ladder: every stored game against the ladder's hash chain (``head``: one an epoch
    published when it was revealed), and every row derived from the games (block results, the standing's sums,
    the counters) against the games (``recount``). Raises ``LadderStoreError`` for a folder that is not a ladder,
    or one made before the chain."""
    with LadderStore(LadderLayout.of(directory).db) as store:
        found = store.audit_chain(head)
        found.derived = recount(store, found)
    return found
