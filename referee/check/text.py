"""The readable form of a check report: one line per check, evidence under each failure, a verdict."""

from __future__ import annotations

from referee.check.model import CheckReport, CheckResult, DistinctFault, Outcome
from referee.runner.safe_text import visible

_MARK = {Outcome.PASSED: "PASS", Outcome.WARNED: "WARN", Outcome.FAILED: "FAIL", Outcome.SKIPPED: "SKIP"}
_CLIP = 300


def _clip(line: str) -> str:
    return line if len(line) <= _CLIP else line[:_CLIP] + f"... ({len(line)} characters)"


def _refs(c: CheckResult, number: dict[str, int]) -> str:
    """A failed check's line: its title and the faults (by number) that failed it."""
    refs = sorted({number[e.what] for e in c.evidence})
    label = "fault" if len(refs) == 1 else "faults"
    times = f", {len(c.evidence)} times" if len(c.evidence) > 1 else ""
    return f"{c.title}: {label} {', '.join(map(str, refs))}{times}"


def _fault_lines(i: int, fault: DistinctFault) -> list[str]:
    e = fault.evidence
    where = e.where()
    times = f"{fault.times} times, first" if fault.times > 1 else "once"
    out = [f"  {i}. {e.what}"]
    if where:
        out.append(f"      {times} at {where}")
    out.append(f"      failed: {', '.join(fault.checks)}")
    if e.sent is not None:
        out.append(f"      sent:     {_clip(e.sent)}")
    out.append(f"      received: {_clip(e.received)}" if e.received is not None else "      received: (nothing)")
    return out


def render_text(report: CheckReport, *, max_evidence: int = 5) -> str:
    """The report as text for a terminal or a CI log, at most ``max_evidence`` examples per failed check.

    What the bot wrote (its name, lines received, stderr, details in summaries and notes) is shown literally:
    every report line stays one line, with no control character or escape sequence in it
    (``referee.runner.safe_text.visible``)."""
    return "\n".join(visible(line) for line in _lines(report, max_evidence))


def _lines(report: CheckReport, max_evidence: int) -> list[str]:
    title = f"referee check {report.bot}" + (f" (says it is {report.name!r})" if report.name else "")
    lines = [title, ""]
    faults = report.faults
    number = {f.evidence.what: i for i, f in enumerate(faults, start=1)}
    width = max(len(c.name) for c in report.checks) if report.checks else 0
    for c in report.checks:
        summary = _refs(c, number) if c.outcome is Outcome.FAILED and c.evidence else c.summary
        lines.append(f"  {_MARK[c.outcome]}  {c.name.ljust(width)}  {summary}")
    if faults:
        lines.append("")
        lines.append("  faults, each once, with the checks it failed:")
    for i, fault in enumerate(faults[:max_evidence], start=1):
        lines.extend(_fault_lines(i, fault))
    if len(faults) > max_evidence:
        lines.append(f"  ... and {len(faults) - max_evidence} more distinct faults (all of them in --json)")
    for note in report.notes:
        lines.append(f"  note: {note}")
    if report.stderr_tail:
        lines.append("")
        lines.append("  the bot's stderr, last lines:")
        lines.extend(f"    | {_clip(line)}" for line in report.stderr_tail)
    failed = report.failed_names
    skipped = sum(1 for c in report.checks if c.outcome is Outcome.SKIPPED)
    passed = sum(1 for c in report.checks if c.outcome is Outcome.PASSED)
    warned = sum(1 for c in report.checks if c.outcome is Outcome.WARNED)
    lines.append("")
    verdict = "FAILED" if failed else "PASSED"
    warn = f"{warned} warned, " if warned else ""
    counts = f"{passed} passed, {warn}{len(failed)} failed, {skipped} not reached"
    lines.append(f"{verdict}: {counts}; {len(report.games)} games in {report.seconds:.1f} s")
    if failed:
        lines.append("failed checks: " + ", ".join(failed))
    return lines
