"""Every sample bot passes `referee check` against the other sample bots."""

from __future__ import annotations

from dataclasses import replace

import pytest

from referee.check import CheckReport, Outcome, sample_bot_spec
from tests.check.conftest import check_all, sample_options
from tests.toolchains import HAVE_NODE, NEEDS_NODE

PYTHON_BOTS = ("random_bot", "greedy", "heuristic", "montecarlo")
#: js_bot runs with node: where node is absent (a machine with Python alone) its case skips
SAMPLE_BOTS = (*PYTHON_BOTS, *(["js_bot"] if HAVE_NODE else []))
CASES = [*PYTHON_BOTS, pytest.param("js_bot", marks=NEEDS_NODE)]


@pytest.fixture(scope="module")
def reports() -> dict[str, CheckReport]:
    specs = {name: sample_bot_spec(name) for name in SAMPLE_BOTS}
    # montecarlo thinks for half its move time: its thinking capped at 0.2 s keeps it quick, and a 1 s move time
    # leaves it 0.8 s of margin on a loaded machine (at 0.4 s, 0.2 s of margin was missed once in a CI run).
    specs["montecarlo"] = replace(specs["montecarlo"], env={**specs["montecarlo"].env, "MONTECARLO_THINK_MS": "200"})
    options = {name: sample_options(games=6) for name in specs}
    options["montecarlo"] = sample_options(games=3, move_time=1.0, jobs=2)
    return check_all(specs, options, at_once=5)


@pytest.mark.parametrize("name", CASES)
def test_sample_bot_passes(reports: dict[str, CheckReport], name: str) -> None:
    report = reports[name]
    assert report.passed, [(c.name, c.summary) for c in report.checks if c.failed]
    assert report.check("handshake").outcome is Outcome.PASSED
    assert report.check("exit-on-bye").outcome is Outcome.PASSED
    reached = [c.name for c in report.checks if c.name.startswith("situation") and c.outcome is Outcome.PASSED]
    assert len(reached) >= (3 if name == "montecarlo" else 4), "the planned deals lead a bot into most situations"
