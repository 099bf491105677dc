"""Hand-written SVG charts and the head-to-head heat map, as HTML fragments (no script needed to see them)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from html import escape

from referee.report.stats import spread
from referee.tournament.standings import Standings

PALETTE = (
    "#1f77b4",
    "#d62728",
    "#2ca02c",
    "#ff7f0e",
    "#9467bd",
    "#8c564b",
    "#e377c2",
    "#17becf",
    "#7f7f7f",
    "#bcbd22",
    "#393b79",
    "#ad494a",
)
MAX_POINTS = 300  # per line: a 10,000-game tournament draws at most this many points for each entrant


def color(i: int) -> str:
    """The colour of the ``i``-th entrant, shared by every chart."""
    return PALETTE[i % len(PALETTE)]


def _ticks(lo: float, hi: float, want: int = 5, *, whole: bool = False) -> list[float]:
    """About ``want`` round tick values from ``lo`` to ``hi`` (steps 1, 2, 2.5 or 5 times a power of ten;
    with ``whole`` only whole-number steps of 1, 2 or 5 times a power of ten)."""
    span = hi - lo
    if span <= 0:
        return [lo]
    raw = span / want
    mag = 10.0 ** math.floor(math.log10(raw))
    steps = (1, 2, 5, 10) if whole else (1, 2, 2.5, 5, 10)
    step = next(m * mag for m in steps if m * mag >= raw)
    if whole:
        step = max(1.0, round(step))
    first = step * math.ceil(lo / step - 1e-9)
    out = []
    v = first
    while v <= hi + 1e-9:
        out.append(round(v, 6))
        v += step
    return out


def _fmt(v: float) -> str:
    v = v + 0.0  # no "-0"
    if abs(v) < 1e-9:
        return "0"
    return f"{v:.0f}" if abs(v - round(v)) < 1e-9 else f"{v:.1f}"


def _thin(points: list[tuple[int, float]]) -> list[tuple[int, float]]:
    if len(points) <= MAX_POINTS:
        return points
    step = len(points) / (MAX_POINTS - 1)
    picked = [points[int(i * step)] for i in range(MAX_POINTS - 1)]
    return [*picked, points[-1]]


def ratings_chart(
    names: Sequence[str], history: Sequence[Sequence[tuple[int, float]]], games: int, *, unit: str = "games"
) -> str:
    """Line chart of each entrant's rating (ordinal, μ − 3σ) after every game it played (``unit``: what the x axis
    counts, "games" or the ladder's "blocks")."""
    lines = [(i, h) for i, h in enumerate(history) if len(h) > 1]
    if not lines or games == 0:
        return f'<p class="empty">No finished {unit} yet: no ratings to draw.</p>'
    w, h, left, right, top, bottom = 900, 340, 56, 190, 14, 40
    values = [v for _, pts in lines for _, v in pts]
    lo, hi = min(values), max(values)
    if hi - lo < 1:
        lo, hi = lo - 0.5, hi + 0.5
    pad = (hi - lo) * 0.05
    lo, hi = lo - pad, hi + pad
    pw, ph = w - left - right, h - top - bottom

    def x(n: float) -> float:
        return left + pw * (n / games)

    def y(v: float) -> float:
        return top + ph * (1 - (v - lo) / (hi - lo))

    out = [
        f'<svg class="chart" id="ratings-chart" viewBox="0 0 {w} {h}" role="img" '
        f'aria-label="Ratings over the course of the tournament">'
    ]
    for t in _ticks(lo, hi):
        out.append(f'<line class="grid" x1="{left}" x2="{left + pw}" y1="{y(t):.1f}" y2="{y(t):.1f}"/>')
        out.append(f'<text class="tick" x="{left - 6}" y="{y(t) + 4:.1f}" text-anchor="end">{_fmt(t)}</text>')
    for t in _ticks(0, games, whole=True):
        out.append(f'<text class="tick" x="{x(t):.1f}" y="{top + ph + 16}" text-anchor="middle">{_fmt(t)}</text>')
    out.append(f'<text class="axis" x="{left + pw / 2}" y="{h - 4}" text-anchor="middle">{unit} played</text>')
    out.append(
        f'<text class="axis" transform="translate(14 {top + ph / 2}) rotate(-90)" text-anchor="middle">'
        "rating (μ − 3σ)</text>"
    )
    out.append(f'<rect class="frame" x="{left}" y="{top}" width="{pw}" height="{ph}"/>')
    for i, pts in lines:
        path = " ".join(f"{x(n):.1f},{y(v):.1f}" for n, v in _thin(list(pts)))
        out.append(
            f'<polyline class="line" data-entrant="{i}" points="{path}" stroke="{color(i)}">'
            f"<title>{escape(names[i])}: {pts[-1][1]:.2f}</title></polyline>"
        )
    order = sorted(lines, key=lambda item: -item[1][-1][1])
    for row, (i, pts) in enumerate(order[:16]):
        ly = top + 10 + row * 18
        out.append(f'<rect x="{left + pw + 12}" y="{ly - 6}" width="14" height="4" fill="{color(i)}"/>')
        out.append(
            f'<text class="legend" x="{left + pw + 32}" y="{ly}">{escape(_short(names[i]))} {pts[-1][1]:.1f}</text>'
        )
    if len(order) > 16:
        out.append(
            f'<text class="legend" x="{left + pw + 12}" y="{top + 10 + 16 * 18}">… {len(order) - 16} more</text>'
        )
    out.append("</svg>")
    return "".join(out)


def _short(name: str, limit: int = 18) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"


def scores_chart(names: Sequence[str], scores: Sequence[Sequence[int]]) -> str:
    """Box plots of each entrant's game scores: whiskers min..max, box quartiles, bar median, dot mean."""
    rows = [(i, sp) for i, sp in ((i, spread(s)) for i, s in enumerate(scores)) if sp is not None]
    if not rows:
        return '<p class="empty">No finished games yet: no scores to draw.</p>'
    lo = min(sp.low for _, sp in rows)
    hi = max(sp.high for _, sp in rows)
    if hi - lo < 1:
        lo, hi = lo - 1, hi + 1
    left, right, top, rowh, w = 160, 20, 10, 26, 900
    pw = w - left - right
    bottom = top + rowh * len(rows)
    h = bottom + 34

    def x(v: float) -> float:
        return left + pw * (v - lo) / (hi - lo)

    out = [
        f'<svg class="chart" id="scores-chart" viewBox="0 0 {w} {h}" role="img" '
        f'aria-label="Score distribution per entrant">'
    ]
    for t in _ticks(lo, hi, 8):
        out.append(f'<line class="grid" x1="{x(t):.1f}" x2="{x(t):.1f}" y1="{top}" y2="{bottom}"/>')
        out.append(f'<text class="tick" x="{x(t):.1f}" y="{bottom + 14}" text-anchor="middle">{_fmt(t)}</text>')
    out.append(
        f'<text class="axis" x="{left + pw / 2}" y="{h - 4}" text-anchor="middle">score (lower is better)</text>'
    )
    for row, (i, sp) in enumerate(rows):
        cy = top + row * rowh + rowh / 2
        c = color(i)
        tip = (
            f"{escape(names[i])}: {sp.count} games, best {_fmt(sp.low)}, q1 {_fmt(sp.q1)}, median {_fmt(sp.median)}, "
            f"q3 {_fmt(sp.q3)}, worst {_fmt(sp.high)}, mean {sp.mean:.2f}"
        )
        out.append(
            f'<g class="box" data-entrant="{i}" data-median="{sp.median:g}" data-mean="{sp.mean:.4f}">'
            f"<title>{tip}</title>"
            f'<text class="label" x="{left - 8}" y="{cy + 4:.1f}" text-anchor="end">{escape(_short(names[i]))}</text>'
            f'<line class="whisker" x1="{x(sp.low):.1f}" x2="{x(sp.high):.1f}" y1="{cy:.1f}" y2="{cy:.1f}"/>'
        )
        for v in (sp.low, sp.high):
            out.append(f'<line class="whisker" x1="{x(v):.1f}" x2="{x(v):.1f}" y1="{cy - 5:.1f}" y2="{cy + 5:.1f}"/>')
        bw = max(x(sp.q3) - x(sp.q1), 1.5)
        out.append(
            f'<rect x="{x(sp.q1):.1f}" y="{cy - 8:.1f}" width="{bw:.1f}" height="16" fill="{c}" fill-opacity="0.35" '
            f'stroke="{c}"/><line class="median" x1="{x(sp.median):.1f}" x2="{x(sp.median):.1f}" y1="{cy - 8:.1f}" '
            f'y2="{cy + 8:.1f}"/><circle cx="{x(sp.mean):.1f}" cy="{cy:.1f}" r="3" fill="{c}"/></g>'
        )
    out.append("</svg>")
    return "".join(out)


def heatmap(standings: Standings) -> str:
    """Table: the share of shared games in which the row entrant placed ahead of the column entrant."""
    names = [e.name for e in standings.entrants]
    if not standings.games:
        return '<p class="empty">No finished games yet: no head-to-head results.</p>'
    out = ['<table class="heat" id="heatmap"><thead><tr><th>row ahead of column</th>']
    for n in names:
        out.append(f'<th class="col" title="{escape(n)}">{escape(_short(n, 12))}</th>')
    out.append("</tr></thead><tbody>")
    for a in names:
        out.append(f'<tr><th class="row">{escape(a)}</th>')
        for b in names:
            share = standings.head_to_head.get(a, {}).get(b)
            met = standings.met.get(a, {}).get(b, 0)
            if a == b or share is None:
                out.append('<td class="none">–</td>')
                continue
            tip = f"{a} placed ahead of {b} in {round(share * met)} of {met} shared games"
            out.append(
                f'<td data-row="{escape(a)}" data-col="{escape(b)}" data-share="{share:.6f}" data-games="{met}" '
                f'style="background:{_heat(share)}" title="{escape(tip)}">{round(share * 100)}%</td>'
            )
        out.append("</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _heat(share: float) -> str:
    """A colour from red (0) through white (½) to green (1)."""
    if share < 0.5:
        t = share / 0.5
        r, g, b = 230, int(120 + 135 * t), int(110 + 145 * t)
    else:
        t = (share - 0.5) / 0.5
        r, g, b = int(255 - 165 * t), int(255 - 55 * t), int(255 - 135 * t)
    return f"rgb({r},{g},{b})"
