"""A strength knob for SDK bots (the sample bots use it): ``--noise P`` makes a bot play a uniformly random legal move
(and a random discard) a share P of the time, so copies of one bot with different P form a field of known order.
Part of the SDK, so that a sample bot copied alone (one file) still runs.

Usage, in a bot: ``run(with_noise(Greedy()))``; then ``python greedy.py --noise 0.2``. Without ``--noise`` the bot
is unchanged. A bad value ends the bot at once with one line on stderr and exit status 2.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, NoReturn

from protocol.sdk import Bot, Game, MoveLike

if TYPE_CHECKING:
    import argparse

    from referee.engine import Hand, Observation


class NoisyBot(Bot):
    """``bot`` with a share ``noise`` of its moves and discards replaced by uniformly random legal ones (drawn from
    the game's ``rng``, so a seeded run stays reproducible)."""

    def __init__(self, bot: Bot, noise: float) -> None:
        self.bot = bot
        self.noise = noise
        self.name = bot.name
        self.version = bot.version
        self.author = bot.author
        self.legal_moves = bot.legal_moves

    def new_game(self, game: Game) -> None:
        self.bot.new_game(game)

    def discard(self, hand: Hand, n: int, game: Game) -> Sequence[int]:
        if game.rng.random() < self.noise:
            return game.rng.sample([c for c in hand if c != 1], n)
        return self.bot.discard(hand, n, game)

    def move(self, obs: Observation, game: Game) -> MoveLike:
        if game.rng.random() < self.noise:
            return game.rng.choice(game.legal_moves(obs))
        return self.bot.move(obs, game)

    def round_end(self, msg: object, game: Game) -> None:
        self.bot.round_end(msg, game)  # type: ignore[arg-type]

    def game_end(self, msg: object, game: Game) -> None:
        self.bot.game_end(msg, game)  # type: ignore[arg-type]


def with_noise(bot: Bot, argv: Sequence[str] | None = None) -> Bot:
    """``bot``, made noisy when the command line (``argv``, default ``sys.argv[1:]``) says ``--noise P``."""
    args = list(sys.argv[1:] if argv is None else argv)
    if not args:  # the usual start: nothing to parse, and argparse is not even imported (a faster start)
        return bot
    parser = _parser(bot.name)
    parser.add_argument("--noise", type=_share, default=0.0, help="share of random legal moves, 0 to 1")
    noise = parser.parse_args(args).noise
    return NoisyBot(bot, noise) if noise > 0 else bot


def _parser(name: str) -> argparse.ArgumentParser:
    import argparse

    class Parser(argparse.ArgumentParser):
        def error(self, message: str) -> NoReturn:
            """One line on stderr (no usage block) and exit status 2."""
            self.exit(2, f"{self.prog}: error: {message}\n")

    return Parser(prog=name, description=f"the {name} sample bot (protocol v1)")


def _share(text: str) -> float:
    import argparse

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1, got {text!r}") from None
    if not 0 <= value <= 1:
        raise argparse.ArgumentTypeError(f"must be a number from 0 to 1, got {text}")
    return value
