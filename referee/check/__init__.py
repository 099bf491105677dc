"""The conformance suite for one bot: ``run_check(spec, options)`` plays it and returns a ``CheckReport``.

Every check is named (``CheckReport.check(name)``); a failed check carries ``Evidence``: the game, the round,
the message sent and the line received. ``render_text``, ``CheckReport.to_dict`` and ``junit_xml`` /
``write_junit`` give the report's three forms.
"""

from referee.check.errors import CheckError
from referee.check.junit import junit_xml, write_junit
from referee.check.latency import Latency, latency
from referee.check.model import CheckReport, CheckResult, Evidence, GameSummary, Outcome
from referee.check.plan import DealKind, PlannedGame, build_deal, plan_games
from referee.check.situations import Situation, situations_of_turn
from referee.check.suite import (
    DEFAULT_GAMES,
    DEFAULT_OPPONENTS,
    CheckOptions,
    resolve_opponent,
    run_check,
    sample_bot_spec,
)
from referee.check.text import render_text
from referee.check.verdicts import FAULT_CHECKS

__all__ = [
    "DEFAULT_GAMES",
    "DEFAULT_OPPONENTS",
    "FAULT_CHECKS",
    "CheckError",
    "CheckOptions",
    "CheckReport",
    "CheckResult",
    "DealKind",
    "Evidence",
    "GameSummary",
    "Latency",
    "Outcome",
    "PlannedGame",
    "Situation",
    "build_deal",
    "junit_xml",
    "latency",
    "plan_games",
    "render_text",
    "resolve_opponent",
    "run_check",
    "sample_bot_spec",
    "situations_of_turn",
    "write_junit",
]
