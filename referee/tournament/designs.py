"""The schedule of each format, and the checks of a format's options (one-line ``ScheduleError``s).

- ``round-robin``: every combination of ``table_size`` entrants (``schedule.make_schedule``).
- ``balanced``: an incomplete design. Every entrant sits at exactly ``tables_per_entrant`` tables and pairs of
  entrants meet as evenly as possible: a seeded greedy construction (each table is filled from the entrants with the
  most seats still to fill, preferring those who met the table's entrants least) followed by swaps of two entrants
  between tables that lower the sum of squared pair meetings. Games grow as entrants × tables per entrant.
- ``gauntlet``: every table holds one entrant of the field and ``table_size - 1`` challengers, each combination of
  challengers against each field entrant, ``repeats`` times: field entrants never share a table.
- ``race``: adaptive; its rounds come from ``referee.tournament.race``.

Every table is a block: one deal, every seat rotation. Everything is a pure function of the parameters.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Sequence

from referee.engine import MAX_PLAYERS, MIN_PLAYERS
from referee.tournament.deals import DealSecret
from referee.tournament.params import FORMATS, TournamentParams
from referee.tournament.schedule import ScheduleError, TableBatch, make_schedule, table_batches

__all__ = ["balanced_tables", "check_format", "gauntlet_tables", "planned_games", "schedule_for"]


def planned_games(params: TournamentParams) -> int | None:
    """How many games a static format plays (None for a race, which decides as it goes)."""
    n, k = len(params.entrants), params.table_size
    if params.format == "round-robin":
        return math.comb(n, k) * k * params.repeats
    if params.format == "balanced":
        return n * (params.tables_per_entrant or 0)
    if params.format == "gauntlet":
        field = n - len(params.challengers)
        return field * math.comb(len(params.challengers), k - 1) * k * params.repeats
    return None


def check_format(params: TournamentParams) -> None:
    """Raise ``ScheduleError`` (one line, naming the option and what to do) for options that do not make a schedule
    of ``params.format``, or one that would pass ``--max-games``."""
    n, k, fmt = len(params.entrants), params.table_size, params.format
    if fmt not in FORMATS:
        raise ScheduleError(f"unknown --format {fmt!r}; use one of {', '.join(FORMATS)}")
    if params.max_games < 1:
        raise ScheduleError(f"--max-games must be at least 1, got {params.max_games}")
    if n < MIN_PLAYERS:
        raise ScheduleError(f"a tournament needs at least {MIN_PLAYERS} entrants, got {n}")
    if not MIN_PLAYERS <= k <= MAX_PLAYERS:
        raise ScheduleError(f"table size must be {MIN_PLAYERS} to {MAX_PLAYERS}, got {k}")
    if k > n:
        raise ScheduleError(f"table size {k} is larger than the number of entrants ({n})")
    if params.repeats < 1:
        raise ScheduleError(f"the number of games per table must be at least 1, got {params.repeats}")
    if params.tables_per_entrant is not None and fmt != "balanced":
        raise ScheduleError("--tables-per-entrant applies to --format balanced only")
    if params.challengers and fmt != "gauntlet":
        raise ScheduleError("challengers (--challenger, or challenger = true in the manifest) need --format gauntlet")
    if (params.top, params.confidence) != (3, 0.95) and fmt != "race":
        raise ScheduleError("--top and --confidence apply to --format race only")
    if params.tie_margin != 0 and fmt != "race":
        raise ScheduleError("--tie-margin applies to --format race only")
    if params.repeats != 1 and fmt in ("balanced", "race"):
        raise ScheduleError(f"--games does not apply to --format {fmt}: every table plays one deal")
    if fmt == "balanced":
        _check_balanced(n, k, params.tables_per_entrant)
    elif fmt == "gauntlet":
        _check_gauntlet(params)
    elif fmt == "race":
        if not 1 <= params.top < n:
            raise ScheduleError(f"--top must be 1 to {n - 1} (fewer than the {n} entrants), got {params.top}")
        if not 0.5 <= params.confidence < 1:
            raise ScheduleError(f"--confidence must be at least 0.5 and below 1, got {params.confidence}")
        if not 0 <= params.tie_margin < math.inf:
            raise ScheduleError(f"--tie-margin must be 0 or more points per game, got {params.tie_margin}")
    games = planned_games(params)
    if games is not None and games > params.max_games:
        hint = (
            "; use --format balanced --tables-per-entrant T or --format race, or raise --max-games"
            if fmt == "round-robin"
            else "; lower it, or raise --max-games"
        )
        what = {"round-robin": "a round robin", "balanced": "this balanced schedule", "gauntlet": "this gauntlet"}[fmt]
        raise ScheduleError(
            f"{what} of {n} entrants at tables of {k} is {games:,} games, over --max-games {params.max_games:,}{hint}"
        )


def _check_balanced(n: int, k: int, tables: int | None) -> None:
    if tables is None:
        raise ScheduleError("--format balanced needs --tables-per-entrant T (the tables each entrant sits at)")
    if tables < 1:
        raise ScheduleError(f"--tables-per-entrant must be at least 1, got {tables}")
    if n * tables % k:
        step = k // math.gcd(n, k)
        options = ", ".join(str(step * i) for i in range(1, 4))
        raise ScheduleError(
            f"--tables-per-entrant {tables} with {n} entrants at tables of {k} leaves seats empty "
            f"(entrants x tables must be a multiple of {k}); use {options}, ..."
        )


def _check_gauntlet(params: TournamentParams) -> None:
    names, k = params.names, params.table_size
    unknown = [c for c in params.challengers if c not in names]
    if unknown:
        raise ScheduleError(f"challenger {unknown[0]!r} is not an entrant")
    if not params.challengers:
        raise ScheduleError("--format gauntlet needs challengers: --challenger BOT, or challenger = true in bots.toml")
    if len(params.challengers) == len(names):
        raise ScheduleError("--format gauntlet needs a field: every entrant is a challenger")
    if len(params.challengers) < k - 1:
        raise ScheduleError(
            f"a gauntlet at tables of {k} needs {k - 1} challengers per table (field entrants never share a "
            f"table), got {len(params.challengers)}; use --table-size {len(params.challengers) + 1} or add challengers"
        )


def schedule_for(params: TournamentParams, secret: DealSecret) -> list[TableBatch]:
    """The whole schedule of a static format (``check_format`` first), dealt from ``secret``. Raises
    ``ScheduleError`` for a race."""
    check_format(params)
    seed = params.seed
    if params.format == "round-robin":
        return make_schedule(
            params.names, table_size=params.table_size, repeats=params.repeats, seed=seed, secret=secret
        )
    if params.format == "balanced":
        assert params.tables_per_entrant is not None
        tables = balanced_tables(params.names, params.table_size, params.tables_per_entrant, seed)
        return table_batches([(0, table) for table in tables], seed, secret)
    if params.format == "gauntlet":
        tables = gauntlet_tables(params.names, params.challengers, params.table_size)
        return table_batches([(r, table) for r in range(params.repeats) for table in tables], seed, secret)
    raise ScheduleError("--format race has no fixed schedule: its rounds depend on the results")


def gauntlet_tables(names: Sequence[str], challengers: Sequence[str], k: int) -> list[tuple[str, ...]]:
    """Each field entrant with each combination of ``k - 1`` challengers (challengers first, in entrant order)."""
    chosen = set(challengers)
    ordered = [n for n in names if n in chosen]
    field = [n for n in names if n not in chosen]
    return [(*combo, f) for f in field for combo in itertools.combinations(ordered, k - 1)]


class _Meetings:
    """How often each pair of entrant indices shares a table, with a histogram of those counts over all pairs."""

    def __init__(self, n: int) -> None:
        self.count: dict[tuple[int, int], int] = {}
        self.histogram = [n * (n - 1) // 2]  # histogram[c]: pairs that met c times

    def __call__(self, a: int, b: int) -> int:
        return self.count.get((a, b) if a < b else (b, a), 0)

    def bump(self, a: int, b: int, by: int) -> None:
        key = (a, b) if a < b else (b, a)
        old = self.count.get(key, 0)
        new = old + by
        self.count[key] = new
        self.histogram[old] -= 1
        while len(self.histogram) <= new:
            self.histogram.append(0)
        self.histogram[new] += 1

    def spread(self) -> int:
        """The most meetings of a pair minus the fewest (pairs that never met count 0)."""
        while len(self.histogram) > 1 and not self.histogram[-1]:
            self.histogram.pop()
        low = next(c for c, pairs in enumerate(self.histogram) if pairs)
        return len(self.histogram) - 1 - low


def balanced_tables(names: Sequence[str], k: int, tables_per_entrant: int, seed: int) -> list[tuple[str, ...]]:
    """``len(names) * tables_per_entrant / k`` tables of ``k`` distinct entrants; every entrant at exactly
    ``tables_per_entrant`` of them, pair meetings spread as evenly as the construction reaches (``_even_out``)."""
    n = len(names)
    rng = random.Random(f"referee-balanced/{seed}/{n}/{k}/{tables_per_entrant}")
    meet = _Meetings(n)
    remaining = [tables_per_entrant] * n
    pool: list[int] = []  # the entrants with the most seats still to fill, in random order
    tables: list[list[int]] = []
    for _ in range(n * tables_per_entrant // k):
        table: list[int] = []
        while len(table) < k:
            if not [c for c in pool if c not in table]:
                most = max(remaining[c] for c in range(n) if c not in table)
                pool = [c for c in range(n) if remaining[c] == most and c not in pool]
                rng.shuffle(pool)
            candidates = [c for c in pool[:48] if c not in table] or [c for c in pool if c not in table]
            best = min(candidates, key=lambda c: sum(meet(c, x) for x in table))
            pool.remove(best)
            table.append(best)
            remaining[best] -= 1
        for a, b in itertools.combinations(table, 2):
            meet.bump(a, b, 1)
        tables.append(table)
    _even_out(tables, meet, rng)
    return [tuple(names[i] for i in sorted(t)) for t in tables]


def _swap_gain(meet: _Meetings, x: list[int], b: int, y: list[int], c: int) -> int:
    """The change of the sum of squared pair meetings when ``b`` (of table ``x``) and ``c`` (of ``y``) swap."""
    return sum(2 * (meet(c, o) - meet(b, o)) + 2 for o in x if o != b) + sum(
        2 * (meet(b, o) - meet(c, o)) + 2 for o in y if o != c
    )


def _even_out(tables: list[list[int]], meet: _Meetings, rng: random.Random, steps: int = 200_000) -> None:
    """Simulated annealing on the sum of squared pair meetings (its minimum spreads the meetings most evenly):
    swap an entrant of a most-met pair (or, one time in four, any entrant) with an entrant of another table, keep the
    swap when it does not raise the sum, or with probability exp(-rise / temperature) when it does; stop as soon
    as every pair meets within one of every other, or after ``steps`` tries."""
    if not tables:
        return
    temperature, cooling = 1.0, (0.01 / 1.0) ** (1 / steps)
    hot: list[tuple[int, int]] = []
    for step in range(steps):
        if meet.spread() <= 1:
            return
        if step % 256 == 0:
            high = len(meet.histogram) - 1
            hot = [p for p, v in meet.count.items() if v == high]
        temperature *= cooling
        if hot and rng.random() < 0.75:
            a, b = rng.choice(hot)
            b = b if rng.random() < 0.5 else a
            x = rng.choice([t for t in tables if a in t and b in t] or tables)
        else:
            x = rng.choice(tables)
            b = rng.choice(x)
        y = rng.choice(tables)
        c = rng.choice(y)
        if b not in x or b in y or c in x:
            continue
        gain = _swap_gain(meet, x, b, y, c)
        if gain > 0 and rng.random() >= math.exp(-gain / temperature):
            continue
        for o in x:
            if o != b:
                meet.bump(b, o, -1)
                meet.bump(c, o, 1)
        for o in y:
            if o != c:
                meet.bump(c, o, -1)
                meet.bump(b, o, 1)
        x[x.index(b)], y[y.index(c)] = c, b
