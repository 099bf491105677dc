"""random: a uniformly random legal move and a uniformly random legal discard.

Run: python sample_bots/random_bot.py (it speaks protocol v1 on stdin/stdout).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

sys.path.append(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))  # found there when run from a checkout

from protocol.sdk import Bot, Game, Move, run

if TYPE_CHECKING:
    from referee.engine import Hand, Observation


class RandomBot(Bot):
    name = "random"

    def discard(self, hand: Hand, n: int, game: Game) -> Sequence[int]:
        return game.rng.sample([c for c in hand if c != 1], n)

    def move(self, obs: Observation, game: Game) -> Move:
        return game.rng.choice(game.legal_moves(obs))


if __name__ == "__main__":
    from protocol.noise import with_noise  # the SDK's strength knob: --noise P

    run(with_noise(RandomBot()))
