"""steady: an entrant of the example contest, written as two functions on the Python bot SDK.

It keeps its low cards (discards the highest), plays the lowest card it can without bonus chips, and
otherwise passes — unless forced or alone in the round, when it drops out rather than spend chips.
"""

from __future__ import annotations

from collections.abc import Sequence

from protocol.sdk import Game, Move, run
from referee.engine import DROP, PASS, Hand, Observation, Play


def discard(hand: Hand, n: int, game: Game) -> Sequence[int]:
    keep = [card for card in hand if card != 1]
    return keep[-n:] if n else []


def move(obs: Observation, game: Game) -> Move:
    plays = [a for a in game.legal_moves(obs) if isinstance(a, Play) and a.bonus == 0]
    if plays:
        return plays[0]  # legal moves come sorted by value: this is the lowest card, one copy
    alone = all(p.status != "playing" for seat, p in enumerate(obs.players) if seat != obs.seat)
    return DROP if obs.forced or alone else PASS


if __name__ == "__main__":
    run(move=move, discard=discard, name="steady")
