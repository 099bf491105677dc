"""The shape of the code: which module may use what (read from the source, every import at run time)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("referee", "protocol")


def _sources() -> dict[str, Path]:
    """Module name -> its file, for every module of the project's packages."""
    out = {}
    for top in PACKAGES:
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = path
    return out


def _top_level_imports(path: Path) -> set[str]:
    """The modules ``path`` imports anywhere in its code (functions too), by their absolute names."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
    return names


def test_only_the_stores_use_sqlite() -> None:
    """Every read and write of a database goes through its store: a results folder's ``ResultsStore`` (whose errors
    are ``StoreError``s) or a ladder's ``LadderStore``."""
    users = sorted(m for m, path in _sources().items() if "sqlite3" in _top_level_imports(path))
    assert users == ["referee.ladder.store", "referee.tournament.store"]
