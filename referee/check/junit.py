"""The JUnit XML form of a check report: one test case per check, for CI systems."""

from __future__ import annotations

import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from referee.check.model import CheckReport, CheckResult, Evidence, Outcome

_NOT_XML = re.compile("[^\x09\x0a\x0d\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def _xml_safe(text: str) -> str:
    """``text`` with characters XML 1.0 cannot carry (a bot may send anything) shown as escapes."""
    return _NOT_XML.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


def _evidence_text(e: Evidence) -> str:
    lines = [e.what]
    if e.where():
        lines.append("at " + e.where())
    if e.sent is not None:
        lines.append(f"sent:     {e.sent}")
    lines.append(f"received: {e.received}" if e.received is not None else "received: (nothing)")
    return "\n".join(lines)


def _case(suite: ET.Element, result: CheckResult, classname: str) -> None:
    case = ET.SubElement(suite, "testcase", name=result.name, classname=classname, time="0")
    if result.outcome is Outcome.FAILED:
        failure = ET.SubElement(case, "failure", message=_xml_safe(result.summary), type=result.name)
        failure.text = _xml_safe("\n\n".join(_evidence_text(e) for e in result.evidence) or result.summary)
    elif result.outcome is Outcome.SKIPPED:
        ET.SubElement(case, "skipped", message=_xml_safe(result.summary))
    else:  # passed, or passed with a warning (which a CI system shows as the case's output)
        out = ET.SubElement(case, "system-out")
        warning = "warning: " if result.outcome is Outcome.WARNED else ""
        out.text = _xml_safe(warning + result.summary)


def junit_xml(report: CheckReport) -> str:
    """The report as a JUnit XML document (one ``testsuite`` named after the bot)."""
    classname = _xml_safe("referee.check." + (report.name or report.bot).replace(" ", "_"))
    root = ET.Element("testsuites")
    suite = ET.SubElement(
        root,
        "testsuite",
        name=_xml_safe(f"referee check {report.bot}"),
        tests=str(len(report.checks)),
        failures=str(sum(1 for c in report.checks if c.outcome is Outcome.FAILED)),
        errors="0",
        skipped=str(sum(1 for c in report.checks if c.outcome is Outcome.SKIPPED)),
        time=f"{report.seconds:.3f}",
    )
    for result in report.checks:
        _case(suite, result, classname)
    if report.stderr_tail:
        err = ET.SubElement(suite, "system-err")
        err.text = _xml_safe("\n".join(report.stderr_tail))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


def write_junit(report: CheckReport, path: str | os.PathLike[str]) -> None:
    """Write ``junit_xml(report)`` to ``path``, creating its folder. Raises ``OSError`` when it cannot."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(junit_xml(report), encoding="utf-8")
