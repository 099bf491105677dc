"""The entrant page's rating chart: the report's line chart (``referee.report.charts``), one line per version.

Each point is a version's live rating, shown as the report shows ratings (μ − 3σ), after each of its blocks; the
x axis counts all of the entrant's blocks in order (every version's), and a line is thinned only after its points
are placed on it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from markupsafe import Markup

from referee.report.charts import ratings_chart

__all__ = ["POINTS", "rating_chart"]

#: The most points drawn of one version's line (the chart is 900 pixels wide); its first and last are kept.
POINTS = 300


def _thin(points: Sequence[tuple[int, float, float]]) -> Sequence[tuple[int, float, float]]:
    if len(points) <= POINTS:
        return points
    step = (len(points) - 1) / (POINTS - 1)
    return [points[round(i * step)] for i in range(POINTS)]


def rating_chart(name: str, history: Mapping[int, Sequence[tuple[int, float, float]]]) -> str:
    """An SVG line chart of each version's rating (``(block, mu, sigma)`` after each of its blocks), versions in
    number order: markup the report's
    chart code built, every name in it escaped (``html.escape``), so the page shows it as it is."""
    numbers = sorted(history)
    # The x axis counts every block of the entrant's, so each version's line sits where its blocks came in the
    # entrant's history; only then is each line thinned for drawing.
    blocks = sorted({block for n in numbers for block, _, _ in history[n]})
    position = {b: i + 1 for i, b in enumerate(blocks)}
    lines = [[(position[block], mu - 3 * sigma) for block, mu, sigma in _thin(history[n])] for n in numbers]
    return Markup(ratings_chart([f"{name}#{n}" for n in numbers], lines, len(blocks), unit="blocks"))
