"""Futexes on libc as a channel between sandboxes: two bots at one table (colluding entrants) must not pass a hand
through threads parked at words of a file both map (``tests/bots/futex_signal.py``)."""

from __future__ import annotations

import platform
import re
from dataclasses import replace
from pathlib import Path

import pytest

from referee.runner.gamelog import read_header
from referee.runner.syscall_filter import filter_problem

from .helpers import HAVE_BWRAP, assert_verified, bot, config, new_mark, processes_with, run_games

pytestmark = [
    pytest.mark.sandbox,
    pytest.mark.skipif(not HAVE_BWRAP, reason="bwrap absent"),
    pytest.mark.skipif(filter_problem() is not None or platform.machine() != "x86_64", reason="no seccomp filter"),
]

LEARNED = re.compile(r"futex: learned \S+ (\d) ([\d ]+) held", re.MULTILINE)


def _futex_game(mode: str, tmp_path: Path) -> tuple[str, str, list[tuple[int, list[int]]], list[list[int]]]:
    """One game, the holder in seat 0 and the prober in seat 1: what each said, the hands the prober reported
    (round, hand) and the holder's hands by round in the game's log."""
    mark = new_mark()
    roles = {"holder": "hold", "prober": "probe"}
    seats = [replace(bot("futex_signal", mark, FUTEX_ROLE=role), name=name) for name, role in roles.items()]
    (result,), _ = run_games(seats, config(mode), tmp_path)
    assert result.faults == () and result.log_path is not None
    assert_verified(result)
    assert processes_with(mark) == []
    held = [sorted(hands[0]) for hands in read_header(result.log_path).deal]
    probed = (tmp_path / "seat1.prober.stderr.log").read_text()
    reported = [(int(r), sorted(map(int, h.split()))) for r, h in LEARNED.findall(probed)]
    return (tmp_path / "seat0.holder.stderr.log").read_text(), probed, reported, held


def test_bots_cannot_pass_hands_through_futexes_on_libc(tmp_path: Path) -> None:
    """Inside bubblewrap a wait without ``FUTEX_PRIVATE_FLAG`` returns at once with EAGAIN (as when the word
    changed), so no thread of the holder stays parked on libc, the prober's wakes find nobody, and the game
    goes on."""
    held, probed, reported, _ = _futex_game("bwrap", tmp_path)
    assert "futex: park refused (EAGAIN)" in held
    assert "futex: parked 0" in held
    assert reported == [], probed
    assert "futex: nothing read" in probed


def test_futex_signal_bots_get_through_without_sandbox(tmp_path: Path) -> None:
    """The control: outside the sandbox the prober reads the holder's hand of every round it looks at."""
    _, probed, reported, hands = _futex_game("none", tmp_path)
    assert reported, probed
    for round_, hand in reported:
        assert hand == hands[round_ - 1]


def test_a_lock_shared_between_a_bots_processes_still_works(tmp_path: Path) -> None:
    """The price of the rule: a bot whose process waits on a lock its child holds (a shared futex wait) spins
    instead of sleeping, but takes the lock once the child lets go, and plays its game."""
    mark = new_mark()
    (result,), _ = run_games([bot("shared_lock", mark), bot("honest", mark)], config("bwrap"), tmp_path)
    assert result.faults == ()
    said = (tmp_path / "seat0.shared_lock.stderr.log").read_text()
    assert re.search(r"shared lock: ok after 0\.[3-9] s", said), said
