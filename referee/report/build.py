"""``build_report``: read a tournament folder and write its HTML report."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from referee.report.errors import ReportError
from referee.report.load import load_tournament
from referee.report.page import SIZE_LIMIT, render

if TYPE_CHECKING:
    from referee.tournament.standings import Tally

REPORT_NAME = "report.html"


@dataclass(frozen=True, slots=True)
class ReportOutcome:
    """What was written: the file, its size, how many games it covers and how many replays it embeds."""

    path: Path
    size: int
    games: int
    planned: int | None
    replays: int
    replays_available: int
    unreplayable: int

    @property
    def partial(self) -> bool:
        return self.planned is None or self.games < self.planned


def build_report(
    directory: Path,
    output: Path | None = None,
    *,
    limit: int = SIZE_LIMIT,
    on_game: Callable[[int], None] | None = None,
    counted: Tally | None = None,
    title: str | None = None,
) -> ReportOutcome:
    """Write the report of the tournament in ``directory`` to ``output`` (default ``DIRECTORY/report.html``).

    The file is replaced atomically, so a reader never sees half a report. Raises ``ReportError`` (one line)
    when the folder holds no tournament, its database cannot be read, or the file cannot be written.
    ``counted``: the folder's games already counted, as ``load_tournament`` takes them; ``title``: the contest's
    name at the top of the page (default: the folder's name).
    """
    tournament = load_tournament(directory, on_game=on_game, counted=counted)
    if title:
        tournament = replace(tournament, name=title)
    html, packed = render(tournament, limit=limit)
    target = output if output is not None else directory / REPORT_NAME
    data = html.encode("utf-8")
    _write_atomic(target, data)
    return ReportOutcome(
        path=target,
        size=len(data),
        games=len(tournament.games),
        planned=tournament.planned,
        replays=packed.embedded,
        replays_available=packed.available,
        unreplayable=sum(1 for g in tournament.games if g.replay is None),
    )


def _write_atomic(target: Path, data: bytes) -> None:
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise ReportError(f"cannot write the report to {target}: folder {parent} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(prefix=".report-", suffix=".html", dir=parent)
    except OSError as exc:
        raise ReportError(f"cannot write the report to {target}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise ReportError(f"cannot write the report to {target}: {exc.strerror or exc}") from None
