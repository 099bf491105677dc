"""The page cache as a channel between the processes of one entrant: the seat rotations of a deal must not pass
hands through which pages of a file are in memory (``tests/bots/cache_signal.py``, in ``direct`` mode: the
attack that needs no clock, with ``posix_fadvise`` to drop pages and ``mincore`` to see them)."""

from __future__ import annotations

import ctypes
import mmap
import os
import subprocess
import sys
from pathlib import Path

import pytest

from referee.runner.sandbox import seccomp_usable

from .cache_attack import PAGE, contest, learned
from .helpers import HAVE_BWRAP

pytestmark = [
    pytest.mark.sandbox,
    pytest.mark.skipif(not HAVE_BWRAP, reason="bwrap absent"),
    pytest.mark.skipif(HAVE_BWRAP and not seccomp_usable(), reason="the seccomp filter cannot be used here"),
]


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
    medium = contest(tmp_path, 4, CACHE_MODE="direct")
    probes = [w * 16 for w in range(5)]  # the first page of each window of slot 0: never a bit, so never loaded
    with open(medium, "rb") as f:
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
    right, wrong, said = learned(tmp_path / "results")
    assert right == wrong == 0, said
    for reader, error in (("mincore", "ENOSYS"), ("nowait", "ENOTSUP"), ("cachestat", "ENOSYS")):
        assert f"cache: reader {reader} refused ({error})" in said
    assert "cache: eraser fadvise returned 0" in said
    assert all(_residency(medium, probes))  # what the eraser was to drop is still cached
    assert len(list((tmp_path / "results" / "games").glob("*.jsonl*"))) == 3
