"""The tournament report: one self-contained HTML file read from a tournament folder.

``build_report(directory, output)`` writes it; ``load_tournament`` reads the results database (read-only)
and re-runs each game log through the engine for its replay; ``render`` turns that into the page.
"""

from referee.report.build import REPORT_NAME, ReportOutcome, build_report
from referee.report.errors import NoTournament, ReplayError, ReportError
from referee.report.gamelog import LoggedGame, read_game_log
from referee.report.load import load_tournament
from referee.report.model import Entrant, FaultEntry, Game, Tournament
from referee.report.page import SIZE_LIMIT, render
from referee.report.payload import pack_blob, unpack_blob
from referee.report.replay import Forfeit, encode_replay, run_steps
from referee.report.viewer import REPLAY_MARKUP, STYLE_SHEET, VIEWER_SCRIPT

__all__ = [
    "REPLAY_MARKUP",
    "REPORT_NAME",
    "SIZE_LIMIT",
    "STYLE_SHEET",
    "VIEWER_SCRIPT",
    "Entrant",
    "FaultEntry",
    "Forfeit",
    "Game",
    "LoggedGame",
    "NoTournament",
    "ReplayError",
    "ReportError",
    "ReportOutcome",
    "Tournament",
    "build_report",
    "encode_replay",
    "load_tournament",
    "pack_blob",
    "read_game_log",
    "render",
    "run_steps",
    "unpack_blob",
]
