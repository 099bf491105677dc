"""``DealQueue``: which game a lane gets, and when a lane waits rather than start new bot processes; the order of the
games (``rotation_order``) and the ids their bots see."""

from __future__ import annotations

import itertools
import re

import pytest
import trio
import trio.testing

from referee.contest.deal_secret import DealSecret
from referee.contest.play_order import DealQueue, rotation_order
from referee.contest.schedule import ScheduledGame, TableBatch, make_schedule
from referee.tournament.execute import wire_id


def unit(deal: int, rotation: int) -> TableBatch:
    """The game of ``deal`` (its table batch) in seat rotation ``rotation``."""
    game = ScheduledGame(f"g{deal}-{rotation}", 10 * deal + rotation, deal, 0, rotation, ("a", "b"), 1000 + deal)
    return TableBatch(deal, (game,))


def test_a_lane_waits_for_a_game_that_fits_rather_than_restart_its_bots() -> None:
    """Lane B's bots have played deal 1 only; the queue holds deal 1 (another rotation: no fit) and deal 2 (a fit),
    but deal 2 is being played by lane A. B waits for deal 2 instead of taking deal 1 with new processes."""

    async def main() -> None:
        queue = DealQueue([unit(2, 0), unit(1, 1), unit(2, 1), unit(3, 0), unit(4, 0), unit(5, 0)])
        a = await queue.take()
        assert a is not None and a.batch == 2
        got: list[TableBatch | None] = []

        async def lane_b() -> None:
            got.append(await queue.take(lambda g: g.batch != 1 and g.batch < 3))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(lane_b)
            await trio.testing.wait_all_tasks_blocked()
            assert got == []  # waiting: its only fitting game's deal is being played
            queue.release(a)
        assert got[0] is not None and (got[0].batch, got[0].games[0].rotation) == (2, 1)

    trio.run(main)


def test_the_last_few_games_go_to_the_busy_lanes_not_to_new_bot_processes() -> None:
    """At the end of the queue a lane whose bots fit none of the games left waits while another lane plays (at most
    ``RESTART_GAMES`` games per busy lane); once no lane is busy it takes one, with new processes."""

    async def main() -> None:
        left = DealQueue.RESTART_GAMES
        queue = DealQueue([unit(d, 0) for d in range(1, left + 2)])
        busy = await queue.take()
        assert busy is not None and busy.batch == 1
        got: list[TableBatch | None] = []

        async def lane_b() -> None:
            got.append(await queue.take(lambda g: False))

        async with trio.open_nursery() as nursery:
            nursery.start_soon(lane_b)
            await trio.testing.wait_all_tasks_blocked()
            assert got == []  # left games <= RESTART_GAMES x 1 busy lane: wait
            queue.release(busy)  # no lane busy any more: B starts new processes for the next game
        assert got[0] is not None and got[0].batch == 2

    trio.run(main)


def test_a_lane_takes_a_game_that_does_not_fit_when_many_are_left() -> None:
    async def main() -> None:
        queue = DealQueue([unit(d, 0) for d in range(1, DealQueue.RESTART_GAMES + 4)])
        busy = await queue.take()
        assert busy is not None
        other = await queue.take(lambda g: False)  # many games left: restarting is worth it
        assert other is not None and other.batch == 2

    trio.run(main)


def _round_robin(entrants: int, table: int, repeats: int) -> list[TableBatch]:
    names = [f"e{i}" for i in range(entrants)]
    return make_schedule(names, table_size=table, repeats=repeats, seed=1, secret=DealSecret(b"\x07" * 32))


def test_each_pass_over_the_deals_has_an_order_of_its_own_from_the_secret() -> None:
    """The first rotation of every deal, then the second...; within a pass the deals neither in schedule order nor
    in the previous pass's order (from which an entrant's processes could tell which earlier game had their deal),
    and the same order in every run."""
    batches = _round_robin(5, 3, 4)  # 10 tables x 4 deals, 3 rotations each
    units = rotation_order(batches)
    assert units == rotation_order(batches)
    assert sorted(u.games[0].game_id for u in units) == sorted(g.game_id for b in batches for g in b.games)
    passes = [[u.batch for u in units if u.games[0].rotation == r] for r in range(3)]
    assert [u.games[0].rotation for u in units] == sorted(u.games[0].rotation for u in units)
    assert all(sorted(p) == list(range(40)) for p in passes)
    assert passes[0] != sorted(passes[0]) and passes[1] != passes[0] and passes[2] != passes[1]
    other = make_schedule([f"e{i}" for i in range(5)], table_size=3, repeats=4, seed=1, secret=DealSecret(b"\x08" * 32))
    assert [u.batch for u in rotation_order(other)] != [u.batch for u in units]  # another secret, another order


@pytest.mark.parametrize(("entrants", "table", "repeats"), [(3, 3, 3), (4, 2, 2), (5, 3, 2), (3, 2, 1)])
def test_an_entrants_rotations_of_a_deal_have_other_deals_between_them(entrants: int, table: int, repeats: int) -> None:
    """Played in order, no entrant plays two rotations of one deal one after the other (its processes in between
    play another deal): not even where one pass ends with a deal and the next would begin with it."""
    for seed in range(20):
        names = [f"e{i}" for i in range(entrants)]
        secret = DealSecret(seed.to_bytes(32, "big"))
        units = rotation_order(make_schedule(names, table_size=table, repeats=repeats, seed=seed, secret=secret))
        for name in names:
            deals = [u.batch for u in units if name in u.games[0].seats]
            assert all(a != b for a, b in itertools.pairwise(deals)), (name, deals)


def test_the_bots_are_sent_ids_that_tell_nothing_of_the_schedule() -> None:
    """A game's id on the wire is ``g`` and 16 hex digits, from its secret deal seed and rotation: unlike the
    schedule's ``g000001``..., two rotations of one deal get unrelated ids, and each id is the same in every run."""
    games = [g for b in _round_robin(4, 4, 2) for g in b.games]
    ids = [wire_id(g) for g in games]
    assert all(re.fullmatch(r"g[0-9a-f]{16}", i) for i in ids) and len(set(ids)) == len(ids)
    assert ids == [wire_id(g) for g in games] and ids[0] != games[0].game_id
