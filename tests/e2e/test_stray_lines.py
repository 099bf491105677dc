"""A reply answers the request it was sent for: a line a bot writes after a message that needs no reply is a
fault named after that message, whether the referee finds it before its next request or reads it in place of
the reply. A real one-file bot (tests/bots/stray.py), both sandbox modes."""

from __future__ import annotations

from pathlib import Path

import pytest
import trio

from protocol import Expect, ProtocolViolation
from referee.runner import Player, UnsolicitedOutput

from .helpers import MODES, bot, config, new_mark, play_games, processes_with

GAME_START = (
    b'{"type":"game_start","game":"g1","seat":0,"players":["stray","other"],"rules":{},"time":{"move_ms":1000}}\n'
)
DEAL = b'{"type":"deal","game":"g1","round":1,"hand":[1,2,3,4,5,6,7,8,9,10,11,12,13,14,15],"discard":3}\n'


@pytest.mark.parametrize("mode", MODES)
def test_an_answer_to_round_end_is_a_fault_that_names_round_end(mode: str, tmp_path: Path) -> None:
    mark = new_mark()
    specs = [bot("stray", mark), bot("honest", mark)]
    (result,), _ = trio.run(play_games, specs, config(mode), tmp_path)
    assert [(f.seat, f.kind) for f in result.faults] in ([(0, "unsolicited")], [(0, "wrong_type")])
    fault = result.faults[0]
    assert fault.round == 2 and result.forfeits == (0,)  # found at round 2's deal
    if fault.kind == "unsolicited":  # found before the next request was sent
        assert fault.detail == (
            "a line arrived when no reply was awaited: it came after round_end, which needs no reply "
            "(answer only hello, deal and turn, one line each)"
        )
    else:  # it arrived after the next deal was sent, and was read as its reply
        assert fault.detail == (
            "a 'pass' reply does not answer a deal; expected 'discard' (this line came right after round_end, "
            "which needs no reply: if the bot answered round_end, that answer was read as its reply to this deal)"
        )
    assert fault.line == '{"type": "pass"}'
    assert processes_with(mark) == []


@pytest.mark.parametrize("mode", MODES)
def test_a_stray_line_waiting_before_a_request_names_what_it_followed(mode: str, tmp_path: Path) -> None:
    mark = new_mark()
    player = Player(bot("stray", mark, STRAY_AFTER="game_start"), config(mode), tmp_path / "stray.log")

    async def main() -> None:
        try:
            await player.ensure_started()
            assert player.ready
            await player.notify(GAME_START, trio.current_time() + 5)
            await trio.sleep(1.0)  # the stray answer is waiting in the pipe when the deal is due
            with pytest.raises(UnsolicitedOutput) as caught:
                await player.request(DEAL, Expect.DISCARD, trio.current_time() + 5)
            assert caught.value.detail == (
                "a line arrived when no reply was awaited: it came after game_start, which needs no reply "
                "(answer only hello, deal and turn, one line each)"
            )
            assert caught.value.line == '{"type": "pass"}'
        finally:
            await player.aclose()

    trio.run(main)
    assert processes_with(mark) == []


@pytest.mark.parametrize("mode", MODES)
def test_an_answer_read_in_place_of_the_reply_names_the_likely_cause(mode: str, tmp_path: Path) -> None:
    mark = new_mark()
    # The bot answers game_start late: the deal has been sent already, and its stray line comes first.
    player = Player(bot("stray", mark, STRAY_AFTER="game_start", STRAY_DELAY="0.5"), config(mode), tmp_path / "s.log")

    async def main() -> None:
        try:
            await player.ensure_started()
            await player.notify(GAME_START, trio.current_time() + 5)
            with pytest.raises(ProtocolViolation) as caught:
                await player.request(DEAL, Expect.DISCARD, trio.current_time() + 5)
            assert caught.value.kind == "wrong_type"
            assert caught.value.detail == (
                "a 'pass' reply does not answer a deal; expected 'discard' (this line came right after game_start, "
                "which needs no reply: if the bot answered game_start, that answer was read as its reply to this deal)"
            )
        finally:
            await player.aclose()

    trio.run(main)
    assert processes_with(mark) == []


@pytest.mark.parametrize("mode", MODES)
def test_a_second_line_after_a_reply_is_named_as_such(mode: str, tmp_path: Path) -> None:
    mark = new_mark()
    # It answers the deal (honestly), then writes a second line.
    player = Player(bot("stray", mark, STRAY_AFTER="deal"), config(mode), tmp_path / "s.log")

    async def main() -> None:
        try:
            await player.ensure_started()
            reply, _ = await player.request(DEAL, Expect.DISCARD, trio.current_time() + 5)
            assert reply.type == "discard"
            await trio.sleep(1.0)
            with pytest.raises(UnsolicitedOutput) as caught:
                await player.notify(GAME_START, trio.current_time() + 5)
            assert caught.value.detail == (
                "a line arrived when no reply was awaited: a second line after the reply to deal "
                "(answer each hello, deal and turn with one line)"
            )
        finally:
            await player.aclose()

    trio.run(main)
    assert processes_with(mark) == []
