"""Common random numbers on real sample-bot blocks: how much of a comparison's block spread they take away.

Not a test. Plays ``--blocks`` blocks of ``referee compare`` (``referee.compare.blocks``: one deal at one table of
panel opponents, every seat order of the table, once with NEW and once with OLD in the same seat) for each pair of
``--pairs``, twice over the same deals and seats: with each seat's ``rng_seed`` in its game_start (what every
command sends) and without it (``play_game(common_random=False)``: each SDK bot seeds its generator afresh, as
before). Real bot processes, a fresh one for every game (as compare plays), no sandbox. Printed per pair and metric:
the block gains' standard deviation each way, the variance ratio (with CRN / without) with a 95% bootstrap interval
over blocks, and the share of blocks a fixed-size test of the same error rates needs with CRN (the variance ratio:
a test's sample size at given alpha, beta and effect is proportional to the variance of its unit).

Pairs (NEW / OLD, against the default panel random_bot, greedy, heuristic at tables of 4):

- ``noise``: greedy at ``--noise 0.2`` against greedy at ``--noise 0.3`` (a new version that blunders less often;
  both draw their blunders from ``game.rng``);
- ``sample``: heuristic against greedy (both deterministic: only random_bot on the panel draws numbers);
- ``same``: random_bot against random_bot (with CRN every block is level, exactly).

Run: ``python bench/bench_crn.py`` (``--blocks 60``, a few CPU minutes per pair). Figures in bench/README.md,
"Common random numbers".
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

import trio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.compare.blocks import NEW, OLD, block_batches, block_result  # noqa: E402
from referee.runner import Player, RunnerConfig, parse_bot_spec, play_game  # noqa: E402
from referee.tournament import DealSecret, ScheduledGame, SeatRow  # noqa: E402

BOTS = ROOT / "sample_bots"
PANEL = {name: str(BOTS / f"{name}.py") for name in ("random_bot", "greedy", "heuristic")}
PAIRS = {
    "noise": (
        f"{sys.executable} {BOTS / 'greedy.py'} --noise 0.2",
        f"{sys.executable} {BOTS / 'greedy.py'} --noise 0.3",
    ),
    "sample": (str(BOTS / "heuristic.py"), str(BOTS / "greedy.py")),
    "same": (str(BOTS / "random_bot.py"), str(BOTS / "random_bot.py")),
}
METRICS = ("matchpoints", "points")


async def _game(commands: dict[str, str], seats: tuple[str, ...], seed: int, crn: bool) -> tuple[SeatRow, ...]:
    config = RunnerConfig(sandbox="none", move_time=5.0)
    players = [Player(parse_bot_spec(commands[name], name=name), config) for name in seats]
    try:
        result = await play_game(players, game_id="g", seed=seed, log_path=None, common_random=crn)
        if result.faults:  # a bench of faults would measure nothing: say which and stop
            raise SystemExit(f"bench_crn: {result.faults[0].seat} ({seats[result.faults[0].seat]}): {result.faults[0]}")
    finally:
        with trio.CancelScope(shield=True):
            for p in players:
                await p.aclose()
    # no faults, so no forfeits (a forfeit always comes with a fault)
    return tuple(SeatRow(name, result.scores[s], result.ranks[s], None) for s, name in enumerate(seats))


async def _blocks(pair: str, blocks: int, jobs: int, seed: int, crn: bool) -> list[dict[str, float]]:
    """The gains of blocks 0..blocks-1 of the pair, played ``jobs`` games at a time."""
    new, old = PAIRS[pair]
    commands = {**PANEL, NEW: new, OLD: old}
    secret = DealSecret(bytes(range(32)))  # fixed: both ways play the same deals
    seats: dict[int, tuple[SeatRow, ...]] = {}
    limit = trio.CapacityLimiter(jobs)
    games = [g for b in range(blocks) for batch in block_batches(b, list(PANEL), 4, seed, secret) for g in batch.games]

    async def one(game: ScheduledGame) -> None:
        async with limit:
            seats[game.ordinal] = await _game(commands, game.seats, game.seed, crn)

    async with trio.open_nursery() as nursery:
        for game in games:
            nursery.start_soon(one, game)
    out = []
    for b in range(blocks):
        result = block_result(b, 4, seats)
        assert result is not None
        out.append({m: result.gain(m) for m in METRICS})
    return out


def _ratio_interval(with_crn: list[float], without: list[float], rng: random.Random) -> tuple[float, float]:
    """A 95% percentile bootstrap interval of var(with) / var(without), resampling blocks (paired: same deals)."""
    n, ratios = len(with_crn), []
    for _ in range(2000):
        pick = [rng.randrange(n) for _ in range(n)]
        a, b = [with_crn[i] for i in pick], [without[i] for i in pick]
        vb = statistics.pvariance(b)
        if vb > 0:
            ratios.append(statistics.pvariance(a) / vb)
    ratios.sort()
    return ratios[int(0.025 * len(ratios))], ratios[int(0.975 * len(ratios)) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", default="noise,sample,same")
    parser.add_argument("--blocks", type=int, default=60)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    print(f"{args.blocks} blocks a pair and way, tables of 4, panel {', '.join(PANEL)}, seed {args.seed}")
    print(
        f"{'pair':<8} {'metric':<12} {'sd without':>10} {'sd with':>8} {'var ratio':>10} {'95% interval':>16}  wall s"
    )
    for pair in args.pairs.split(","):
        start = time.perf_counter()
        without = trio.run(_blocks, pair, args.blocks, args.jobs, args.seed, False)
        with_crn = trio.run(_blocks, pair, args.blocks, args.jobs, args.seed, True)
        wall = time.perf_counter() - start
        for metric in METRICS:
            a, b = [g[metric] for g in with_crn], [g[metric] for g in without]
            sa, sb = statistics.stdev(a), statistics.stdev(b)
            ratio = sa**2 / sb**2 if sb > 0 else float("nan")
            low, high = _ratio_interval(a, b, rng) if sb > 0 else (float("nan"), float("nan"))
            print(
                f"{pair:<8} {metric:<12} {sb:>10.3f} {sa:>8.3f} {ratio:>10.2f} {f'[{low:.2f}, {high:.2f}]':>16}"
                f"  {wall:.0f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
