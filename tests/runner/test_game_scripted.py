"""play_game with in-memory entrants: message order, faults turned into forfeits, logs that verify."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import trio

from referee.engine import STANDARD, Ruleset, RulesetError, new_game, seeded_deal
from referee.runner import BotCrashed, BotTimeout, GameResult, play_game, read_log
from referee.runner.verify import verify_log

from .scripted import ScriptedEntrant


def _play(entrants: list[ScriptedEntrant], tmp_path: Path, seed: int = 3, **kw: Any) -> GameResult:
    return trio.run(lambda: play_game(entrants, game_id="t1", seed=seed, log_path=tmp_path / "t1.jsonl", **kw))


def test_messages_come_in_protocol_order(tmp_path: Path) -> None:
    a, b = ScriptedEntrant("a"), ScriptedEntrant("b")
    result = _play([a, b], tmp_path)
    types = [m["type"] for m in a.received]
    assert types[0] == "game_start" and types[-1] == "game_end"
    assert types.count("deal") == 2 and types.count("round_end") == 2
    first_end = types.index("round_end")
    assert types.index("deal") < first_end < len(types) - 1 - types[::-1].index("deal")
    assert a.received[0]["seat"] == 0 and b.received[0]["seat"] == 1
    assert a.received[0]["players"] == ["a", "b"]
    assert a.received[-1] == {
        "type": "game_end",
        "game": "t1",
        "scores": list(result.scores),
        "ranks": list(result.ranks),
        "forfeits": [],
    }
    assert result.faults == () and result.forfeits == ()
    assert verify_log(read_log(tmp_path / "t1.jsonl")).ok


def test_a_ruleset_without_discards_still_deals_every_round(tmp_path: Path) -> None:
    """protocol v1 starts every round with ``deal``: with ``discard`` 0 the bot gets its whole hand, replies with
    no cards, and the first turn follows."""
    rules = Ruleset(discard=0)
    a, b = ScriptedEntrant("a"), ScriptedEntrant("b")
    result = _play([a, b], tmp_path, seed=5, ruleset=rules)
    deals = [m for m in a.received if m["type"] == "deal"]
    dealt = seeded_deal(5, 2, rules)
    assert [(m["round"], m["hand"], m["discard"]) for m in deals] == [
        (1, list(dealt[0][0]), 0),
        (2, list(dealt[1][0]), 0),
    ]
    types = [m["type"] for m in a.received]
    assert types.index("deal") < types.index("turn")
    assert result.faults == () and result.forfeits == ()
    assert verify_log(read_log(tmp_path / "t1.jsonl")).ok


def test_a_discard_named_when_the_ruleset_discards_nothing_forfeits(tmp_path: Path) -> None:
    def discard_one(msg: dict[str, Any]) -> Any:
        return {"type": "discard", "cards": [msg["hand"][-1]]} if msg["type"] == "deal" else None

    result = _play([ScriptedEntrant("a", discard_one), ScriptedEntrant("b")], tmp_path, ruleset=Ruleset(discard=0))
    assert [(f.seat, f.kind, f.round, f.detail) for f in result.faults] == [
        (0, "illegal_discard", 1, "a discard names exactly 0 cards, got 1")
    ]
    assert result.forfeits == (0,)
    assert verify_log(read_log(tmp_path / "t1.jsonl")).ok


def test_a_time_bank_is_told_to_the_bots_in_game_start(tmp_path: Path) -> None:
    banked, plain = ScriptedEntrant("a"), ScriptedEntrant("b")
    banked.time_bank = 2.5
    _play([banked, plain], tmp_path)
    assert banked.received[0]["time"] == {"move_ms": 1000, "bank_ms": 2500}
    assert plain.received[0]["time"] == {"move_ms": 1000}


def test_same_seed_same_game(tmp_path: Path) -> None:
    first = _play([ScriptedEntrant("a"), ScriptedEntrant("b"), ScriptedEntrant("c")], tmp_path, seed=11)
    second = _play([ScriptedEntrant("a"), ScriptedEntrant("b"), ScriptedEntrant("c")], tmp_path, seed=11)
    assert first.scores == second.scores and first.deal == second.deal == seeded_deal(11, 3, STANDARD)


def test_timeout_mid_game_forfeits_and_the_bot_is_told(tmp_path: Path) -> None:
    turns = 0

    def script(msg: dict[str, Any]) -> Any:
        nonlocal turns
        if msg["type"] == "turn":
            turns += 1
            if turns == 2:
                return BotTimeout("no reply before the deadline")
        return None

    bad, good = ScriptedEntrant("bad", script), ScriptedEntrant("good")
    result = _play([bad, good], tmp_path)
    assert [(f.seat, f.kind, f.round, f.turn) for f in result.faults] == [(0, "timeout", 1, result.faults[0].turn)]
    assert result.faults[0].turn >= 2
    assert result.forfeits == (0,) and result.ranks == (2, 1)
    assert bad.ended and "timeout" in (bad.ended[0] or "")
    # After its fault the bot gets no more messages in this game, not even game_end.
    assert bad.received[-1]["type"] == "turn"
    assert good.received[-1]["type"] == "game_end" and good.received[-1]["forfeits"] == [0]
    history = [h for m in good.received if m["type"] == "round_end" for h in m["history"]]
    assert any(h["seat"] == 0 and h["action"] == "drop" and h.get("forfeit") for h in history)
    assert verify_log(read_log(tmp_path / "t1.jsonl")).ok


def test_illegal_discard_is_refused_and_forfeits(tmp_path: Path) -> None:
    def script(msg: dict[str, Any]) -> Any:
        if msg["type"] == "deal":
            return {"type": "discard", "cards": [23, 23, 23, 23]}
        return None

    result = _play([ScriptedEntrant("good"), ScriptedEntrant("bad", script)], tmp_path)
    assert [(f.seat, f.kind, f.round, f.turn) for f in result.faults] == [(1, "illegal_discard", 1, 0)]
    assert "exactly 3 cards" in result.faults[0].detail
    assert result.faults[0].line == '{"type": "discard", "cards": [23, 23, 23, 23]}'
    assert verify_log(read_log(tmp_path / "t1.jsonl")).ok


def test_fault_while_notified_forfeits(tmp_path: Path) -> None:
    def on_notify(msg: dict[str, Any]) -> Any:
        return BotCrashed("the bot closed its input") if msg["type"] == "round_end" else None

    result = _play([ScriptedEntrant("a", notify_fault=on_notify), ScriptedEntrant("b")], tmp_path)
    assert [(f.seat, f.kind, f.round) for f in result.faults] == [(0, "crash", 1)]
    assert result.forfeits == (0,)
    assert verify_log(read_log(tmp_path / "t1.jsonl")).ok


def test_fault_after_the_game_is_over_is_recorded_but_the_result_stands(tmp_path: Path) -> None:
    def on_notify(msg: dict[str, Any]) -> Any:
        return BotCrashed("the bot closed its input") if msg["type"] == "game_end" else None

    result = _play([ScriptedEntrant("a", notify_fault=on_notify), ScriptedEntrant("b")], tmp_path)
    assert [f.kind for f in result.faults] == ["crash"]
    assert result.forfeits == ()
    assert verify_log(read_log(tmp_path / "t1.jsonl")).ok


def test_an_exit_after_dropping_out_of_the_last_round_forfeits(tmp_path: Path) -> None:
    """A bot that drops out of round 2 and exits has nothing more to answer, but the game goes on: its exit is
    a fault found before the next turn, so it forfeits and ranks below the others."""

    def drop_in_round_2(msg: dict[str, Any]) -> Any:
        return {"type": "drop"} if msg["type"] == "turn" and msg["round"] == 2 and msg["last"] else None

    def dropped(msg: dict[str, Any]) -> bool:
        return msg["type"] == "turn" and msg["round"] == 2 and bool(msg["last"])

    leaver = ScriptedEntrant("a", drop_in_round_2, exit_after=dropped)
    result = _play([leaver, ScriptedEntrant("b"), ScriptedEntrant("c")], tmp_path)
    assert [(f.seat, f.kind, f.round, f.detail) for f in result.faults] == [
        (0, "crash", 2, "the bot exited: exit code 3")
    ]
    assert result.forfeits == (0,)
    assert result.ranks[0] == 3
    assert leaver.ended and "you forfeit game t1" in str(leaver.ended[0])
    assert verify_log(read_log(tmp_path / "t1.jsonl")).ok


def test_four_seats_two_forfeit(tmp_path: Path) -> None:
    def crash_on_deal(msg: dict[str, Any]) -> Any:
        return BotCrashed("the bot exited") if msg["type"] == "deal" else None

    entrants = [ScriptedEntrant("a"), ScriptedEntrant("b", crash_on_deal), ScriptedEntrant("c", crash_on_deal)]
    entrants.append(ScriptedEntrant("d"))
    result = _play(entrants, tmp_path)
    assert result.forfeits == (1, 2)
    assert set(result.ranks[1:3]) <= {3, 4} and set(result.ranks[::3]) <= {1, 2}
    assert verify_log(read_log(tmp_path / "t1.jsonl")).ok


def test_impossible_ruleset_raises_before_any_bot_is_contacted(tmp_path: Path) -> None:
    a, b = ScriptedEntrant("a"), ScriptedEntrant("b")
    with pytest.raises(RulesetError):
        trio.run(lambda: play_game([a, b], game_id="x", ruleset=Ruleset(hand_size=40), seed=1))
    assert a.received == []


def test_seed_and_deal_together_are_refused() -> None:
    deal = new_game(2, seed=1).deal
    with pytest.raises(ValueError, match="not both"):
        trio.run(lambda: play_game([ScriptedEntrant("a"), ScriptedEntrant("b")], game_id="x", seed=1, deal=deal))


def test_illegal_move_reason_reaches_the_bot(tmp_path: Path) -> None:
    def script(msg: dict[str, Any]) -> Any:
        if msg["type"] == "turn" and msg["last"] is not None:
            return {"type": "play", "value": 1 if 1 not in msg["hand"] else 2, "count": 5, "bonus": 0}
        return None

    bad = ScriptedEntrant("bad", script)
    result = _play([bad, ScriptedEntrant("good")], tmp_path)
    assert result.faults[0].kind == "illegal_move"
    assert bad.ended[0] is not None and bad.ended[0].startswith("illegal move: ")
    assert "hold" in result.faults[0].detail
