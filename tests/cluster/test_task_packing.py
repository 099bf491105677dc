"""How the coordinator packs a round's games into Dask tasks: several games a task, never two of one deal in play."""

from __future__ import annotations

from collections import deque

from referee.contest.play_order import rotation_order
from referee.contest.schedule import make_schedule
from referee.tournament import DealSecret
from referee.tournament.cluster import GAMES_PER_TASK, _take_units


def round_units() -> list:
    """A round of 5 entrants at tables of 4: 5 tables x 2 repeats = 10 deals, 4 rotations each, in play order."""
    names = [f"bot{i}" for i in range(5)]
    secret = DealSecret.new()
    return rotation_order(make_schedule(names, table_size=4, repeats=2, seed=3, secret=secret))


def test_tasks_never_hold_a_deal_in_play_nor_one_deal_twice_and_every_game_goes_once_in_order() -> None:
    units = round_units()
    waiting = deque(units)
    dealt: set[int] = set()
    in_play: deque[list] = deque()
    handed: list = []
    while waiting or in_play:
        chosen = _take_units(waiting, dealt, GAMES_PER_TASK) if len(in_play) < 3 else []
        if not chosen:  # nothing fits (or every slot is taken): the oldest task in play ends
            assert in_play, "nothing in play, yet no game could be taken"
            for unit in in_play.popleft():
                dealt.discard(unit.batch)
            continue
        deals = [u.batch for u in chosen]
        assert len(set(deals)) == len(deals)  # a worker's bots are never dealt one deal twice by one task
        assert not set(deals) & dealt  # two rotations of one deal are never played at the same time
        dealt.update(deals)
        in_play.append(chosen)
        handed += chosen
    assert sorted(g.game_id for u in handed for g in u.games) == sorted(g.game_id for u in units for g in u.games)
    # games passed over keep their order: each deal's rotations go out first to last
    for deal in {u.batch for u in units}:
        rotations = [u.games[0].rotation for u in handed if u.batch == deal]
        assert rotations == sorted(rotations)


def test_a_task_takes_at_most_size_games_and_leaves_the_rest_in_their_order() -> None:
    units = round_units()
    waiting = deque(units)
    first = _take_units(waiting, set(), 3)
    assert first == units[:3]
    assert list(waiting) == units[3:]
    # the deal of the front game in play: it is passed over, and stays at the front for the next task
    blocked = _take_units(waiting, {units[3].batch}, 1)
    assert blocked == [units[4]] and waiting[0] == units[3]
