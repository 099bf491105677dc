"""``referee ladder final``: the ladder's active versions, frozen, as the entrants of a normal tournament.

``prepare_final`` closes submissions (``Ladder.submit`` refuses from then on, with the reason) and writes two files
into the ladder folder for ``referee run``: ``final-bots.toml``, a manifest with one ``[[bot]]`` per active
version (its key as the name, its resolved command, its version folder as ``cwd``), and ``final-rules.json``, the
ladder's ruleset. The final is then a ``race`` (or ``balanced``) tournament run by ``referee run`` into its own
results folder with a fresh committed deal secret, so it has its usual standings, report and ``verify-deals``; its
bots run with the ladder's move time, sandbox and limits.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from referee.ladder.botmanifest import BotManifest, version_spec
from referee.ladder.errors import Refused
from referee.ladder.model import EntrantState, Version
from referee.ladder.service import Ladder
from referee.ladder.store import now

__all__ = ["FinalPlan", "prepare_final"]

MANIFEST = "final-bots.toml"
RULES = "final-rules.json"


@dataclass(frozen=True, slots=True)
class FinalPlan:
    """The files written and the versions entered."""

    manifest: Path
    rules: Path
    versions: tuple[Version, ...]


def _toml(text: str) -> str:
    return json.dumps(text)  # a JSON string is a TOML basic string (same escapes)


def prepare_final(ladder: Ladder) -> FinalPlan:
    """Close submissions and write the final's manifest and ruleset. Raises ``Refused`` with fewer than two active
    versions."""
    playing = {e.id for e in ladder.entrants() if e.state == EntrantState.ACTIVE}
    versions = tuple(v for v in ladder.store.active_versions() if v.entrant_id in playing)
    if len(versions) < 2:
        raise Refused(f"a final needs at least two active versions; the ladder has {len(versions)}")
    if ladder.store.meta("submissions_closed") is None:
        ladder.store.set_meta("submissions_closed", f"closed for the final at {now()}")
    root = ladder.layout.root
    lines = ["# The ladder's final: its active versions (written by referee ladder final).\n"]
    for v in versions:
        folder = ladder.version_folder(v)
        if v.command[0] in ("python", "python3") and len(v.command) > 1 and v.command[1].endswith(".py"):
            words = v.command[1:]  # a .py file alone: referee run runs it with its own Python (which has the SDK)
        else:
            words = version_spec(v.key, BotManifest(v.command, v.build), folder).argv
        command = ", ".join(_toml(word) for word in words)
        lines.append(
            f"[[bot]]\nname = {_toml(v.key)}\ncommand = [{command}]\ncwd = {_toml(str(folder.relative_to(root)))}\n"
        )
    manifest = root / MANIFEST
    manifest.write_text("\n".join(lines), encoding="utf-8")
    rules = root / RULES
    rules.write_text(json.dumps(ladder.config.ruleset().to_dict(), indent=2) + "\n", encoding="utf-8")
    return FinalPlan(manifest, rules, versions)
