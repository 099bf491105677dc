"""A ladder's warm process is frozen between its games: a bot that burns CPU while idle takes none of the field's
(issue 32, finding 10: the burners of one version cut the others' blocks from 136 to 87 in the same time)."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from referee.contest.pool import PlayerPool
from referee.runner import play_game

from .helpers import MODES, bot, config, new_mark, processes_with


async def _burnt(player: object, seconds: float) -> float:
    """CPU seconds the player's bot (all its processes) used in ``seconds`` of wall time."""
    start = player.cpu_seconds()  # type: ignore[attr-defined]
    await trio.sleep(seconds)
    return player.cpu_seconds() - start  # type: ignore[attr-defined,no-any-return]


@pytest.mark.parametrize("mode", MODES)
def test_an_idle_warm_process_is_frozen_until_it_is_seated_again(mode: str, tmp_path: Path) -> None:
    mark = new_mark()
    specs = {"burner": bot("idle_burner", mark), "honest": bot("honest", mark)}
    cfg = config(mode, freeze=True)
    figures: dict[str, float] = {}

    async def main() -> None:
        pool = PlayerPool(specs, cfg, tmp_path, 0, keep=1, freeze_idle=True)
        try:
            players = await pool.for_game(["burner", "honest"], 1)
            result = await play_game(players, game_id="g1", seed=1)
            assert result.faults == ()
            burner = players[0]
            if burner._proc.freezer is None:  # type: ignore[attr-defined]
                pytest.skip("no freezer cgroup can be made here")
            await pool.after_game()  # its child burns from the game's end on: frozen now
            figures["frozen"] = await _burnt(burner, 0.6)
            burner.resume()  # type: ignore[attr-defined]
            figures["thawed"] = await _burnt(burner, 1.0)
            burner.pause()  # type: ignore[attr-defined]
            # seated again, it plays its next game as if nothing happened
            players = await pool.for_game(["burner", "honest"], 2)
            assert (await play_game(players, game_id="g2", seed=2)).faults == ()
        finally:
            await pool.aclose()

    trio.run(main)
    assert figures["frozen"] < 0.02 and figures["thawed"] > 0.03, figures
    assert processes_with(mark) == []  # the frozen child was ended with its bot
