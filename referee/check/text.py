"""The readable form of a check report: one line per check, evidence under each failure, a verdict."""

from __future__ import annotations

from referee.check.model import CheckReport, Evidence, Outcome
from referee.runner.safe_text import visible

_MARK = {Outcome.PASSED: "PASS", Outcome.FAILED: "FAIL", Outcome.SKIPPED: "SKIP"}
_CLIP = 300


def _clip(line: str) -> str:
    return line if len(line) <= _CLIP else line[:_CLIP] + f"... ({len(line)} characters)"


def _evidence_lines(e: Evidence) -> list[str]:
    where = e.where()
    head = f"      - {e.what}" + (f" ({where})" if where else "")
    out = [head]
    if e.sent is not None:
        out.append(f"        sent:     {_clip(e.sent)}")
    out.append(f"        received: {_clip(e.received)}" if e.received is not None else "        received: (nothing)")
    return out


def render_text(report: CheckReport, *, max_evidence: int = 3) -> str:
    """The report as text for a terminal or a CI log, at most ``max_evidence`` examples per failed check.

    What the bot wrote (its name, lines received, stderr, details in summaries and notes) is shown literally:
    every report line stays one line, with no control character or escape sequence in it
    (``referee.runner.safe_text.visible``)."""
    return "\n".join(visible(line) for line in _lines(report, max_evidence))


def _lines(report: CheckReport, max_evidence: int) -> list[str]:
    title = f"referee check {report.bot}" + (f" (says it is {report.name!r})" if report.name else "")
    lines = [title, ""]
    width = max(len(c.name) for c in report.checks) if report.checks else 0
    for c in report.checks:
        lines.append(f"  {_MARK[c.outcome]}  {c.name.ljust(width)}  {c.summary}")
        if c.outcome is Outcome.FAILED:
            for e in c.evidence[:max_evidence]:
                lines.extend(_evidence_lines(e))
            if len(c.evidence) > max_evidence:
                lines.append(f"      ... and {len(c.evidence) - max_evidence} more")
    for note in report.notes:
        lines.append(f"  note: {note}")
    if report.stderr_tail:
        lines.append("")
        lines.append("  the bot's stderr, last lines:")
        lines.extend(f"    | {_clip(line)}" for line in report.stderr_tail)
    failed = report.failed_names
    skipped = sum(1 for c in report.checks if c.outcome is Outcome.SKIPPED)
    passed = sum(1 for c in report.checks if c.outcome is Outcome.PASSED)
    lines.append("")
    verdict = "FAILED" if failed else "PASSED"
    counts = f"{passed} passed, {len(failed)} failed, {skipped} not reached"
    lines.append(f"{verdict}: {counts}; {len(report.games)} games in {report.seconds:.1f} s")
    if failed:
        lines.append("failed checks: " + ", ".join(failed))
    return lines
