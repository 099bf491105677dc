"""Deals committed by epoch: a contest that never ends cannot wait for its end to reveal its deal secret.

The ladder draws a fresh 32-byte secret for each epoch, stores it with its SHA-256 and announces the SHA-256
(printed by ``serve``, shown by ``status`` and the web) before the epoch's first block. A block of epoch ``e``
with number ``b`` is dealt ``HMAC-SHA256(secret_e, "referee-deal/1/<e>/<b>")`` (``referee.contest.deal_secret``:
the epoch plays the part of a tournament's seed, the block the part of its table batch). An epoch closes after
``hours`` hours or ``blocks`` blocks, whichever comes first: new blocks go to a new epoch, and once the last block
of the closed one has ended its secret is revealed, so that ``referee verify-deals DIR`` re-derives every deal of
it. A block voided in a closed epoch is never played again (its deal could be known by then).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from referee.contest.deal_secret import DEAL_SCHEME, DealSecret
from referee.ladder.config import EpochsSection
from referee.ladder.field import parse_time
from referee.ladder.model import Epoch
from referee.ladder.store import LadderStore

__all__ = ["EpochKeeper"]


class EpochKeeper:
    """The open epoch (opened when there is none, rolled over when it is due) and the reveal of closed ones."""

    def __init__(
        self, store: LadderStore, settings: EpochsSection, rules: dict[str, Any], announce: Callable[[str], None]
    ) -> None:
        self.store = store
        self.settings = settings
        self.rules = rules
        self.announce = announce
        self._secrets: dict[int, DealSecret] = {}
        self._open_epoch: Epoch | None = None  # as last read (its id, scheme, commitment, opening never change)

    def current(self, now: float) -> Epoch:
        """The epoch new blocks are dealt in: the open one, or a new one when it is due to close (announced). Its
        ``blocks`` are counted when it is first read here (asked before each block: only its id is read again)."""
        epoch_id = self.store.open_epoch_id()
        if self._open_epoch is None or self._open_epoch.id != epoch_id:
            self._open_epoch = None if epoch_id is None else self.store.epoch(epoch_id)
        epoch = self._open_epoch
        if epoch is not None and not self._due(epoch, now):
            return epoch
        if epoch is not None:
            self.store.close_epoch(epoch.id, reveal=False)
        return self._open()

    def _due(self, epoch: Epoch, now: float) -> bool:
        opened = parse_time(epoch.opened_at) or now
        if now - opened >= self.settings.hours * 3600:
            return True
        return self.settings.blocks > 0 and self.store.blocks_in_epoch(epoch.id) >= self.settings.blocks

    def _open(self) -> Epoch:
        secret = DealSecret.new()
        epoch = self.store.open_epoch(DEAL_SCHEME, secret.commitment, secret.hex, self.rules)
        self._secrets[epoch.id] = secret
        self.announce(f"epoch {epoch.id} opened: its deals are committed to SHA-256 {epoch.commitment}")
        return epoch

    def secret(self, epoch_id: int) -> DealSecret:
        if epoch_id not in self._secrets:
            self._secrets[epoch_id] = DealSecret.from_hex(self.store.epoch_secret(epoch_id))
        return self._secrets[epoch_id]

    def seed(self, epoch_id: int, block_id: int) -> int:
        """The deal seed of block ``block_id`` of epoch ``epoch_id``."""
        return self.secret(epoch_id).seed(epoch_id, block_id)

    def reveal_closed(self) -> None:
        """Reveal each closed epoch with no block in play any more (announced)."""
        for epoch_id in self.store.epochs_to_reveal():
            self.store.reveal_epoch(epoch_id)
            head = self.store.epoch(epoch_id).chain_head
            self.announce(
                f"epoch {epoch_id} closed; its secret is revealed: {self.store.epoch_secret(epoch_id)}"
                + (f"; the hash chain's head: {head}" if head else "")
            )
