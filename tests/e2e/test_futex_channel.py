"""Futexes on libc as a channel between sandboxes: two bots at one table (colluding entrants) must not pass a hand
through threads parked at words of a file both map (``tests/bots/futex_signal.py``)."""

from __future__ import annotations

import os
import platform
import re
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest

from referee.runner import BotSpec, SandboxMode
from referee.runner.gamelog import read_header
from referee.runner.sandbox import LAUNCHER_ENV, bot_argv
from referee.runner.syscall_filter import filter_fd, filter_problem

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


FUTEX_PROBE = r"""
import ctypes, errno
libc = ctypes.CDLL(None, use_errno=True)
word = ctypes.c_uint32(0)
timeout = (ctypes.c_long * 2)(0, 1000000)  # 1 ms
def call(nr, *args):
    done = libc.syscall(ctypes.c_long(nr), *[ctypes.c_long(a) for a in args])
    return "ok" if done >= 0 else errno.errorcode[ctypes.get_errno()]
def wait(op):  # futex(&word, op, 0, 1 ms, 0, every bit): the word holds 0, so a timeout or the filter ends it
    return call(202, ctypes.addressof(word), op, 0, ctypes.addressof(timeout), 0, -1)
print("wait", wait(0))                                   # x86_64 system call numbers
print("wait_high_bits", wait((1 << 32) | 0))
print("wait_bitset_realtime", wait(9 | 256))
second = ctypes.addressof(word) + 4  # FUTEX_WAIT_REQUEUE_PI's target word
print("wait_requeue_pi", call(202, ctypes.addressof(word), 11, 0, ctypes.addressof(timeout), second))
print("wait_private", wait(128))
print("wait_bitset_private", wait(9 | 128))
print("wake", call(202, ctypes.addressof(word), 1, 1))
print("futex_waitv", call(449, 0, 0, 0, 0, 0))
print("futex_wait", call(455, ctypes.addressof(word), 0, -1, 2, ctypes.addressof(timeout), 1))
print("futex_requeue", call(456, 0, 0, 0, 0))
"""

#: The same waits through the 32-bit entry (``int 0x80``) of a 64-bit program: ``futex`` (240) and ``futex_time64``
#: (422), on a word below 4 GiB; each line is the errno the call returned.
FUTEX_PROBE_32 = r"""
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
static long sys32(long nr, long a, long b, long c, long d) {
    long ret;
    asm volatile("int $0x80" : "=a"(ret) : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d) : "memory");
    return -ret;
}
int main(void) {
    uint32_t *w = mmap(0, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT, -1, 0);
    int32_t *ts32 = (int32_t *)(w + 16);
    int64_t *ts64 = (int64_t *)(w + 32);
    ts32[0] = 0, ts32[1] = 1000000, ts64[0] = 0, ts64[1] = 1000000;
    printf("futex %ld\n", sys32(240, (long)w, 0, 0, (long)ts32));
    printf("futex_private %ld\n", sys32(240, (long)w, 128, 0, (long)ts32));
    printf("futex_time64 %ld\n", sys32(422, (long)w, 0, 0, (long)ts64));
    printf("futex_time64_private %ld\n", sys32(422, (long)w, 128, 0, (long)ts64));
    return 0;
}
"""


def _in_sandbox(argv: tuple[str, ...], folder: Path) -> dict[str, str]:
    """What ``argv`` printed (``name value`` lines), run in bubblewrap with the filter."""
    fd = filter_fd()
    assert fd is not None, filter_problem()
    try:
        command = bot_argv(BotSpec("probe", argv, folder), SandboxMode.BWRAP, seccomp_fd=fd)
        done = subprocess.run(command, pass_fds=(fd,), capture_output=True, text=True, timeout=60, env=LAUNCHER_ENV)
    finally:
        os.close(fd)
    assert done.returncode == 0, done.stderr
    return dict(line.split() for line in done.stdout.splitlines())


def test_the_filter_refuses_every_shared_futex_wait(tmp_path: Path) -> None:
    """Each wait without ``FUTEX_PRIVATE_FLAG`` returns EAGAIN at once (with high bits in the op, which the kernel
    drops, and with ``FUTEX_CLOCK_REALTIME``, too), the private ones time out as the kernel has them, a wake goes
    through, and the futex calls whose flags the filter cannot read fail with ENOSYS."""
    said = _in_sandbox((sys.executable, "-c", FUTEX_PROBE), tmp_path)
    assert said == {
        **dict.fromkeys(("wait", "wait_high_bits", "wait_bitset_realtime", "wait_requeue_pi"), "EAGAIN"),
        **dict.fromkeys(("wait_private", "wait_bitset_private"), "ETIMEDOUT"),
        "wake": "ok",
        **dict.fromkeys(("futex_waitv", "futex_wait", "futex_requeue"), "ENOSYS"),
    }


@pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc absent")
def test_the_filter_refuses_shared_futex_waits_of_32_bit_calls(tmp_path: Path) -> None:
    """The 32-bit ``futex`` and ``futex_time64`` (a 64-bit program's ``int 0x80``) get the same rule."""
    (tmp_path / "probe.c").write_text(FUTEX_PROBE_32)
    subprocess.run(["gcc", "-O1", "-o", str(tmp_path / "probe"), str(tmp_path / "probe.c")], check=True)
    outside = subprocess.run([str(tmp_path / "probe")], capture_output=True, text=True, check=True).stdout
    if "38" in outside:
        pytest.skip("no 32-bit system calls on this kernel")
    said = _in_sandbox((str(tmp_path / "probe"),), tmp_path)
    eagain, etimedout = "11", "110"
    assert said == {
        "futex": eagain,
        "futex_private": etimedout,
        "futex_time64": eagain,
        "futex_time64_private": etimedout,
    }
