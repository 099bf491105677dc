"""Verdicts that do not depend on the listing order, with real sample bots (issue 24).

Before the seat orders of ``referee/contest/seating.py`` every deal was played in the rotations of the listing
order, so an entrant listed after another always acted right after it, and that seat relation decided results: two
copies of one deterministic bot came out apart (the copy listed second ahead by 0.67 points a game, its interval
excluding 0, in both orders), and swapping two entrants of a manifest swapped which of them was ahead, each time
beyond the interval. Three checks, each in two listings of the same field with the same ``--seed``:

- ``test_listing_order_changes_nothing_at_one_table``: two copies of greedy and heuristic at one table, listed two
  ways: the same games, so the same standings name by name. Cheap, and it fails with the old seats.
- ``test_two_copies_are_level_in_both_listing_orders``: two pairs of copies (``a``, ``b`` of sample_bots/greedy.py,
  ``h``, ``i`` of heuristic.py), each pair listed both ways, in round robin, balanced and race: nothing the
  standings state separates two copies.
- ``test_swapping_two_entrants_changes_no_verdict``: four different bots, two of them close (greedy and greedy with
  ``--noise``), from a manifest and from the manifest with those two swapped: no pair is stated ahead one way in one
  run and the other way in the other.

"Stated ahead" (``_claims``) is any of what the standings say beyond their uncertainty: the paired score difference's
95% interval excludes 0, the matchpoint intervals do not overlap, or the standings call one place separated from the
next (in a race: proven ahead, its anytime-valid tests). A listing bias shows in each of these once it is large
against the interval. At the sizes of the second and third checks (two copies share 8 deals in round robin and in
balanced, about 40 in the race) that takes a bias of about 2 points a game: with the old seats patched in (every
block in the rotations of its table's listing order) they pass, while the first check fails. The old seats' bias,
about 0.7 points a game, needs about 100 shared deals to show beyond a 95% interval (the first check's docstring).

The two-copies runs use deterministic bots and a fixed deal secret, so each is the same at every run: a fixed point,
not a new 5% draw at every CI run (with random_bot and fresh deals, 1 in 30 round robins of a similar field had the
copies' paired interval miss 0). The swap test's bots are random and its deals fresh; a contradiction between its two
runs needs two errors in opposite directions.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest

SAMPLE_BOTS = Path(__file__).resolve().parents[2] / "sample_bots"

#: Each format's options. Balanced: 8 shared deals, as in the round robin (at 4, the t interval of the copies' paired
#: difference, on 3 degrees of freedom, missed 0 in one of two trial runs). The race can never settle the order of two
#: identical copies, so it stops at --max-games, sized to about 20 s of CPU a run here; --top 3 makes both pairs
#: of copies ones the race tries to settle (the heuristic copies first and second, a greedy copy third).
FORMATS = {
    "round-robin": ["--games", "4"],
    "balanced": ["--format", "balanced", "--tables-per-entrant", "12"],
    "race": ["--format", "race", "--top", "3", "--max-games", "240"],
}

#: The swap test's field: name -> (sample bot, its arguments). greedy and noisy are the close pair it swaps.
SWAP_FIELD = {
    "heuristic": ("heuristic.py", ""),
    "greedy": ("greedy.py", ""),
    "noisy": ("greedy.py", " --noise 0.1"),
    "random": ("random_bot.py", ""),
}


#: The two-copies field: two pairs of copies of deterministic sample bots, so that with a fixed deal secret every run
#: is the same (the check is then a fixed point, not a 5% draw at every CI run).
COPIES = {"a": "greedy.py", "b": "greedy.py", "h": "heuristic.py", "i": "heuristic.py"}
PAIRS = (("a", "b"), ("h", "i"))
#: The deal secret of the two-copies runs (any fixed value: it is not tuned to pass).
SECRET = "5eed" * 16


def _copies(folder: Path) -> dict[str, Path]:
    folder.mkdir()
    for name, source in COPIES.items():
        shutil.copy(SAMPLE_BOTS / source, folder / f"{name}.py")
    (folder / "secret.hex").write_text(SECRET + "\n")
    return {name: folder / f"{name}.py" for name in COPIES}


def _manifest(folder: Path, names: list[str]) -> Path:
    """A bots.toml in ``folder`` listing the ``SWAP_FIELD`` entrants ``names`` in that order."""
    folder.mkdir(exist_ok=True)
    tables = []
    for name in names:
        source, arguments = SWAP_FIELD[name]
        shutil.copy(SAMPLE_BOTS / source, folder / source)
        tables.append(f'[[bot]]\nname = "{name}"\ncommand = "{source}{arguments}"\n')
    path = folder / f"bots-{'-'.join(names)}.toml"
    path.write_text("\n".join(tables))
    return path


def _run(entrants: list[str], out: Path, options: list[str]) -> dict[str, Any]:
    command = [sys.executable, "-m", "referee", "run", *entrants, "-k", "3", "--seed", "7", "--jobs", "2"]
    command += ["--sandbox", "none", "--move-time", "5", "--out", str(out), *options]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    data: dict[str, Any] = json.loads((out / "standings.json").read_text())
    return data


def _claims(data: dict[str, Any]) -> set[tuple[str, str]]:
    """The pairs (x, y) the standings state x ahead of y beyond their uncertainty: the paired score difference's 95%
    interval excludes 0 (lower scores are better), the matchpoint intervals do not overlap, or x's place is separated
    from y's, the next one."""
    entrants = data["entrants"]
    claims = set()
    for x, row in data["head_to_head_score_diff"].items():
        for y, paired in row.items():
            if paired["score_diff_ci95"] is not None and paired["score_diff_ci95"][1] < 0:
                claims.add((x, y))
    for e in entrants:
        for f in entrants:
            if e["matchpoints_ci95"][0] > f["matchpoints_ci95"][1]:
                claims.add((e["name"], f["name"]))
    for e, f in pairwise(entrants):
        if e["separated_from_next"]:
            claims.add((e["name"], f["name"]))
    return claims


def _level(data: dict[str, Any], x: str, y: str) -> None:
    """The copies ``x`` and ``y`` end level: nothing the standings state puts one ahead of the other."""
    assert data["head_to_head_score_diff"][x][y]["deals"] >= 2, "the copies met"
    between = _claims(data) & {(x, y), (y, x)}
    assert not between, f"the standings put one copy ahead of the other: {between}"
    race = data.get("race")
    if race is not None:  # the race's own verdict: no order between the copies, not even up to its margin
        assert race["games"] > 0
        (x_low, x_high), (y_low, y_high) = race["bounds"][x], race["bounds"][y]
        assert x_low <= y_high and y_low <= x_high, "the copies' confidence sequences overlap"
        if race["settled"] and {x, y} <= set(race["order"]):
            assert {x, y} in map(set, race["within_margin"]), "a settled order holds the copies only as a tie"


@pytest.mark.parametrize("fmt", list(FORMATS))
def test_two_copies_are_level_in_both_listing_orders(tmp_path: Path, fmt: str) -> None:
    """Fails when a listing order favours one copy by more than the interval: the copy listed second acting after
    the other at every shared table, its paired score difference, then its matchpoints, come out ahead beyond their
    intervals (in a race, proven ahead, or settled ahead other than as a tie)."""
    bots = _copies(tmp_path / "bots")
    secret = ["--deal-secret", str(tmp_path / "bots" / "secret.hex")]
    for i, listing in enumerate([["a", "b", "h", "i"], ["b", "i", "a", "h"]]):  # each pair in both orders
        data = _run([str(bots[name]) for name in listing], tmp_path / f"out{i}", FORMATS[fmt] + secret)
        for x, y in PAIRS:
            _level(data, x, y)


def test_listing_order_changes_nothing_at_one_table(tmp_path: Path) -> None:
    """Two copies of greedy and the heuristic bot (all deterministic), a round robin of one table of 3, the same seed
    and deal secret, listed (a, b, h) and (b, a, h): the seat orders come from the names, never the listing, so every
    game is the same and the standings are the same name by name (and the copies level). Fails with listing-order
    seats on any deal where who acts after whom matters: the rotations of (a, b, h) are other games than those of
    (b, a, h), and the copies' figures swap. Measured with those seats patched in, at --games 100: the copy listed
    second 0.335 [0.288, 0.382] matchpoints, separated from the other's 0.168 [0.119, 0.216], and ahead by 0.94
    [0.38, 1.50] points a game, in both orders; with the seats of ``seating``, 0.287 and 0.215, not separated, and
    -0.30 [-0.89, 0.29], the same in both orders."""
    bots = _copies(tmp_path / "bots")
    secret = ["--deal-secret", str(tmp_path / "bots" / "secret.hex"), "--games", "4"]
    runs = [_run([str(bots[name]) for name in listing], tmp_path / f"out{i}", secret) for i, listing in
            enumerate([["a", "b", "h"], ["b", "a", "h"]])]  # fmt: skip
    for data in runs:
        _level(data, "a", "b")
    first, second = ({e["name"]: e for e in data["entrants"]} for data in runs)
    assert first == second, "each entrant's standing is the same in both listings"
    for table in ("head_to_head", "head_to_head_games", "head_to_head_score_diff"):
        assert runs[0][table] == runs[1][table], f"{table} is the same in both listings"


@pytest.mark.parametrize("fmt", ["round-robin", "balanced"])
def test_swapping_two_entrants_changes_no_verdict(tmp_path: Path, fmt: str) -> None:
    """Fails when the listing decides a verdict: greedy and noisy (greedy with a tenth of its moves random) are
    close, so a seat relation fixed by the listing would decide which of them is ahead, and swapping them would
    swap that verdict (one run stating greedy ahead beyond the interval, the other noisy)."""
    listings = [["heuristic", "greedy", "noisy", "random"], ["heuristic", "noisy", "greedy", "random"]]
    claims = []
    for i, names in enumerate(listings):
        manifest = _manifest(tmp_path / "bots", names)
        data = _run(["--manifest", str(manifest)], tmp_path / f"out{i}", FORMATS[fmt])
        assert {e["name"] for e in data["entrants"]} == set(SWAP_FIELD)
        claims.append(_claims(data))
    assert claims[0] and claims[1], "each run separates some pair (random is behind everyone)"
    contradicted = {(x, y) for x, y in claims[0] if (y, x) in claims[1]}
    assert not contradicted, f"swapping greedy and noisy reversed a verdict: {contradicted}"
