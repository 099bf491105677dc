"""Common random numbers (PROTOCOL.md, "Common random numbers"): each seat's ``game_start`` carries an ``rng_seed``
that depends on the deal, the seat and a key no bot sees (the deal's seed), and the SDK seeds each game's ``rng``
from it.

What a user relies on: whoever holds a seat's cards of a deal gets the same seed, whichever entrant it is and in
whichever game of the block; another seat or another deal gets another; nobody can compute it from the deal alone
(it would tell the other hands once the game is over); a bot that ignores the field is unaffected, and the SDK's
draws follow the seed (with a bot's own ``seed`` combined, not discarded).
"""

from __future__ import annotations

import io
import json
import re
from typing import Any

import trio

from protocol.sdk import Bot, Game, run
from referee.engine import STANDARD, new_game
from referee.runner import play_game
from referee.runner.common_random import deal_key, rng_seed

from .scripted import ScriptedEntrant, honest


def _starts(entrants: list[ScriptedEntrant]) -> list[dict[str, Any]]:
    return [next(m for m in e.received if m["type"] == "game_start") for e in entrants]


def _play(names: list[str], seed: int | None, **options: Any) -> list[dict[str, Any]]:
    entrants = [ScriptedEntrant(name, honest) for name in names]
    trio.run(lambda: play_game(entrants, game_id="g1", seed=seed, **options))
    return _starts(entrants)


def test_the_seed_is_sixteen_hex_digits_and_differs_by_seat_and_deal() -> None:
    seeds = {rng_seed(new_game(4, STANDARD, seed=s).deal, seat, deal_key(s)) for s in range(50) for seat in range(4)}
    assert len(seeds) == 200
    assert all(re.fullmatch(r"[0-9a-f]{16}", s) for s in seeds)


def test_each_seat_gets_its_seed_whoever_sits_there() -> None:
    first = _play(["a", "b", "c"], seed=11)
    rotated = _play(["c", "a", "b"], seed=11)  # the next seat order of the same deal, as a block plays it
    deal = new_game(3, STANDARD, seed=11).deal
    assert [m["rng_seed"] for m in first] == [rng_seed(deal, s, deal_key(11)) for s in range(3)]
    assert [m["rng_seed"] for m in rotated] == [m["rng_seed"] for m in first]
    assert _play(["a", "b", "c"], seed=12)[0]["rng_seed"] != first[0]["rng_seed"]


def test_the_seed_is_not_computable_from_the_deal_alone() -> None:
    """The same deal, played from its seed and twice given as a deal (``referee play --deal``): three games, three
    seeds for each seat. Were the seed a function of the deal (a checksum, as it first was), they would agree, and a
    seat could search the deals consistent with what it saw, after the game, for the one that gives its seed."""
    deal = new_game(3, STANDARD, seed=11).deal
    games = [_play(["a", "b", "c"], seed=11), *(_play(["a", "b", "c"], seed=None, deal=deal) for _ in range(2))]
    for seat in range(3):
        assert len({starts[seat]["rng_seed"] for starts in games}) == 3
    assert rng_seed(deal, 0, deal_key(11)) != rng_seed(deal, 0, deal_key(12))


def test_without_common_random_the_field_is_absent() -> None:
    assert all("rng_seed" not in m for m in _play(["a", "b"], seed=5, common_random=False))


class _Draws(Bot):
    """Records the first draws of each game's ``rng``; discards the three highest cards and always drops."""

    name = "draws"

    def __init__(self) -> None:
        self.draws: list[list[float]] = []

    def new_game(self, game: Game) -> None:
        self.draws.append([game.rng.random() for _ in range(3)])

    def discard(self, hand: Any, n: int, game: Game) -> list[int]:
        return sorted(hand)[-n:]

    def move(self, obs: Any, game: Game) -> Any:
        return game.legal_moves(obs)[-1]


def _draws(starts: list[dict[str, Any]], seed: int | str | None = None) -> list[list[float]]:
    lines = [{"type": "hello", "protocol": 1}, *starts]
    inp = io.BytesIO(b"".join(json.dumps(m).encode() + b"\n" for m in lines))
    bot = _Draws()
    run(bot, stdin=inp, stdout=io.BytesIO(), seed=seed)
    return bot.draws


def _start(rng: str | None, game: str) -> dict[str, Any]:
    msg: dict[str, Any] = {"type": "game_start", "game": game, "seat": 0, "players": ["draws", "x"]}
    msg.update(rules=STANDARD.to_dict(), time={"move_ms": 1000})
    if rng is not None:
        msg["rng_seed"] = rng
    return msg


def test_the_sdk_draws_follow_the_seed() -> None:
    same = _draws([_start("00000000000000aa", "g1"), _start("00000000000000aa", "g2")])
    assert same[0] == same[1], "the same rng_seed, the same draws, whatever the game id"
    other = _draws([_start("00000000000000ab", "g1")])
    assert other[0] != same[0]
    unseeded = _draws([_start(None, "g1"), _start(None, "g1")])
    assert unseeded[0] != unseeded[1], "without rng_seed or seed, each game draws fresh numbers"


def test_a_bots_own_seed_is_combined_with_the_referees() -> None:
    a = _draws([_start("00000000000000aa", "g1")], seed=1)
    assert a == _draws([_start("00000000000000aa", "g9")], seed=1)
    assert a != _draws([_start("00000000000000aa", "g1")], seed=2)
    assert a != _draws([_start("00000000000000aa", "g1")])
