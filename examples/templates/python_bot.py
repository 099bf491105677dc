"""A bot for the card game 23 in Python, on the referee's bot SDK: a template to start from.

Run it yourself with ``referee check python_bot.py`` (the conformance suite) or
``referee play python_bot.py sample_bots/greedy.py`` (one game). The SDK answers ``hello``, resets per-game
state on ``game_start``, calls ``discard`` on every deal and ``move`` on every turn, ignores messages and fields
it does not know, exits cleanly on ``bye``, and sends ``print`` output to stderr (the referee keeps it as the
bot's log), so stdout only ever carries protocol lines.

Strategy (replace it with yours): discard the highest cards, then take the cheapest legal move, where a
move's cost is the penalty chips it takes now, two points per bonus chip spent (each unspent chip is worth 2
at the end) and minus 3 when it empties the hand. A pass costs 1 chip, so passing wins whenever every play
costs more, except when passing cannot help: when forced (not allowed), when no other player is still in
the round, or when nobody has played since its own last pass (the table is stalled: passing again would only
repeat until the turn limit).
"""

from __future__ import annotations

from collections.abc import Sequence

from protocol.sdk import Bot, Game, Move, run
from protocol.tactics import stalled
from referee.engine import Hand, Observation, Pass, Play


class TemplateBot(Bot):
    name = "python-template"
    version = "0.1"
    author = "you"

    def new_game(self, game: Game) -> None:
        # Per-game memory goes in game.data (a fresh Game arrives with every game_start).
        game.data["turns"] = 0

    def discard(self, hand: Hand, n: int, game: Game) -> Sequence[int]:
        # `hand` is sorted; the 1 may never be discarded.
        pool = [card for card in hand if card != 1]
        return pool[len(pool) - n :]

    def move(self, obs: Observation, game: Game) -> Move:
        game.data["turns"] += 1
        legal = game.legal_moves(obs)  # plays by (value, count, bonus), then pass, pass-and-force, drop
        alone = all(p.status != "playing" for seat, p in enumerate(obs.players) if seat != obs.seat)
        no_pass = alone or stalled(obs)  # passing cannot move the table

        rules = game.ruleset  # the game's rules, from game_start (the standard values are 5, 2 and 3)

        def cost(action: Move) -> int:
            if isinstance(action, Play):
                lifted = 0 if obs.last is None else obs.last + rules.bonus_step * action.bonus
                skipped = 0 if obs.last is None else max(0, action.value - lifted - 1)
                finish = -rules.finish_refund if action.count == len(obs.hand) else 0
                return skipped + rules.bonus_refund * action.bonus + finish
            if isinstance(action, Pass):
                return 2 if action.force else 1
            return len(obs.hand)  # a drop: one chip per card still held

        candidates = [a for a in legal if not (no_pass and isinstance(a, Pass))]
        # Cheapest first; among equals prefer playing more cards at once, then the lower value.
        return min(
            candidates,
            key=lambda a: (cost(a), -a.count if isinstance(a, Play) else 0, a.value if isinstance(a, Play) else 99),
        )


if __name__ == "__main__":
    run(TemplateBot())
