"""Real misbehaving bot files against an honest one, in both sandbox modes.

Each misbehaving bot sits at seat 0 and must be forfeited with the right fault kind; the honest bot at seat 1
finishes the game; the log re-verifies through the engine; afterwards no process of the game remains.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from referee.engine import STANDARD, seeded_deal
from referee.runner import Limits

from .helpers import MODES, assert_verified, bot, config, new_mark, pids_enforced, processes_with, run_games

MiB = 1024 * 1024

# bot file, expected fault kind, words expected in the fault's detail, extra environment
FAULTS = {
    "crash_start": ("startup", "exit code 3", {}),
    "crash_mid": ("crash", "exit code 1", {}),
    "hang": ("timeout", "deadline", {}),
    "slow": ("timeout", "deadline", {"SLOW_SECONDS": "1.5"}),
    "invalid_json": ("invalid_json", "not valid JSON", {}),
    "not_object": ("not_object", "array", {}),
    "unknown_type": ("unknown_type", "attack", {}),
    "wrong_type": ("wrong_type", "discard", {}),
    "bad_fields": ("bad_field", "value", {}),
    "old_protocol": ("protocol_version", "protocol 2", {}),
    "long_line": ("line_too_long", "65536", {}),
    "flood": ("unsolicited", "no reply was awaited", {}),
    "closed_stdout": ("crash", "closed its output", {}),
    "fork_child": ("crash", "exit code 1", {}),
    "ignore_term": ("timeout", "deadline", {}),
}

ILLEGAL = {
    "opening": ("illegal_move", "opens with the 1"),
    "not_held": ("illegal_move", "you hold no"),
    "too_many": ("illegal_move", "but hold"),
    "too_low": ("illegal_move", "lower than last"),
    "bonus_over": ("illegal_move", "bonus chips but hold"),
    "force_alone": ("illegal_move", "another player still playing"),
    "discard_count": ("illegal_discard", "exactly 3 cards"),
    "discard_one": ("illegal_discard", "the 1 may not be discarded"),
    "discard_unheld": ("illegal_discard", "but hold no"),
}


def _seed_with_one_at(seat: int) -> int:
    """A seed whose first round deals the 1 to ``seat`` (of two)."""
    return next(s for s in range(100) if 1 in seeded_deal(s, 2, STANDARD)[0][seat])


def _check_forfeit(tmp_path: Path, mode: str, name: str, kind: str, words: str, env: dict[str, str], **cfg: object):
    mark = new_mark()
    seed = _seed_with_one_at(0) if env.get("ILLEGAL") in ("opening", "discard_one") else 1
    specs = [bot(name, mark, **env), bot("honest", mark)]
    (result,), _ = run_games(specs, config(mode, **cfg), tmp_path, seeds=[seed])
    faults = [(f.seat, f.kind) for f in result.faults]
    assert faults == [(0, kind)], result.faults
    assert words in result.faults[0].detail
    assert result.forfeits == (0,)
    assert result.ranks == (2, 1)
    assert_verified(result)
    assert processes_with(mark) == []
    return result


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", sorted(FAULTS))
def test_fault_is_forfeited_with_its_kind(tmp_path: Path, mode: str, name: str) -> None:
    kind, words, env = FAULTS[name]
    if name == "closed_stdout" and mode == "bwrap":
        # bubblewrap's own processes hold the bot's stdout open, so closing it looks like silence.
        kind, words = "timeout", "deadline"
    result = _check_forfeit(tmp_path, mode, name, kind, words, env)
    if kind in ("startup", "protocol_version"):
        assert result.faults[0].round == 0
    else:
        assert result.faults[0].round >= 1


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("illegal", sorted(ILLEGAL))
def test_each_illegal_move_and_discard(tmp_path: Path, mode: str, illegal: str) -> None:
    kind, words = ILLEGAL[illegal]
    result = _check_forfeit(tmp_path, mode, "illegal", kind, words, {"ILLEGAL": illegal})
    assert result.faults[0].line is not None  # the offending reply is kept


@pytest.mark.parametrize("mode", MODES)
def test_pass_when_forced_is_illegal(tmp_path: Path, mode: str) -> None:
    mark = new_mark()
    specs = [bot("forcer", mark), bot("illegal", mark, ILLEGAL="pass_forced")]
    (result,), _ = run_games(specs, config(mode), tmp_path, seeds=[1])
    assert [(f.seat, f.kind) for f in result.faults] == [(1, "illegal_move")]
    assert "you are forced" in result.faults[0].detail
    assert_verified(result)
    assert processes_with(mark) == []


@pytest.mark.parametrize("mode", MODES)
def test_memory_hog_fails_at_its_address_space_limit(tmp_path: Path, mode: str) -> None:
    limits = Limits(address_space=768 * MiB)
    _check_forfeit(tmp_path, mode, "memory_hog", "crash", "exit code 1", {}, limits=limits, move_time=5.0)


@pytest.mark.parametrize("mode", MODES)
def test_fork_bomb_is_contained(tmp_path: Path, mode: str) -> None:
    if not pids_enforced(mode):
        pytest.skip("no process limit can be enforced here (root without a writable pids cgroup)")
    result = _check_forfeit(tmp_path, mode, "fork_bomb", "timeout", "deadline", {}, limits=Limits(processes=32))
    assert result.faults[0].round == 1


@pytest.mark.parametrize("mode", MODES)
def test_stderr_flood_is_capped_and_not_a_fault(tmp_path: Path, mode: str) -> None:
    mark = new_mark()
    cap = 256 * 1024
    specs = [bot("stderr_flood", mark), bot("honest", mark)]
    (result,), _ = run_games(specs, config(mode, stderr_cap=cap, move_time=2.0), tmp_path, seeds=[1])
    assert result.faults == ()
    assert_verified(result)
    log = tmp_path / "seat0.stderr_flood.stderr.log"
    size = log.stat().st_size
    assert cap <= size <= cap + 200
    assert log.read_bytes().endswith(b"the rest was dropped]\n")
    assert processes_with(mark) == []


@pytest.mark.parametrize("mode", MODES)
def test_slow_bot_within_its_time_bank_is_no_fault(tmp_path: Path, mode: str) -> None:
    mark = new_mark()
    specs = [bot("slow", mark, SLOW_SECONDS="0.8"), bot("honest", mark)]
    (result,), _ = run_games(specs, config(mode, time_bank=1.0), tmp_path, seeds=[1])
    assert result.faults == ()
    assert_verified(result)
