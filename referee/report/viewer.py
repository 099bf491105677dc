"""The replay viewer, one for every page that shows a game move by move: the report and the ladder's game page.

``REPLAY_MARKUP`` is the viewer's HTML (controls, the table, the history), ``VIEWER_SCRIPT`` and ``STYLE_SHEET``
are its script and style sheet beside this module (``assets/``). The script defines ``RefereeReplay.create``,
which binds the controls and shows a game from its compact replay (format: ``referee.runner.replay``).
"""

from __future__ import annotations

from pathlib import Path

ASSETS = Path(__file__).with_name("assets")
VIEWER_SCRIPT = ASSETS / "replay.js"
STYLE_SHEET = ASSETS / "report.css"

REPLAY_MARKUP = (
    '<div id="replay-view" hidden><div id="replay-title"></div>'
    '<div class="controls replay-controls"><button id="rp-first" title="first (Home)">« first</button>'
    '<button id="rp-prev" title="previous (←)">‹ back</button><button id="rp-next" title="next (→)">next ›</button>'
    '<button id="rp-last" title="last (End)">last »</button> <input type="range" id="rp-slider" min="0" value="0">'
    ' <span id="rp-pos"></span></div>'
    '<div id="rp-event"></div><div id="rp-fault" hidden></div>'
    '<div id="rp-stderr" hidden></div>'
    '<table id="rp-table" class="data table-view"><thead><tr><th>seat</th><th>entrant</th><th>status</th>'
    "<th>hand</th><th>cards</th><th>penalty chips</th><th>bonus chips</th><th>result</th></tr></thead>"
    "<tbody></tbody></table>"
    '<p id="rp-last-played"></p><ol id="rp-history"></ol></div>'
)
