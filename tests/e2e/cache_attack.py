"""The contest of the page-cache attack (``tests/bots/cache_signal.py`` against two honest bots at a table of three)
and the count of the hands the attacker learned: used by ``test_cache_channel.py`` and
``bench/bench_cache_channel.py``."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from referee.runner.gamelog import log_content, read_header

BOTS = Path(__file__).resolve().parents[1] / "bots"
PAGE = 4096
SLOT = 5 * 16 * PAGE  # cache_signal.py: five windows of 16 pages a slot
LEARNED = re.compile(r"cache: learned (\S+) (\d) ([\d ]+)$")


def contest(folder: Path, slots: int, **env: str) -> Path:
    """Write the contest in ``folder``: the attacker in a folder of its own, with the file of ``slots`` slots it
    signals through (written, then dropped from the page cache), with ``env`` (CACHE_MODE, CACHE_KEY), and two
    honest bots beside the manifest. The file's path."""
    attacker = folder / "attacker"
    attacker.mkdir(parents=True)
    shutil.copy(BOTS / "cache_signal.py", attacker / "cache_signal.py")
    medium = attacker / "cache_medium.bin"
    with open(medium, "wb") as f:
        f.write(os.urandom(slots * SLOT))
        f.flush()
        os.fsync(f.fileno())
        os.posix_fadvise(f.fileno(), 0, 0, os.POSIX_FADV_DONTNEED)
    for name in ("honest.py", "_base.py"):
        shutil.copy(BOTS / name, folder / name)
    table = ", ".join(f'{k} = "{v}"' for k, v in env.items())
    (folder / "bots.toml").write_text(
        f'[[bot]]\nname = "attacker"\ncommand = "cache_signal.py"\ncwd = "attacker"\nenv = {{ {table} }}\n'
        '[[bot]]\nname = "a"\ncommand = "honest.py"\n[[bot]]\nname = "b"\ncommand = "honest.py"\n'
    )
    return medium


def logs_by_wire_id(games: Path) -> dict[str, Path]:
    """The game logs of ``games`` (plain or compressed, with their wire lines: ``--logs full``) by the id their bots
    were sent (the first ``send`` event's ``game``)."""
    out = {}
    for log in games.glob("*.jsonl*"):
        for line in log_content(log).decode().splitlines():
            if '"event":"send"' in line:
                out[json.loads(line)["msg"]["game"]] = log
                break
    return out


def run_contest(folder: Path, games: int, jobs: int, seed: int) -> Path:
    """Run ``referee run`` in bubblewrap on the contest of ``folder`` (its ``bots.toml``); the results folder."""
    args = ["--manifest", "bots.toml", "--games", str(games), "--jobs", str(jobs), "--seed", str(seed)]
    subprocess.run(
        [sys.executable, "-m", "referee", "run", *args, "--sandbox", "bwrap", "-o", "results"],
        cwd=folder,
        capture_output=True,
        check=True,
        timeout=600,
    )
    return folder / "results"


def learned(results: Path, pattern: re.Pattern[str] = LEARNED) -> tuple[int, int, str]:
    """(right, wrong, what the attacker said) of a finished run: a hand it reported (a line ``pattern`` matches:
    the game's wire id, the round, the cards) is right when it is another seat's hand of that round of that game,
    in the game's log."""
    said = "".join(p.read_text() for p in (results / "bots").glob("attacker.*.log"))
    logs = logs_by_wire_id(results / "games")
    right = wrong = 0
    for match in map(pattern.match, said.splitlines()):
        if match is None:
            continue
        game, round_, hand = match.group(1, 2, 3)
        header = read_header(logs[game])
        seats = header.deal[int(round_) - 1]
        others = [sorted(h) for seat, h in enumerate(seats) if header.names[seat] != "attacker"]
        if sorted(map(int, hand.split())) in others:
            right += 1
        else:
            wrong += 1
    return right, wrong, said
