"""A person's seat in the browser freezes the game's bots while the person thinks over a turn: a bot that burns CPU
while it waits takes none of the machine meanwhile, and plays on as if nothing happened once the person has moved."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from protocol import DealMessage, Turn
from referee.runner import Player, play_game
from referee.web.human_seat import BrowserSeat

from .helpers import MODES, bot, config, new_mark, processes_with


@pytest.mark.parametrize("mode", MODES)
def test_the_bots_are_frozen_while_the_person_thinks(mode: str, tmp_path: Path) -> None:
    mark = new_mark()
    spinning = bot("idle_burner", mark, BURN_FROM="game_start")  # a child spinning from the game's start
    burner = Player(spinning, config(mode, freeze=True), tmp_path / "burner.stderr.log")
    seat = BrowserSeat("ann (human)", idle=60, on_idle=lambda why: None)
    seat.bots = [burner]
    burnt: dict[str, float] = {}

    async def person() -> None:
        """Answers every question at once, but thinks 0.6 s over its first turn (measuring the bot meanwhile)."""
        while seat.result is None:
            asked = seat.asked
            if isinstance(asked, DealMessage):
                problem = seat.answer(seat.at, cards=sorted(c for c in asked.hand if c != 1)[-asked.discard :])
                assert problem is None or "no longer open" in problem, problem
            elif isinstance(asked, Turn):
                if not burnt:
                    start = burner.cpu_seconds() or 0.0
                    await trio.sleep(0.6)
                    burnt["thinking"] = (burner.cpu_seconds() or 0.0) - start
                problem = seat.answer(seat.at, move=seat.moves()[0].text)
                assert problem is None or "no longer open" in problem, problem
            else:
                await seat.changed.wait()
                continue
            await trio.sleep(0)

    async def main() -> None:
        await burner.ensure_started()
        if burner._proc is None or burner._proc.freezer is None:
            await burner.aclose()
            pytest.skip("no freezer cgroup can be made here")
        async with trio.open_nursery() as nursery:
            nursery.start_soon(person)
            result = await play_game([seat, burner], game_id="h1", seed=3, log_path=tmp_path / "h1.jsonl")
            assert result.faults == () and len(result.scores) == 2
            # the person moved: the bot was thawed, and burns again while the game is over and it waits
            start = burner.cpu_seconds() or 0.0
            await trio.sleep(1.0)
            burnt["after"] = (burner.cpu_seconds() or 0.0) - start
        await burner.aclose()

    trio.run(main)
    assert burnt["thinking"] < 0.02 and burnt["after"] > 0.03, burnt
    assert processes_with(mark) == []  # its burning child ended with it
