"""Ladder benchmark, simulated: 200 entrants submitting 2,000 versions over 500,000 games, no processes.

Not a test. ``referee.ladder.simulate.SimulatedLadder`` plays the ladder with its real store (SQLite), field,
matchmaker, live ratings and settling, on ``--jobs`` simulated lanes with a simulated clock (a game takes
``--game-seconds``), entrants of known strength instead of bots (``simulate``: a seat's score is its card luck,
shared by the rotations of the deal, minus its strength plus noise). 200 versions start; the other 1,800 arrive at
random times over the run, each a new version of a random entrant (its strength the old one's plus N(0.2, 0.6)),
which replaces the old one after its gate (not simulated). First strengths are N(0, ``--spread`` = 4) points a
game (a game's noise is 3 points, the cards' luck 6, cancelled by the rotations): among 200 the top ten are a few
tenths of a point apart. The same fields (same seed) are played by each rule of ``--rules``:

- ``ladder``: the ladder's matchmaker (``referee.ladder.matchmaker``);
- ``psyleague``: psyleague's rule as its README states it: a bot with fewer than 200 games plays first (the one
  with fewest), the other seats uniformly at random;
- ``halite``: Halite II's seeding as its organisers describe it: the seed drawn with weight sigma², the other seats
  uniformly from the versions closest in rating (the 10 nearest by mu).

Measured, per rule, in windows of ``--window`` games: the matchmaker's and the settling's (store commit, ratings,
standing sums) time per block, the process's resident memory, the store's size and its bytes per game; over the run:
the share of hourly looks at which the official top 10 is in the true order (by true strength, among the ranked
versions), and for each version submitted after the first hours, the games it had played when its official rank
interval first spanned at most 3 places (looked at every ``--look-minutes`` simulated minutes; median and 90th
percentile over versions, and how many never got there); at the end, the official standing of the ranked versions
against their true order: Spearman's rank correlation, how many of the true top 10 are in the official top 10, the
share of 95% rank intervals that hold the true rank, and the intervals' median width. ``--analyse DIR`` prints the
end figures again from the stores a run kept in DIR (``--out``), given the same options.

Run: ``python bench/bench_ladder.py`` (the full size takes a few hours on a busy 2-core machine; ``--games 50000
--versions 400`` for a quick look). Figures in bench/README.md, "Ladder, simulated".
"""

from __future__ import annotations

import argparse
import math
import random
import resource
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from referee.ladder.config import LadderConfig  # noqa: E402
from referee.ladder.matchmaker import Candidate, Choice, Matchmaker  # noqa: E402
from referee.ladder.model import VersionState  # noqa: E402
from referee.ladder.service import Ladder  # noqa: E402
from referee.ladder.simulate import SimulatedLadder, SimVersion  # noqa: E402
from referee.ladder.standing import official_standing  # noqa: E402
from referee.ladder.store import LadderStore  # noqa: E402
from referee.ladder.strengths import seats_of  # noqa: E402


def _weights(config: LadderConfig) -> dict[int, float]:
    return dict(zip(config.games.table_sizes, config.games.table_weights, strict=True))


def rss_mib() -> float:
    """The process's resident memory now (VmRSS), in MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


class Baseline:
    """A rule to set beside the ladder's: a table begun by ``start`` (the free versions, the table's size), then
    filled from its pool in random order with versions of entrants not yet at the table."""

    NAME = ""

    def __init__(self, mm: Matchmaker) -> None:
        self.mm = mm
        self.rng = mm.rng

    def start(self, free: list[Candidate], size: int) -> tuple[list[Candidate], list[Candidate]]:
        raise NotImplementedError

    def choose(self, field: list[Candidate], busy: set[int], met: dict, mean_today: float) -> Choice | None:
        free = [c for c in field if c.id not in busy]
        if len({c.entrant for c in free}) < 2:
            return None
        size = min(self.rng.choices(self.mm.sizes, weights=self.mm.weights)[0], len({c.entrant for c in free}))
        table, pool = self.start(free, size)
        self.rng.shuffle(pool)
        for c in pool:
            if len(table) == size:
                break
            if all(c.entrant != t.entrant for t in table):
                table.append(c)
        return Choice(tuple(c.id for c in table), table[0].id, self.NAME)


class Psyleague(Baseline):
    """psyleague's rule: a bot under 200 games plays first, the rest of the table uniformly at random."""

    NAME = "psyleague"
    NEW_GAMES = 200

    def start(self, free: list[Candidate], size: int) -> tuple[list[Candidate], list[Candidate]]:
        new = [c for c in free if c.games < self.NEW_GAMES]
        return ([min(new, key=lambda c: (c.games, c.id))] if new else []), free[:]


class Halite(Baseline):
    """Halite II's seeding: the seed drawn with weight sigma², the others from the 10 nearest in mu."""

    NAME = "halite"
    NEAREST = 10

    def start(self, free: list[Candidate], size: int) -> tuple[list[Candidate], list[Candidate]]:
        seed = self.rng.choices(free, weights=[c.sigma**2 for c in free])[0]
        others = sorted((c for c in free if c.entrant != seed.entrant), key=lambda c: abs(c.mu - seed.mu))
        return [seed], others[: max(self.NEAREST, size - 1)]


RULES = {"ladder": None, "psyleague": Psyleague, "halite": Halite}


def field_of(entrants: int, versions: int, span: float, seed: int, spread: float) -> list[SimVersion]:
    """The versions of a run: one per entrant at 0, the others at uniform random times, each stronger on average."""
    rng = random.Random(seed)
    strength = {f"e{i:03d}": rng.gauss(0, spread) for i in range(entrants)}
    out = [SimVersion(name, s, 0.0) for name, s in strength.items()]
    times = sorted(rng.uniform(0.02 * span, 0.9 * span) for _ in range(versions - entrants))
    for at in times:
        name = rng.choice(sorted(strength))
        strength[name] += rng.gauss(0.2, 0.6)
        out.append(SimVersion(name, strength[name], at))
    return out


@dataclass
class Window:
    games: int
    choose_ms: float
    settle_ms: float
    rss_mib: float
    store_mib: float


@dataclass
class Outcome:
    rule: str
    windows: list[Window] = field(default_factory=list)
    hours: int = 0
    top10_in_order: int = 0
    to_three: list[int] = field(default_factory=list)  # games when its rank interval first spanned <= 3 places
    to_seven: list[int] = field(default_factory=list)  # ... <= 7 places (its rank known to +-3)
    never: int = 0
    seconds: float = 0.0
    blocks: int = 0
    games: int = 0
    end: End | None = None


def run(rule: str, args: argparse.Namespace, folder: Path) -> Outcome:
    span = args.games * args.game_seconds / args.jobs
    versions = field_of(args.entrants, args.versions, span, args.seed, args.spread)
    config = f"[serve]\njobs = {args.jobs}\n"
    policy = RULES[rule]
    sim = SimulatedLadder(
        folder / rule, config, versions, jobs=args.jobs, game_seconds=args.game_seconds, seed=args.seed, policy=policy
    )
    out = Outcome(rule)
    state = {"next": args.window, "choose": 0.0, "settle": 0.0, "blocks": 0, "hour": 3600.0}
    pending: dict[int, float] = {}  # version -> when it was submitted (to time its way to a 3-place interval)
    pending7: set[int] = set()
    followed: set[int] = set()
    db = sim.store.path

    def look(s: SimulatedLadder) -> None:
        ranked = [v for v in s.store.versions(states=[VersionState.RANKED])]
        ids = [v.id for v in ranked]
        standing = official_standing(seats_of(s.store.standing_blocks(ids)), ids, _weights(s.config))
        games = {v.id: v.games for v in ranked}
        for v in s.store.versions(states=[VersionState.PLACEMENT, VersionState.RANKED]):
            new = s.truth.get(v.id) is not None and s.truth[v.id].at >= args.look_after * 3600
            if new and v.id not in pending and v.id not in followed:
                pending[v.id] = s.now
                pending7.add(v.id)
                followed.add(v.id)
        for row in standing:
            lo, hi = row.rank_interval
            if row.version_id in pending7 and hi - lo + 1 <= 7:
                out.to_seven.append(games[row.version_id])
                pending7.discard(row.version_id)
            if row.version_id in pending and hi - lo + 1 <= 3:
                out.to_three.append(games[row.version_id])
                del pending[row.version_id]
        gone = [vid for vid in pending if vid not in games and s.store.version(vid).state == VersionState.RETIRED]
        for vid in gone:
            out.never += 1
            del pending[vid]
            pending7.discard(vid)
        if s.now >= state["hour"]:
            state["hour"] += 3600.0
            out.hours += 1
            truth = s.true_order(ids)[:10]
            if [r.version_id for r in standing[:10]] == truth:
                out.top10_in_order += 1
        trace = s.trace
        if trace.games >= state["next"]:
            blocks = trace.blocks - state["blocks"]
            out.windows.append(
                Window(
                    trace.games,
                    1000 * (trace.choose_seconds - state["choose"]) / max(1, blocks),
                    1000 * (trace.settle_seconds - state["settle"]) / max(1, blocks),
                    rss_mib(),
                    sum(p.stat().st_size for p in db.parent.glob(db.name + "*")) / 2**20,
                )
            )
            state.update(next=state["next"] + args.window, choose=trace.choose_seconds, settle=trace.settle_seconds,
                         blocks=trace.blocks)  # fmt: skip
            w = out.windows[-1]
            per_game = w.store_mib * 2**20 / w.games
            print(
                f"  {rule}: {w.games:>7,} games  choose {w.choose_ms:5.2f} ms/block  settle {w.settle_ms:5.2f} "
                f"ms/block  RSS {w.rss_mib:6.1f} MiB  store {w.store_mib:7.1f} MiB ({per_game:,.0f} B/game)",
                flush=True,
            )

    start = time.perf_counter()
    trace = sim.run(until=None, blocks=None, every=args.look_minutes * 60, on_tick=look, games=args.games)
    out.seconds = time.perf_counter() - start
    out.blocks, out.games = trace.blocks, trace.games
    out.never += len(pending)
    out.end = end_figures(sim.store, {vid: v.strength for vid, v in sim.truth.items()})
    sim.close()
    return out


@dataclass
class End:
    """The official standing at the end of a run against the true order, over the ranked versions."""

    ranked: int
    spearman: float
    top10_found: int  # of the true top 10, how many are in the official top 10
    covered: float  # share of versions whose 95% rank interval holds their true rank
    width: float  # median width of the rank intervals, in places
    deals: float  # median blocks of a ranked version


def end_figures(store: LadderStore, strength: dict[int, float]) -> End:
    """``End`` of the ranked versions of ``store``, given each version's true strength (higher is stronger)."""
    ids = [v.id for v in store.versions(states=[VersionState.RANKED])]
    rows = official_standing(seats_of(store.standing_blocks(ids)), ids, {2: 1.0, 3: 1.0, 4: 2.0})
    true_rank = {vid: i + 1 for i, vid in enumerate(sorted(ids, key=lambda v: -strength[v]))}
    n = len(rows)
    d2 = sum((i + 1 - true_rank[r.version_id]) ** 2 for i, r in enumerate(rows))
    return End(
        ranked=n,
        spearman=1 - 6 * d2 / (n * (n * n - 1)) if n > 1 else math.nan,
        top10_found=sum(true_rank[r.version_id] <= 10 for r in rows[:10]),
        covered=sum(r.rank_interval[0] <= true_rank[r.version_id] <= r.rank_interval[1] for r in rows) / max(1, n),
        width=statistics.median(r.rank_interval[1] - r.rank_interval[0] + 1 for r in rows) if rows else math.nan,
        deals=statistics.median(r.deals for r in rows) if rows else math.nan,
    )


def analyse(folder: Path, args: argparse.Namespace) -> None:
    """``--analyse``: the end figures of the stores a run kept (``--out``), from the same fields (same options)."""
    span = args.games * args.game_seconds / args.jobs
    versions = field_of(args.entrants, args.versions, span, args.seed, args.spread)
    by_entrant: dict[str, list[SimVersion]] = {}
    for v in versions:
        by_entrant.setdefault(v.entrant, []).append(v)
    for rule in args.rules.split(","):
        ladder = Ladder.open(folder / rule)
        store = ladder.store
        strength = {}
        for v in store.versions():
            entrant, number = v.digest.split("/")  # the simulation's digest: entrant/number
            strength[v.id] = by_entrant[entrant][int(number) - 1].strength
        print(f"{rule:<10} {_end_line(end_figures(store, strength))}")
        ladder.close()


def _end_line(e: End) -> str:
    return (
        f"ranked {e.ranked}, Spearman {e.spearman:.3f}, true top 10 in the official top 10: {e.top10_found}, rank "
        f"intervals holding the true rank {e.covered:.1%}, median interval {e.width:g} places, median deals {e.deals:g}"
    )


def quantile(values: list[int], q: float) -> float:
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entrants", type=int, default=200)
    parser.add_argument("--versions", type=int, default=2000)
    parser.add_argument("--games", type=int, default=500_000)
    parser.add_argument("--jobs", type=int, default=8, help="simulated lanes")
    parser.add_argument("--game-seconds", type=float, default=3.0, help="simulated seconds a game takes")
    parser.add_argument("--window", type=int, default=50_000, help="games per measuring window")
    parser.add_argument("--look-minutes", type=float, default=10.0)
    parser.add_argument("--look-after", type=float, default=3.0, help="hours before new versions are followed")
    parser.add_argument("--rules", default="ladder,psyleague,halite")
    parser.add_argument("--spread", type=float, default=4.0, help="sd of the first versions' strengths (points)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, help="folder for the stores (default: a temporary one)")
    parser.add_argument("--analyse", type=Path, metavar="DIR", help="only print the end figures of DIR's stores")
    args = parser.parse_args()
    if args.analyse is not None:
        analyse(args.analyse, args)
        return
    folder = args.out or Path(tempfile.mkdtemp(prefix="bench-ladder-"))
    folder.mkdir(parents=True, exist_ok=True)
    print(
        f"simulated ladder: {args.entrants} entrants, {args.versions} versions, {args.games:,} games, {args.jobs} "
        f"lanes, {args.game_seconds:g} s a game (simulated); stores in {folder}"
    )
    outcomes = []
    for rule in args.rules.split(","):
        outcomes.append(run(rule, args, folder))
    print()
    print(f"{'rule':<10} {'blocks':>8} {'games':>8} {'wall s':>7} {'top 10 in order':>16} "
          f"{'games to 3 places: median':>26} {'p90':>6} {'reached':>8} {'never':>6} "
          f"{'to 7 places: median':>20} {'p90':>6} {'reached':>8}")  # fmt: skip
    for o in outcomes:
        share = o.top10_in_order / o.hours if o.hours else math.nan
        top = f"{o.top10_in_order}/{o.hours} ({share:.0%})"
        print(
            f"{o.rule:<10} {o.blocks:>8,} {o.games:>8,} {o.seconds:>7.0f} {top:>16} "
            f"{quantile(o.to_three, 0.5):>26.0f} {quantile(o.to_three, 0.9):>6.0f} {len(o.to_three):>8} {o.never:>6} "
            f"{quantile(o.to_seven, 0.5):>20.0f} {quantile(o.to_seven, 0.9):>6.0f} {len(o.to_seven):>8}"
        )
    print()
    for o in outcomes:
        if o.end is not None:
            print(f"{o.rule:<10} {_end_line(o.end)}")
    for o in outcomes:
        if len(o.windows) >= 2:
            first, last = o.windows[0], o.windows[-1]
            growth = (last.store_mib - first.store_mib) * 2**20 / max(1, last.games - first.games)
            print(
                f"{o.rule}: choose {first.choose_ms:.2f} -> {last.choose_ms:.2f} ms/block, settle {first.settle_ms:.2f}"
                f" -> {last.settle_ms:.2f} ms/block, RSS {first.rss_mib:.0f} -> {last.rss_mib:.0f} MiB, store grows "
                f"{growth:,.0f} B/game ({first.games:,} -> {last.games:,} games)"
            )


if __name__ == "__main__":
    main()
