"""``referee ladder final``'s work: close the ladder, build the final's tournament from the ladder's settings, run
it as ``referee run`` runs a tournament, and say what it proved against the ladder's standing.

The run's options are made in code from the typed ``LadderConfig`` (its bots' settings, ``bot_settings()``) and
from the format registry (the formats that rank a field, ``FINAL_FORMATS``, and their own options); a race plays the
ladder's mix of table sizes (``referee.ladder.final.final_mix``) unless ``--table-size`` fixes one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from referee.cli.results_folder import fail
from referee.tournament.formats import FORMATS
from referee.tournament.formats.race import TABLE_MIX
from referee.tournament.options import FORMAT, MAX_GAMES, TABLE_SIZE

if TYPE_CHECKING:
    from referee.cli.run_cmd import RunOptions
    from referee.ladder import Ladder
    from referee.ladder.config import LadderConfig
    from referee.ladder.final import FinalPlan
    from referee.tournament import Executor

__all__ = ["FINAL_FORMATS", "FINAL_OPTIONS", "Closed", "FinalRequest", "close_for_final", "play_final", "run_options"]

#: The formats a final may use: those whose entrants all play the same part (a gauntlet's do not).
FINAL_FORMATS = tuple(name for name, fmt in FORMATS.items() if fmt.symmetric)
#: Their own options (``--top``, ``--confidence``, ``--tables-per-entrant``, ...), as ``referee run`` offers them,
#: but ``--table-mix``: the final takes the ladder's.
FINAL_OPTIONS = tuple(o for name in FINAL_FORMATS for o in FORMATS[name].options if o is not TABLE_MIX)


@dataclass(frozen=True)
class FinalRequest:
    """The options of ``ladder final`` (None: not given)."""

    format: str
    table_size: int | None
    jobs: int | None
    max_games: int
    out: Path | None
    #: The formats' own options given (``FINAL_OPTIONS``), by name; None or (): not given.
    declared: dict[str, Any] = field(default_factory=dict)


def run_options(config: LadderConfig, plan: FinalPlan, request: FinalRequest, results: Path) -> RunOptions:
    """The tournament ``referee run`` plays for the final: the plan's manifest and ruleset, the ladder's bot settings
    and lanes, the requested format; a race at the ladder's table-size mix unless ``--table-size`` is given (another
    format: the largest size the field can fill)."""
    from referee.cli.run_cmd import RunOptions
    from referee.ladder.final import final_mix, mix_text
    from referee.settings import settings_fields

    bots = config.bot_settings()
    mix = final_mix(config, len(plan.versions))
    declared: dict[str, Any] = {name: value for name, value in request.declared.items() if value not in (None, ())}
    declared[FORMAT.name] = request.format
    declared[MAX_GAMES.name] = request.max_games
    declared[TABLE_SIZE.name] = request.table_size or max(mix)
    if request.table_size is None and TABLE_MIX in FORMATS[request.format].options and len(mix) > 1:
        declared[TABLE_MIX.name] = mix_text(mix)
    return RunOptions(
        bots=(),
        manifest=plan.manifest,
        jobs=request.jobs or config.serve.jobs,
        deal_secret=None,
        out=results,
        resume=None,
        fresh_bots=False,
        cluster=None,
        rules_file=plan.rules,
        limits={f.name: getattr(bots.limits, f.name) for f in fields(bots.limits)},
        declared=declared,
        **{name: getattr(bots, name) for name in settings_fields() if name != "limits"},
    )


@dataclass(frozen=True)
class Closed:
    """A ladder closed for its final: its settings, the plan, each version's joint 95% rank interval on the ladder
    (by key), and the final's results folder."""

    config: LadderConfig
    plan: FinalPlan
    ranks: dict[str, tuple[int, int]]
    results: Path


def close_for_final(ladder: Ladder, request: FinalRequest) -> Closed:
    """Refuse while ``serve`` runs (one line and an exit), else close submissions and the epoch and write the
    final's files (``prepare_final``, which raises ``Refused`` with fewer than two active versions)."""
    from referee.ladder.final import prepare_final

    if ladder.serving() is not None:
        fail(
            "ladder final", f"referee ladder serve runs on {ladder.layout.root} (pid {ladder.serving()}): stop it first"
        )
    ranks = {r.version.key: r.official.rank_interval for r in ladder.leaderboard().rows if r.official}
    results = request.out or ladder.layout.root / "final"
    return Closed(ladder.config, prepare_final(ladder, results), ranks, results)


def play_final(closed: Closed, request: FinalRequest, executor: Executor | None = None) -> None:
    """Say what was closed, play the final (on ``executor`` when given: the tests' in-process fakes) and print its
    verdict. Every problem is one line and an exit."""
    from referee.cli.run_cmd import run
    from referee.ladder.final import estimand_line, final_mix, verdict_lines
    from referee.tournament.formats.race import table_mix

    plan, results = closed.plan, closed.results
    keys = ", ".join(v.key for v in plan.versions)
    click.echo(f"ladder final: submissions are closed; {len(plan.versions)} versions: {keys}")
    for epoch in plan.revealed:
        click.echo(f"ladder final: epoch {epoch.id} closed; its secret is revealed: {epoch.secret}")
    given = run_options(closed.config, plan, request, results)
    k = int(given.declared[TABLE_SIZE.name])
    played = table_mix(given.declared.get(TABLE_MIX.name)) or {k: 1.0}
    click.echo(estimand_line(played, final_mix(closed.config, len(plan.versions))))
    run(given, executor)
    try:
        standings = json.loads((results / "standings.json").read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        fail("ladder final", f"cannot read the final's standings in {results}: {exc}")
    for line in verdict_lines(standings, closed.ranks):
        click.echo(line)
