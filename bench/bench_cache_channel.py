"""What the page cache still leaks between the processes of one entrant, inside the sandbox (issue 25).

Not a test. Runs ``referee run`` on a contest of the attack bot ``tests/bots/cache_signal.py`` and two honest bots
at one table of three, in bubblewrap, once per attack and schedule, and counts the hands the attacker reported
that were really another seat's hand in that round of that game (from the game logs):

- ``direct``: drop pages with ``posix_fadvise``, see them with ``mincore`` / ``RWF_NOWAIT`` / ``cachestat``: the
  attack the seccomp filter closes (expect 0);
- ``timing``: write-once slots, each page read once and timed (a cached page faults in a few microseconds, one
  read from disk takes tens to thousands);
- ``faultaround``: the same slots read without a clock: a fault maps the cached neighbours of a page, which
  ``/proc/self/pagemap`` shows.

Each attack runs on two schedules: one deal (``--games 1 --jobs 1``: the three rotations one after another, so
the newest slot is always the previous rotation's) and three deals (``--games 3 --jobs 2``: the rotations of a
deal with other deals between them, as the referee orders them). The attacker reads the newest slot of the round;
``+id`` keeps a region of slots per deal as its game id tells it (the ids a referee before issue 25 sent numbered a
round robin's games in schedule order: now they tell nothing), ``+table`` a region per table (the names at it: one
deal per table per ``--games``), so it reads the newest slot of its own table.

Run: ``python bench/bench_cache_channel.py`` (about a minute; needs bwrap and libseccomp).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.e2e.cache_attack import contest, learned, run_contest  # noqa: E402


def trial(folder: Path, mode: str, key: str, games: int, jobs: int, seed: int) -> tuple[int, int, int]:
    """(right, wrong, games played) of one run; ``key``: how the attacker tells the deals apart (CACHE_KEY: "id",
    "table", or "" for not at all)."""
    if folder.exists():
        shutil.rmtree(folder)
    contest(folder, 48, CACHE_MODE=mode, **({"CACHE_KEY": key} if key else {}))
    right, wrong, _ = learned(run_contest(folder, games, jobs, seed))
    return right, wrong, len(list((folder / "results" / "games").glob("*.jsonl*")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=3, help="runs of each attack and schedule (default 3)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="cache-channel-") as tmp:
        print(f"{'attack':<18} {'schedule':<26} {'right':>6} {'wrong':>6} {'games':>6} {'right/game':>11}")
        schedules = ((1, 1, "1 deal, rotations in a row"), (3, 2, "3 deals, --jobs 2"))
        attacks = [("direct", ""), ("timing", ""), ("faultaround", ""), ("timing", "id"), ("faultaround", "id")]
        attacks += [("timing", "table"), ("faultaround", "table")]
        for mode, key in attacks:
            for games, jobs, label in schedules[1:] if key else schedules:
                right = wrong = played = 0
                for seed in range(1, args.seeds + 1):
                    r, w, g = trial(Path(tmp) / "contest", mode, key, games, jobs, seed)
                    right, wrong, played = right + r, wrong + w, played + g
                name = mode + (f" +{key}" if key else "")
                print(f"{name:<18} {label:<26} {right:>6} {wrong:>6} {played:>6} {right / played:>11.2f}")


if __name__ == "__main__":
    main()
