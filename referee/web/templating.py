"""The pages' templates: Jinja2 with autoescaping on for every template, and the few filters the pages use.

Every value a template shows is escaped unless a template marks it safe, and none does: entrant names, bot
output, build logs and fault details are text, never markup.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import jinja2
from starlette.templating import Jinja2Templates

__all__ = ["TEMPLATES", "make_templates"]

TEMPLATES = Path(__file__).with_name("templates")


def age(stamp: str | None, now: datetime | None = None) -> str:
    """How long ago an ISO time was, in one short unit ("3 min", "2 h", "5 d"); "" for None."""
    if not stamp:
        return ""
    try:
        then = datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return stamp
    if then.tzinfo is None:
        then = then.replace(tzinfo=UTC)
    seconds = max(0.0, ((now or datetime.now(UTC)) - then).total_seconds())
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return f"{int(seconds // size)} {unit}"
    return f"{int(seconds)} s"


def number(value: float | None, places: int = 1) -> str:
    """A figure to ``places`` decimals; "–" when there is none yet."""
    return "–" if value is None else f"{value:.{places}f}"


def make_templates() -> Jinja2Templates:
    """The templates of ``TEMPLATES`` with autoescaping for every file, undefined names an error, and the filters."""
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["age"] = age
    env.filters["number"] = number
    return Jinja2Templates(env=env)
