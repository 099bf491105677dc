"""The page cache as a channel between the processes of one entrant: the seat rotations of a deal must not pass
hands through which pages of a file are in memory (``tests/bots/cache_signal.py``, in ``direct`` mode: the
attack that needs no clock, with ``posix_fadvise`` to drop pages and ``mincore`` to see them)."""

from __future__ import annotations

import ctypes
import json
import mmap
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from referee.runner.gamelog import read_header
from referee.runner.sandbox import seccomp_usable

from .helpers import BOTS, HAVE_BWRAP

pytestmark = [
    pytest.mark.sandbox,
    pytest.mark.skipif(not HAVE_BWRAP, reason="bwrap absent"),
    pytest.mark.skipif(HAVE_BWRAP and not seccomp_usable(), reason="the seccomp filter cannot be used here"),
]

PAGE = 4096
SLOT = 5 * 16 * PAGE  # cache_signal.py: five windows of 16 pages a slot
LEARNED = re.compile(r"cache: learned (\S+) (\d) ([\d ]+)$")


def logs_by_wire_id(games: Path) -> dict[str, Path]:
    """The game logs of ``games`` by the id their bots were sent (the first ``send`` event's ``game``)."""
    out = {}
    for log in games.glob("*.jsonl"):
        with open(log, encoding="utf-8") as f:
            for line in f:
                if '"event":"send"' in line:
                    out[json.loads(line)["msg"]["game"]] = log
                    break
    return out


def _contest(tmp_path: Path, mode: str) -> Path:
    """A contest of the attacker (in a folder of its own, with the file it signals through) and two honest bots."""
    attacker = tmp_path / "attacker"
    attacker.mkdir()
    shutil.copy(BOTS / "cache_signal.py", attacker / "cache_signal.py")
    medium = attacker / "cache_medium.bin"
    with open(medium, "wb") as f:
        f.write(os.urandom(4 * SLOT))
        f.flush()
        os.fsync(f.fileno())
    for name in ("honest.py", "_base.py"):
        shutil.copy(BOTS / name, tmp_path / name)
    env = f'CACHE_MODE = "{mode}"'
    (tmp_path / "bots.toml").write_text(
        f'[[bot]]\nname = "attacker"\ncommand = "cache_signal.py"\ncwd = "attacker"\nenv = {{ {env} }}\n'
        '[[bot]]\nname = "a"\ncommand = "honest.py"\n[[bot]]\nname = "b"\ncommand = "honest.py"\n'
    )
    return medium


def _residency(path: Path, pages: list[int]) -> list[bool]:
    """Whether each of ``pages`` of ``path`` is in the page cache (mincore, outside any sandbox)."""
    libc = ctypes.CDLL(None, use_errno=True)
    with open(path, "rb") as f:
        view = mmap.mmap(f.fileno(), 0, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        anchor = ctypes.c_char.from_buffer(view)
        vec = (ctypes.c_ubyte * (len(view) // PAGE))()
        try:
            assert libc.mincore(ctypes.c_void_p(ctypes.addressof(anchor)), ctypes.c_size_t(len(view)), vec) == 0
        finally:
            del anchor
            view.close()
    return [bool(vec[p] & 1) for p in pages]


def test_the_rotations_of_a_deal_pass_no_hand_through_the_page_cache(tmp_path: Path) -> None:
    """One deal at a table of three, its rotations one after another (``--games 1 --jobs 1``): the attacker's
    process in each rotation reads what its process in the one before left in the cache of a file of its own
    folder. Unfiltered, it learns every other hand it looks for (4 of 4: two rotations after the first, two
    rounds); in the sandbox its readers fail (``ENOSYS``, ``EOPNOTSUPP``) and its eraser drops nothing."""
    medium = _contest(tmp_path, "direct")
    probes = [w * 16 for w in range(5)]  # the first page of each window of slot 0: never a bit, so never loaded
    with open(medium, "rb") as f:
        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
        for page in probes:
            os.pread(f.fileno(), 1, page * PAGE)
    assert all(_residency(medium, probes))
    args = ["run", "--manifest", "bots.toml", "--games", "1", "--jobs", "1", "--seed", "1", "--sandbox", "bwrap"]
    done = subprocess.run(
        [sys.executable, "-m", "referee", *args, "-o", "results"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert done.returncode == 0, done.stderr
    results = tmp_path / "results"
    said = "".join(p.read_text() for p in (results / "bots").glob("attacker.*.log"))
    learned = [m.groups() for m in map(LEARNED.match, said.splitlines()) if m]
    right = 0
    logs = logs_by_wire_id(results / "games")
    for game, round_, hand in learned:
        header = read_header(logs[game])
        others = [sorted(h) for seat, h in enumerate(header.deal[int(round_) - 1]) if header.names[seat] != "attacker"]
        right += sorted(map(int, hand.split())) in others
    assert right == 0 and learned == [], said
    for reader, error in (("mincore", "ENOSYS"), ("nowait", "ENOTSUP"), ("cachestat", "ENOSYS")):
        assert f"cache: reader {reader} refused ({error})" in said
    assert "cache: eraser fadvise returned 0" in said
    assert all(_residency(medium, probes))  # what the eraser was to drop is still cached
    assert len(list((results / "games").glob("*.jsonl"))) == 3
