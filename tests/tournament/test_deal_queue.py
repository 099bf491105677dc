"""``DealQueue``: which game a lane gets, and when a lane waits rather than start new bot processes."""

from __future__ import annotations

import trio
import trio.testing

from referee.tournament.deal_queue import DealQueue
from referee.tournament.schedule import ScheduledGame, TableBatch


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
