"""Hands passed between the processes of one entrant through futexes on libc, inside the sandbox (issue 32).

Not a test. Runs ``referee run`` on a contest of the attack bot ``tests/bots/futex_signal.py`` (``relay``: on each
deal it wakes every word of its round's region of libc, counting the threads an earlier process of the entrant
parked there, then parks threads for its own hand) and two honest bots at one table of three, in bubblewrap, and
counts the hands the attacker reported that were really another seat's hand in that round of that game (from the
game logs). A wrong hand is one that was some other game's or rotation's.

Two schedules: one deal (``--games 1 --jobs 1``: the three rotations one after another, each with a fresh process
of the attacker, so no earlier process is alive to hold a hand) and three deals on two workers (``--games 3
--jobs 2``: two games at once, so a process of the attacker is alive while another plays). And two colluding
entrants at one table (``colluders``: ``hold`` parks its hand on each deal, ``probe`` reads it on its first turn
of the round, beside one honest bot; ``--games 3 --jobs 1``).

The guess rate is the chance of naming another seat's 15 cards of a round exactly without the channel: one of the
``C(54, 15)`` ways to take 15 of the 54 cards the attacker does not hold (fewer with repeated values, never more
than about one in 10^9).

Run: ``python bench/bench_futex_channel.py`` (about a minute; needs bwrap and libseccomp). For the figures before
the seccomp rule, run it on main's code: ``git archive main | tar -x -C /tmp/main`` then ``PYTHONPATH=/tmp/main
python bench/bench_futex_channel.py`` (the ``referee run`` it starts imports main's referee).
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import tempfile
from math import comb
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.ladder import Ladder, VersionState  # noqa: E402
from referee.ladder.serve import ServeOptions, serve  # noqa: E402
from referee.runner.gamelog import read_header  # noqa: E402
from tests.e2e.cache_attack import learned, run_contest  # noqa: E402

BOTS = ROOT / "tests" / "bots"
LEARNED = re.compile(r"futex: learned (\S+) (\d) ([\d ]+) held ([\d ]*)$")


def contest(folder: Path, colluders: bool) -> None:
    """The attacker (and with ``colluders``, its partner) in a folder of its own, honest bots beside the manifest;
    the attacker is the one that reads."""
    attacker = folder / "attacker"
    attacker.mkdir(parents=True)
    shutil.copy(BOTS / "futex_signal.py", attacker / "futex_signal.py")
    for name in ("honest.py", "_base.py"):
        shutil.copy(BOTS / name, folder / name)
    role = 'env = { FUTEX_ROLE = "probe" }\n' if colluders else ""
    partner = (
        '[[bot]]\nname = "partner"\ncommand = "futex_signal.py"\ncwd = "attacker"\nenv = { FUTEX_ROLE = "hold" }\n'
        if colluders
        else '[[bot]]\nname = "b"\ncommand = "honest.py"\n'
    )
    (folder / "bots.toml").write_text(
        f'[[bot]]\nname = "attacker"\ncommand = "futex_signal.py"\ncwd = "attacker"\n{role}'
        f'[[bot]]\nname = "a"\ncommand = "honest.py"\n{partner}'
    )


def trial(folder: Path, games: int, jobs: int, seed: int, colluders: bool) -> tuple[int, int, int]:
    """(right, wrong, games played) of one run."""
    if folder.exists():
        shutil.rmtree(folder)
    contest(folder, colluders)
    right, wrong, _ = learned(run_contest(folder, games, jobs, seed), LEARNED)
    return right, wrong, len(list((folder / "results" / "games").glob("*.jsonl*")))


LADDER_SETTINGS = """[games]
table_sizes = [3]
table_weights = [1]
sandbox = "bwrap"
[matchmaking]
placement_blocks = 2
[submissions]
gate_games = 4
[serve]
jobs = {lanes}
"""


def make_ladder(folder: Path, lanes: int) -> Path:
    """A ladder of the relaying attacker and the three sample bots, at tables of three, with ``lanes`` lanes."""
    lad = folder / "ladder"
    made, _ = Ladder.init(lad)
    made.layout.config.write_text(LADDER_SETTINGS.format(lanes=lanes))
    made.close()
    sources = folder / "src"
    with Ladder.open(lad) as ladder:
        for name, file in [("attacker", BOTS / "futex_signal.py")] + [
            (bot, ROOT / "sample_bots" / f"{bot}.py") for bot in ("heuristic", "greedy", "random_bot")
        ]:
            (sources / name).mkdir(parents=True)
            shutil.copy(file, sources / name / file.name)
            (sources / name / "bot.toml").write_text(f'command = "python {file.name}"\n')
            ladder.add_entrant(name)
            ladder.submit(name, sources / name)
    return lad


async def ladder_window(lad: Path, lanes: int, seconds: float) -> None:
    """Serve until every version is ranked, then ``seconds`` more."""
    options = ServeOptions(jobs=lanes, announce=lambda line: None)
    async with trio.open_nursery() as nursery:
        ladder = await nursery.start(serve, lad, options)
        while not all(v.state in (VersionState.RANKED, VersionState.FAILED) for v in ladder.store.versions()):
            await trio.sleep(0.5)
        await trio.sleep(seconds)
        nursery.cancel_scope.cancel()


def ladder_learned(lad: Path) -> tuple[int, int, int]:
    """(right, wrong, learnable) of the attacker in the ladder's ranked play: a hand it read is right when it is
    another seat's of that round in the game where it held the hand it says; learnable: the rounds of its games
    after a block's first rotation (a process of the entrant held another seat's cards of the deal before)."""
    others: dict[tuple[int, tuple[int, ...]], list[list[int]]] = {}
    learnable = 0
    for log in (lad / "games").glob("*/*.jsonl*"):
        header = read_header(log)
        seat = next((i for i, n in enumerate(header.names) if n.startswith("attacker")), None)
        if seat is None:
            continue
        learnable += len(header.deal) * (int(log.name.split(".")[1]) > 0)
        for round_, hands in enumerate(header.deal, 1):
            others[round_, tuple(sorted(hands[seat]))] = [sorted(h) for i, h in enumerate(hands) if i != seat]
    right = wrong = 0
    said = "".join(p.read_text() for p in (lad / "bots").glob("attacker#*.log"))
    for match in map(LEARNED.match, said.splitlines()):
        if match is None:
            continue
        _, round_, hand, held = match.groups()
        key = (int(round_), tuple(sorted(map(int, held.split()))))
        found = sorted(map(int, hand.split())) in others.get(key, [])
        right, wrong = right + found, wrong + (not found)
    return right, wrong, learnable


def binomial_interval(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """The Clopper-Pearson interval (Clopper and Pearson, Biometrika 26, 1934) of a proportion, ``k`` of ``n``: the
    binomial tail probabilities found by bisection."""

    def tail(p: float, upper: bool) -> float:  # P(X <= k) for the upper bound, P(X >= k) for the lower
        ks = range(k + 1) if upper else range(k, n + 1)
        return sum(comb(n, i) * p**i * (1 - p) ** (n - i) for i in ks)

    def solve(upper: bool) -> float:
        lo, hi = 0.0, 1.0
        for _ in range(60):
            mid = (lo + hi) / 2
            too_far = tail(mid, upper) < (1 - level) / 2 if upper else tail(mid, upper) > (1 - level) / 2
            lo, hi = (lo, mid) if too_far else (mid, hi)
        return (lo + hi) / 2

    return (0.0 if k == 0 else solve(False)), (1.0 if k == n else solve(True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=3, help="runs of each schedule (default 3)")
    parser.add_argument("--ladder", type=float, default=0, help="also the ladder at 1 and 2 lanes, SECONDS each")
    args = parser.parse_args()
    import referee

    print(f"referee from {Path(referee.__file__).parent}")
    print(f"guess rate: at most 1 in {comb(54, 15):.2e} a hand (exact)")
    print("right: of the attacker's reads (one a round, two a game), with a 95% Clopper-Pearson interval")
    print(f"{'schedule':<22} {'games':>6} {'right':>6} {'wrong':>6}  right share [95%]")
    with tempfile.TemporaryDirectory(prefix="futex-bench-") as tmp:
        for games, jobs, colluders in ((1, 1, False), (3, 2, False), (3, 1, True)):
            right = wrong = played = 0
            for seed in range(1, args.seeds + 1):
                r, w, g = trial(Path(tmp) / "contest", games, jobs, seed, colluders)
                right, wrong, played = right + r, wrong + w, played + g
            label = "colluders" if colluders else f"--games {games} --jobs {jobs}"
            low, high = binomial_interval(right, 2 * played)
            share = f"{right / (2 * played):.3f} [{low:.3f}, {high:.3f}]"
            print(f"{label:<22} {played:>6} {right:>6} {wrong:>6}  {share}")
        for lanes in (1, 2) if args.ladder else ():
            folder = Path(tmp) / f"ladder{lanes}"
            lad = make_ladder(folder, lanes)
            trio.run(ladder_window, lad, lanes, args.ladder)
            right, wrong, learnable = ladder_learned(lad)
            low, high = binomial_interval(right, max(learnable, 1))
            label = f"ladder, {lanes} lane{'s' * (lanes > 1)}"
            share = f"{right / max(learnable, 1):.3f} [{low:.3f}, {high:.3f}] of {learnable} learnable"
            print(f"{label:<22} {'':>6} {right:>6} {wrong:>6}  {share}")


if __name__ == "__main__":
    main()
