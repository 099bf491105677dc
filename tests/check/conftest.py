"""Helpers for the conformance-suite tests: bot specs of test bots and a fast way to check many at once."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import trio

from referee.check import CheckOptions, CheckReport, run_check
from referee.runner import BotSpec, parse_bot_spec

ROOT = Path(__file__).resolve().parents[2]
RUNNER_BOTS = ROOT / "tests" / "bots"
FLAWED = RUNNER_BOTS / "flawed.py"

#: Small and quick: a few games, one table, no sandbox; a move time (2 s) that stays safe on a loaded machine.
FAST = CheckOptions(games=8, move_time=2.0, startup_time=10.0, sandbox="none", jobs=1)


def runner_bot(name: str, **env: str) -> BotSpec:
    spec = parse_bot_spec(str(RUNNER_BOTS / f"{name}.py"))
    return replace(spec, env=env) if env else spec


def flawed_bot(flaw: str) -> BotSpec:
    return parse_bot_spec(f"python {FLAWED} {flaw}", name=f"flawed-{flaw}")


def fast_options(**changes: object) -> CheckOptions:
    """``FAST`` against the runner's stdlib-only test bots (quick to start; the forcer makes `forced` certain)."""
    opponents = (runner_bot("forcer"), runner_bot("honest"), runner_bot("legal_random"))
    return replace(FAST, opponents=opponents, **changes)  # type: ignore[arg-type]


def sample_options(**changes: object) -> CheckOptions:
    """``FAST`` against the default opponents: the sample bots."""
    return replace(FAST, **changes)  # type: ignore[arg-type]


def check_all(
    specs: dict[str, BotSpec], options: CheckOptions | dict[str, CheckOptions], at_once: int = 4
) -> dict[str, CheckReport]:
    """Check every bot of ``specs`` (with its own options when given a dict), ``at_once`` suites at the same
    time; reports by key."""
    reports: dict[str, CheckReport] = {}

    async def main() -> None:
        limit = trio.CapacityLimiter(at_once)

        async def one(key: str, spec: BotSpec) -> None:
            async with limit:
                reports[key] = await run_check(spec, options[key] if isinstance(options, dict) else options)

        async with trio.open_nursery() as nursery:
            for key, spec in specs.items():
                nursery.start_soon(one, key, spec)

    trio.run(main)
    return reports
