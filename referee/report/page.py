"""The report page: one self-contained HTML file (inline CSS, script and data; nothing loaded from the network).

Standings, charts, the head-to-head table and the faults table are plain HTML/SVG, readable without script.
The script (``assets/report.js``) sorts the standings and runs the game list and the replay viewer from the
packed data (``payload.py``).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from html import escape

from referee.report.charts import heatmap, ratings_chart, scores_chart
from referee.report.model import Tournament
from referee.report.payload import SMALLEST, Packed, pack
from referee.report.stats import scores_by_entrant
from referee.report.viewer import ASSETS, REPLAY_MARKUP
from referee.tournament.formats import FIXED_ORDER, FORMATS
from referee.tournament.standings import WINS_NOTE, EntrantStanding


def _asset(name: str) -> str:
    """An asset of the page (beside ``viewer.py``), read as a file: ``importlib.resources`` and the zip support it
    loads would cost a run a few milliseconds for a few files of an installed package."""
    return (ASSETS / name).read_text(encoding="utf-8")


#: The largest report file, in bytes: past it, replays are left out (``payload.py``) until the file fits.
SIZE_LIMIT = 9_500_000
#: Rows of the faults table written into the page (the game list can still show every game with a fault).
FAULT_ROWS = 1000


def render(t: Tournament, *, limit: int = SIZE_LIMIT, now: datetime | None = None) -> tuple[str, Packed]:
    """The report's HTML text and what was packed into it: every replay if the file stays under ``limit`` bytes,
    else as many as fit (the rest of the page, results of every game included, is always there). Compressed
    quickly; at gzip's smallest when that does not fit."""
    when = (now or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M UTC")
    packed = pack(t)
    html = _page(t, packed, when)
    size = len(html.encode("utf-8"))
    if size > limit:
        packed = pack(t, level=SMALLEST)
        html = _page(t, packed, when)
        size = len(html.encode("utf-8"))
    budget = sum(len(c) for c in packed.chunks) - (size - limit)
    budget -= 8 * len(t.games) + 1024  # the index grows a little with a note for each replay left out
    while size > limit and packed.embedded:
        packed = pack(t, max(0, budget), level=SMALLEST)
        html = _page(t, packed, when)
        budget -= max(0, len(html.encode("utf-8")) - limit)
        size = len(html.encode("utf-8"))
    return html, packed


def _page(t: Tournament, packed: Packed, when: str) -> str:
    names = [e.name for e in t.entrants]
    meta = {"name": t.name, "partial": t.partial, "embedded": packed.embedded, "available": packed.available}
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{escape(t.name)} · referee report</title>",
        f"<style>{_asset('report.css')}</style></head><body>",
        f'<header><h1>{escape(t.name)}</h1><p class="sub">{_summary(t)} · {_replays(t, packed)} · generated {when}</p>',
        _banner(t),
        _deals(t),
        '<nav><a href="#results">Results</a><a href="#standings">Statistics</a><a href="#ratings">Ratings</a>'
        '<a href="#scores">Scores</a><a href="#h2h">Head-to-head</a><a href="#faults">Faults</a>'
        '<a href="#games">Games</a><a href="#replay">Replay</a></nav></header><main>',
        '<section id="results"><h2>Results</h2>',
        _decided(t),
        _results(t),
        "</section>",
        '<section id="standings"><h2>Standings: the statistics</h2>',
        _order_hint(t),
        '<div class="wide">',
        _standings(t),
        "</div></section>",
        '<section id="ratings"><h2>Ratings over the tournament</h2>',
        ratings_chart(names, t.ratings, len(t.games)),
        "</section>",
        '<section id="scores"><h2>Score distribution</h2>',
        '<p class="hint">Per entrant: whiskers from best to worst game score, box from first to third quartile, '
        "bar at the median, dot at the mean.</p>",
        scores_chart(names, scores_by_entrant(len(names), t.games)),
        "</section>",
        '<section id="h2h"><h2>Head-to-head</h2>',
        '<p class="hint">Share of the games two entrants shared in which the row entrant placed ahead of the '
        "column entrant (a shared rank counts for neither).</p>",
        '<div class="wide">',
        heatmap(t.standings),
        "</div>",
        "</section>",
        '<section id="faults"><h2>Faults</h2>',
        _faults(t),
        "</section>",
        '<section id="games"><h2>Games</h2>',
        '<div class="controls"><label>Entrant <select id="game-filter"><option value="">all</option>',
        *(f'<option value="{e.key}">{escape(e.name)}</option>' for e in t.entrants),
        '</select></label> <label><input type="checkbox" id="game-faulted"> only games with a fault</label>',
        ' <span id="game-count"></span></div>',
        _replay_note(t, packed),
        '<div class="wide"><table id="game-table" class="data"><thead><tr><th>#</th><th>game</th>'
        "<th>seat: entrant (score, rank)</th><th>winner</th><th>deal seed</th><th>replay</th></tr></thead>"
        "<tbody></tbody></table></div>",
        '<div class="pager"><button id="page-prev">‹ previous</button> <span id="page-info"></span> '
        '<button id="page-next">next ›</button></div>',
        "</section>",
        '<section id="replay"><h2>Replay</h2>',
        '<p id="replay-empty" class="hint">Choose a game in the list above to watch it move by move.</p>',
        REPLAY_MARKUP,
        "</section></main>",
        f'<script type="application/json" id="report-meta">{_json(meta)}</script>',
        f'<script type="text/plain" id="report-index">{packed.index}</script>',
        *(
            f'<script type="text/plain" class="replay-chunk" data-chunk="{i}">{c}</script>'
            for i, c in enumerate(packed.chunks)
        ),
        f"<script>{_asset('replay.js')}</script>",
        f"<script>{_asset('report.js')}</script>",
        "</body></html>",
    ]
    return "\n".join(parts)


def _json(value: object) -> str:
    """JSON safe inside a <script> element."""
    return json.dumps(value, separators=(",", ":")).replace("<", "\\u003c")


def _summary(t: Tournament) -> str:
    done = len(t.games)
    games = f"{done} game{'s' if done != 1 else ''}"
    if t.planned and t.planned != done:
        games += f" of {t.planned}"
    deals = t.standings.deals
    return (
        f'<span id="format">{escape(t.standings.format)}</span> · {len(t.entrants)} entrants · {games} · '
        f"{deals} complete deal{'s' if deals != 1 else ''}"
    )


def _order_hint(t: Tournament) -> str:
    fmt = FORMATS.get(t.standings.format)
    order = FIXED_ORDER if fmt is None else fmt.standings_order
    return (
        f'<p class="hint">{order}, as <code>referee standings</code> prints them. Matchpoints: the share of the '
        "table an entrant beat on each deal (its total over every seat rotation of the deal; a tie counts half), "
        "with a 95% interval over deals. “Separated” marks a place whose matchpoints are significantly above the "
        "next place's (5% after Holm's correction over the adjacent pairs; see docs/statistics.md). Click a column "
        f'to sort. <span id="wins-note">{escape(WINS_NOTE[0].upper() + WINS_NOTE[1:])}.</span></p>'
    )


def _decided(t: Tournament) -> str:
    """What the format decided (a race's outcome, a gauntlet's verdicts), as it says it."""
    decided = t.standings.decided
    if decided is None or not (text := decided.banner()):
        return ""
    return f'<p class="banner" id="{escape(decided.key)}">{escape(text, quote=False)}</p>'


def _banner(t: Tournament) -> str:
    if not t.games:
        return '<p class="banner partial" id="partial">Partial report: no game has finished yet.</p>'
    if t.partial:
        return (
            f'<p class="banner partial" id="partial">Partial report: {len(t.games)} of {t.planned or "?"} games are '
            "stored (the tournament is still running, or stopped before its end and can be resumed).</p>"
        )
    return ""


def _deals(t: Tournament) -> str:
    """The deal commitment, and the secret once revealed, with how to check them (``referee verify-deals``)."""
    commitment, secret = t.deals.get("commitment"), t.deals.get("secret")
    if not commitment:
        return ""
    text = f"Deal commitment (SHA-256 of the deal secret): <code>{escape(commitment)}</code>"
    if secret:
        text += f' · deal secret: <code id="deal-secret">{escape(secret)}</code> (check every deal with '
        text += "<code>referee verify-deals</code>)"
    else:
        text += " · the secret is revealed when the last game has ended"
    return f'<p class="sub" id="deals">{text}</p>'


def _cell(sort: str | float | None, shown: str) -> str:
    key = "" if sort is None else (f"{sort:.6f}" if isinstance(sort, float) else str(sort))
    return f'<td data-v="{escape(key)}">{shown}</td>'


def _fixed(v: float | None, digits: int = 2) -> str:
    return "–" if v is None else f"{v:.{digits}f}"


def _standings(t: Tournament) -> str:
    faults: dict[str, int] = {}
    for f in t.faults:
        name = t.entrants[f.entrant].name
        faults[name] = faults.get(name, 0) + 1
    heads = [
        ("place", "num"),
        ("entrant", "text"),
        ("matchpoints", "num"),
        ("vs next", "text"),
        ("deals", "num"),
        ("rating", "num"),
        ("games", "num"),
        ("wins", "num"),
        ("mean score", "num"),
        ("mean rank", "num"),
        ("forfeits", "num"),
        ("faults", "num"),
    ]
    out = ['<table id="standings-table" class="data sortable"><thead><tr>']
    titles = {
        "wins": WINS_NOTE,
        "matchpoints": "mean matchpoints over complete deals, ± half its 95% interval over deals",
        "mean score": "mean game score (lower is better), ± half its 95% interval",
        "rating": "OpenSkill μ − 3σ (μ and σ in each cell's tooltip)",
    }
    out.extend(
        f'<th data-col="{i}" data-type="{kind}" tabindex="0"'
        + (f' title="{escape(titles[name])}"' if name in titles else "")
        + f">{name}</th>"
        for i, (name, kind) in enumerate(heads)
    )
    out.append("</tr></thead><tbody>")
    for place, e in enumerate(t.standings.entrants, start=1):
        declared = (
            f' <span class="hint">({escape(e.declared_name)})</span>'
            if e.declared_name and e.declared_name != e.name
            else ""
        )
        ci = e.mean_score_ci95
        forfeits = sum(e.forfeits.values())
        kinds = ", ".join(f"{k}: {v}" for k, v in sorted(e.forfeits.items()))
        wins = f"{e.wins:g}" if e.wins == int(e.wins) else f"{e.wins:.2f}"
        score = _fixed(e.mean_score) + ("" if ci is None else f" ± {(ci[1] - ci[0]) / 2:.2f}")
        musigma = f"μ {_fixed(e.rating_mu)}, σ {_fixed(e.rating_sigma)}"
        d = e.deals
        out.append(f'<tr data-entrant="{escape(e.name)}">')
        out.extend(
            [
                _cell(place, str(place)),
                f'<td data-v="{escape(e.name)}" class="name">{escape(e.name)}{declared}</td>',
                _cell(d.matchpoints, _points(d.matchpoints, d.matchpoints_ci95)),
                *_gap_cell(e),
                _cell(d.deals, str(d.deals)),
                f'<td data-v="{"" if e.rating is None else f"{e.rating:.6f}"}" title="{musigma}">'
                f"{_fixed(e.rating)}</td>",
                _cell(e.games, str(e.games)),
                _cell(float(e.wins), wins),
                _cell(e.mean_score, score),
                _cell(e.mean_rank, _fixed(e.mean_rank)),
                f'<td data-v="{forfeits}" title="{escape(kinds)}">{forfeits}</td>',
                _cell(faults.get(e.name, 0), str(faults.get(e.name, 0))),
            ]
        )
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _points(value: float | None, ci: tuple[float, float] | None, digits: int = 3) -> str:
    """``0.612 ± 0.041``: matchpoints with half their 95% interval."""
    return _fixed(value, digits) + ("" if value is None or ci is None else f" ± {(ci[1] - ci[0]) / 2:.{digits}f}")


def _gap_cell(e: EntrantStanding) -> list[str]:
    gap = "" if e.separated is None else "separated" if e.separated else "–"
    p = "" if e.separation_p is None else f'<span class="hint">p = {e.separation_p:.3g}</span>'
    return [f'<td data-v="{escape(gap)}" class="sep">{gap}{p}</td>']


def _results(t: Tournament) -> str:
    """The participants' view: place, entrant, score (matchpoints as a share, with its 95% interval), games and
    forfeits; a format that decides the order (a race) adds why each entrant is where it is."""
    decided = t.standings.decided
    why = decided.places([e.name for e in t.standings.entrants]) if decided is not None else {}
    heads = ["place", "entrant", "score", "games", "forfeits", *(["why this place"] if why else [])]
    out = [
        '<p class="hint">The score is the share of the table an entrant beat on the same deals (matchpoints, '
        "shown as a percentage), with its 95% interval; the statistics below give every figure behind it.</p>",
        '<div class="wide"><table id="results-table" class="data"><thead><tr>',
        *(f'<th class="opt">{h}</th>' if h == "games" else f"<th>{h}</th>" for h in heads),
        "</tr></thead><tbody>",
    ]
    for place, e in enumerate(t.standings.entrants, start=1):
        d = e.deals
        ci = d.matchpoints_ci95
        score = "–" if d.matchpoints is None else f"{100 * d.matchpoints:.1f}%"
        if d.matchpoints is not None and ci is not None:
            score += f' <span class="hint">± {50 * (ci[1] - ci[0]):.1f}</span>'
        cells = [str(place), f'<span class="name">{escape(e.name)}</span>', score, str(e.games)]
        cells.append(str(sum(e.forfeits.values())))
        if why:
            cells.append(escape(why.get(e.name, "")))
        row = "".join(f'<td class="opt">{c}</td>' if i == 3 else f"<td>{c}</td>" for i, c in enumerate(cells))
        out.append(f'<tr data-entrant="{escape(e.name)}">{row}</tr>')
    out.append("</tbody></table></div>")
    return "".join(out)


def _faults(t: Tournament) -> str:
    if not t.faults:
        return '<p class="empty" id="no-faults">No faults: every bot answered in time and by the rules.</p>'
    labels = {g.key: g.label for g in t.games}
    shown = t.faults[:FAULT_ROWS]
    more = (
        f" The first {len(shown)} are listed; tick “only games with a fault” in the game list for the others."
        if len(shown) < len(t.faults)
        else ""
    )
    out = [
        f'<p class="hint" id="fault-count">{len(t.faults)} fault{"s" if len(t.faults) != 1 else ""}; each game link '
        f"opens the replay at the fault.{more}</p>",
        '<div class="scroll"><table id="fault-table" class="data"><thead><tr><th>game</th><th>round</th><th>turn</th>'
        "<th>entrant</th><th>seat</th><th>kind</th><th>detail</th></tr></thead><tbody>",
    ]
    for f in shown:
        detail = escape(f.detail) + (f'<br><span class="hint">line: {escape(f.line)}</span>' if f.line else "")
        out.append(
            f'<tr data-game="{f.game}"><td><a href="#replay/{f.game}/fault">'
            f"{escape(labels.get(f.game, str(f.game)))}</a></td>"
            f"<td>{'' if f.round is None else f.round}</td><td>{f.turn or ''}</td>"
            f"<td>{escape(t.entrants[f.entrant].name)}</td><td>{f.seat}</td><td>{escape(f.kind)}</td>"
            f'<td class="msg">{detail}</td></tr>'
        )
    out.append("</tbody></table></div>")
    return "".join(out)


def _replays(t: Tournament, p: Packed) -> str:
    """The header's count of the games with a replay in this file."""
    games = len(t.games)
    return f"replays of all {games} games" if p.embedded == games else f"replays of {p.embedded:,} of {games:,} games"


def _replay_note(t: Tournament, p: Packed) -> str:
    """Which games have a replay in this file, and why the others have none."""
    games = len(t.games)
    unreplayable = games - p.available
    if p.embedded == games:
        return f'<p class="hint" id="replay-budget">Every game ({games:,}) has its replay in this file.</p>'
    parts = [f"{p.embedded:,} of {games:,} games have their replay in this file"]
    if p.embedded < p.available:
        parts.append(
            f"{p.available - p.embedded:,} were left out to keep it small: every game with a fault is kept first, "
            "then games spread evenly over the tournament"
        )
    if unreplayable:
        parts.append(f"{unreplayable:,} have no replay to show (no game log was kept, or it does not replay)")
    return (
        f'<p class="banner" id="replay-budget">{"; ".join(parts)}. Every game\'s result is listed; a game without '
        "a replay here is told by <code>referee replay</code> from its log in the results folder's "
        "<code>games/</code>.</p>"
    )
